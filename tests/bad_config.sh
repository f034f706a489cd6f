#!/usr/bin/env bash
# bad_config.sh WISPRUN PROGRAM
# A bad WISP_* value or an unknown WISP_* name must stop the job in MPI_Init:
# every one of the 3 ranks prints exactly one line naming the variable, the
# value and what is accepted; the job exits non-zero; the program's own code
# after MPI_Init never runs (it would print to stdout).
set -u
wisprun=$1 program=$2
np=3 failed=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

expect_rejected() { # expect_rejected EXPECTED-LINE-TEXT launcher-args...
    local want=$1
    shift
    "$@" -n $np "$program" >"$work/out" 2>"$work/err"
    local status=$?
    local ok=1
    [ "$status" != 0 ] || { echo "FAIL ($*): exit status 0"; ok=0; }
    [ ! -s "$work/out" ] || { echo "FAIL ($*): the program ran past MPI_Init"; ok=0; }
    for rank in $(seq 0 $((np - 1))); do
        local n
        n=$(grep -cF "wisp[$rank]: $want" "$work/err")
        [ "$n" = 1 ] || { echo "FAIL ($*): rank $rank printed '$want' $n times"; ok=0; }
    done
    if [ $ok = 1 ]; then
        echo "ok: $* -> exit $status, one line per rank: $want"
    else
        failed=1
        echo "--- stderr:"
        cat "$work/err"
    fi
}

vnode="expected an integer in 1..1048576"
expect_rejected "WISP_VNODE_SIZE='abc' is not valid: $vnode" "$wisprun" --env WISP_VNODE_SIZE=abc
expect_rejected "WISP_VNODE_SIZE='0' is not valid: $vnode" "$wisprun" --env WISP_VNODE_SIZE=0
expect_rejected "WISP_VNODE_SIZE='-3' is not valid: $vnode" "$wisprun" --env WISP_VNODE_SIZE=-3
expect_rejected "WISP_VNODE_SIZ is not a wisp variable (did you mean WISP_VNODE_SIZE?)" \
    "$wisprun" --env WISP_VNODE_SIZ=2
# From wisprun's own environment rather than --env (Open MPI needs -x for it).
expect_rejected "WISP_VERBOSE='7' is not valid: expected an integer in 0..3" \
    env WISP_VERBOSE=7 "$wisprun"
expect_rejected "WISP_STATS='maybe' is not valid" env WISP_STATS=maybe "$wisprun"
expect_rejected "WISP_DT_THREADS='many' is not valid: expected an integer in 1..1024, auto, off" \
    env WISP_DT_THREADS=many "$wisprun"
# The ghosts' binding, load balancing and placement: one word of a list each.
expect_rejected "WISP_GHOST_BINDING='segments' is not valid: expected one of rank, segment" \
    "$wisprun" --env WISP_GHOST_BINDING=segments
expect_rejected "WISP_GHOST_LOAD='bytes' is not valid: expected one of static, random, op, byte" \
    "$wisprun" --env WISP_GHOST_LOAD=bytes
expect_rejected "WISP_GHOST_BIND='socket' is not valid: expected one of none, numa, core" \
    "$wisprun" --env WISP_GHOST_BIND=socket
# The node's collectives: a word of a list, a size in its range.
expect_rejected "WISP_COLL='maybe' is not valid: expected one of auto, on, off" \
    "$wisprun" --env WISP_COLL=maybe
expect_rejected "WISP_COLL_STAGE='1k' is not valid: expected a size in bytes with an optional unit k, M, G or T, from 4k to 64M" \
    "$wisprun" --env WISP_COLL_STAGE=1k
# Two valid values that contradict each other: one check at MPI_Init,
# whatever reads them (a ghost's WISP_ASYNC=auto, WISP_PROGRESS=auto) or none.
expect_rejected "WISP_ASYNC_ON_BELOW=95 is above WISP_ASYNC_OFF_ABOVE=90" \
    "$wisprun" --env WISP_GHOSTS=1 --env WISP_ASYNC_ON_BELOW=95
expect_rejected "WISP_ASYNC_ON_BELOW=95 is above WISP_ASYNC_OFF_ABOVE=90" \
    "$wisprun" --env WISP_PROGRESS=auto --env WISP_ASYNC_ON_BELOW=95
expect_rejected "WISP_ASYNC_ON_BELOW=60 is above WISP_ASYNC_OFF_ABOVE=50" \
    "$wisprun" --env WISP_ASYNC_OFF_ABOVE=50 --env WISP_ASYNC_ON_BELOW=60
expect_rejected "WISP_ASYNC='maybe' is not valid: expected one of auto, on, off" \
    "$wisprun" --env WISP_ASYNC=maybe
# A valid value that the launch cannot satisfy (3 processes, 3 ghosts).
expect_rejected "WISP_GHOSTS=3 needs more than 3 processes on every node, but a node has 3" \
    "$wisprun" --env WISP_GHOSTS=3
exit $failed
