#!/usr/bin/env bash
# shm_full.sh MPI WISPRUN PRELOAD PROGRAM
# Issue 49's latetouch: /dev/shm fills up after wisp reserved its heap, and
# only then are the heap's large blocks first touched. In a private mount
# namespace (unshare -m, root) a 512 MiB tmpfs replaces /dev/shm; PROGRAM
# (tests/mpi/latetouch.c) allocates 8 x 24 MiB per process, says it is
# ready, and another "job" (dd) fills /dev/shm before the blocks are
# written and one is sent from rank 0 to rank 1. Natively that memory is
# anonymous and the program runs; under wisp (wisprun and the MPI's
# mpiexec with LD_PRELOAD, malloc and MPI_Alloc_mem, with a SIGBUS
# handler of the program's that must never run, and with a ghost, which
# must not serve the window from heap pages that went private) the output must equal the
# native run's, the exit status be 0, WISP_VERBOSE=1 say that pages became
# private (the fault path ran), and no wisp file be left in /dev/shm.
# A burst of sends after the fill, more than wisp has rendezvous slots,
# has the receiver copy waiting messages aside into fresh heap memory.
# Exit 77 (skipped) without the namespace.
set -u
mpi=$1 wisprun=$2 preload=$3 program=$4
here=$(cd "$(dirname "$0")" && pwd)
if ! unshare -m true 2>/dev/null; then
    echo "SKIP: cannot make a mount namespace (unshare -m needs root)"
    exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

# full NAME COMMAND...: runs COMMAND with a 512 MiB /dev/shm that is filled
# once rank 0 created $LATETOUCH_READY; stdout in $work/NAME.out (sorted:
# ranks print in any order), stderr in .err, status in .status, what /dev/shm
# held afterwards (the filler's file aside) in .left.
full() {
    local name=$1
    shift
    LATETOUCH_READY=$work/$name.ready LATETOUCH_GO=$work/$name.go LEFT=$work/$name.left \
        unshare -m bash -c '
            mount -t tmpfs -o size=512m wisp-full /dev/shm || exit 77
            (for i in $(seq 600); do [ -e "$LATETOUCH_READY" ] && break; sleep 0.1; done
             dd if=/dev/zero of=/dev/shm/other-job bs=1M count=600 2>/dev/null
             touch "$LATETOUCH_GO") &
            timeout 100 "$@"
            status=$?
            wait
            ls /dev/shm | grep -v "^other-job$" >"$LEFT"
            exit $status' -- "$@" >"$work/$name.raw" 2>"$work/$name.err"
    echo $? >"$work/$name.status"
    sort "$work/$name.raw" >"$work/$name.out"
    if [ "$(cat "$work/$name.status")" = 77 ]; then
        echo "SKIP: cannot mount a tmpfs on /dev/shm"
        exit 77
    fi
}

native=("mpiexec.$mpi" -n 2)
[ "$mpi" = openmpi ] && native+=(--oversubscribe --allow-run-as-root)
window=fork+burst
[ "$mpi" = mpich ] && window=fork+window+burst # Open MPI's MPI_Win_create fails natively on a full /dev/shm
if [ "$mpi" = mpich ]; then
    full native "${native[@]}" "$program" malloc - 8 $window
else # Open MPI's vader grows its free list in /dev/shm for the burst: SIGBUS natively
    full native "${native[@]}" "$program" malloc - 8 fork
    echo "latetouch: burst of 80 intact" >>"$work/native.raw"
    sort "$work/native.raw" >"$work/native.out"
fi
[ "$(cat "$work/native.status")" = 0 ] || { cat "$work/native.err"; fail "the native run failed"; }
grep -q "^latetouch: block 7 of 24 MiB intact$" "$work/native.out" || fail "native: no result"

check() { # check NAME ARGS...: the run of NAME against the native one
    local name=$1
    shift
    echo "== $name: $*"
    cat "$work/$name.raw" "$work/$name.err"
    [ "$(cat "$work/$name.status")" = 0 ] || fail "$name: exit status $(cat "$work/$name.status")"
    diff -u "$work/native.out" "$work/$name.out" || fail "$name: stdout differs from the native run's"
    ! grep -q "Bus error\|signal 7\|SIGBUS" "$work/$name.err" || fail "$name: SIGBUS"
    [ -e "$work/$name.left" ] && [ ! -s "$work/$name.left" ] || fail "$name: left in /dev/shm: $(cat "$work/$name.left")"
    # The fault path ran where the heap served the blocks.
    if [ "$1" = alloc_mem ] || grep -q "malloc and MPI_Alloc_mem served from it" "$work/$name.err"; then
        grep -q "^wisp\[[01]\]: shared heap: [0-9]* pages\? that /dev/shm could not back became private" \
            "$work/$name.err" || fail "$name: no page became private: the test did not fill /dev/shm in time"
    fi
}

verbose=(--env WISP_VERBOSE=1)
full wisprun "$wisprun" "${verbose[@]}" -n 2 "$program" malloc - 8 $window
check wisprun malloc
full alloc_mem "$wisprun" "${verbose[@]}" -n 2 "$program" alloc_mem - 8 $window
check alloc_mem alloc_mem
full handler "$wisprun" "${verbose[@]}" -n 2 "$program" malloc handler 8 $window
check handler malloc handler
full ghost "$wisprun" "${verbose[@]}" --env WISP_GHOSTS=1 -n 3 "$program" alloc_mem - 8 $window
check ghost alloc_mem
full preload bash "$here/mpiexec_preload.sh" "$mpi" 2 "$preload" WISP_VERBOSE=1 -- "$program" malloc - 8 $window
check preload malloc
exit $failed
