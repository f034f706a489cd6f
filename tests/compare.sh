#!/usr/bin/env bash
# compare.sh WISPRUN NP --compare-output|--compare-exit-code -- PROGRAM [ARGS...]
# Runs PROGRAM natively, then under wisp with default settings, under wisp
# with virtual nodes of one rank and statistics on, under wisp with one
# ghost process (one more process launched, set aside by wisp), and under
# wisp with the progress thread (WISP_PROGRESS=thread); the stdout
# and exit status of every wisp run must equal the native run's (only the
# exit status with --compare-exit-code, for programs whose output is not
# deterministic).
set -u
wisprun=$1 np=$2 mode=$3
shift 4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

run() { # run NAME PROCESSES [wisprun options...]
    local name=$1 procs=$2
    shift 2
    "$wisprun" "$@" -n "$procs" "${program[@]}" >"$work/$name.out" 2>"$work/$name.err"
    echo $? >"$work/$name.status"
}

program=("$@")
run native "$np" --native
run wisp "$np"
run wisp-vnodes "$np" --env WISP_VNODE_SIZE=1 --env WISP_STATS=1
run wisp-ghost $((np + 1)) --env WISP_GHOSTS=1
run wisp-progress "$np" --env WISP_PROGRESS=thread

failed=0
for name in wisp wisp-vnodes wisp-ghost wisp-progress; do
    if ! cmp -s "$work/native.status" "$work/$name.status"; then
        echo "exit status differs: native $(cat "$work/native.status"), $name $(cat "$work/$name.status")"
        failed=1
    fi
    if [ "$mode" = --compare-output ] && ! diff -u "$work/native.out" "$work/$name.out"; then
        echo "stdout differs between native and $name"
        failed=1
    fi
    if [ "$failed" = 1 ]; then
        echo "--- $name stderr:"
        cat "$work/$name.err"
    fi
done
echo "--- native stdout (exit status $(cat "$work/native.status")):"
cat "$work/native.out"
if [ "$mode" = --compare-output ] && [ "$(cat "$work/native.status")" != 0 ]; then
    echo "the native run itself failed:"
    cat "$work/native.err"
    failed=1
fi
exit $failed
