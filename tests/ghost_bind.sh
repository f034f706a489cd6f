#!/usr/bin/env bash
# ghost_bind.sh WISPRUN PROGRAM
# WISP_GHOST_BIND places each ghost near the NUMA node of the processes it
# serves. The ghost reports (WISP_VERBOSE=2) the NUMA node it chose and the
# CPUs the kernel lets it run on (sched_getaffinity); they must be that NUMA
# node's CPUs for =numa, the CPUs of its last core for =core, and the
# binding must be left alone for =none. The program must run as without it.
set -u
wisprun=$1 program=$2
failed=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# "0-2,5" -> "0,1,2,5"
expand() {
    local out="" part
    for part in ${1//,/ }; do
        if [[ $part == *-* ]]; then
            out+=$(seq -s, "${part%-*}" "${part#*-}"),
        else
            out+=$part,
        fi
    done
    echo "${out%,}"
}

check() { # check MODE
    "$wisprun" --env WISP_GHOSTS=1 --env WISP_GHOST_BIND="$1" --env WISP_VERBOSE=2 -n 3 \
        "$program" >"$work/out" 2>"$work/err" ||
        { echo "FAIL ($1): the program failed"; cat "$work/err"; return 1; }
    local line numa cpus want
    line=$(grep -E 'ghost 0: near NUMA node [0-9]+' "$work/err")
    [ "$(echo "$line" | grep -c .)" = 1 ] || { echo "FAIL ($1): no single placement line"; cat "$work/err"; return 1; }
    numa=$(echo "$line" | sed -E 's/.*near NUMA node ([0-9]+).*/\1/')
    cpus=$(expand "$(echo "$line" | sed -E 's/.*runs on CPUs ([0-9,-]+).*/\1/')")
    case $1 in
    none)
        echo "$line" | grep -q 'not bound' || { echo "FAIL (none): $line"; return 1; }
        want=$(expand "$(taskset -pc $$ | sed -E 's/.*: //')") ;;
    numa)
        want=$(hwloc-calc --physical-output --intersect PU "numa:$numa") ;;
    core)
        local cores
        cores=$(hwloc-calc --number-of core "numa:$numa")
        want=$(hwloc-calc --physical-output --intersect PU "numa:$numa.core:$((cores - 1))") ;;
    esac
    if [ "$cpus" = "$want" ]; then
        echo "ok: WISP_GHOST_BIND=$1: ghost near NUMA node $numa runs on CPUs $cpus"
    else
        echo "FAIL: WISP_GHOST_BIND=$1: ghost runs on CPUs '$cpus', expected '$want'"
        echo "$line"
        return 1
    fi
}

for mode in none numa core; do
    check $mode || failed=1
done
exit $failed
