#!/usr/bin/env bash
# ghost_split.sh WISPRUN PROGRAM (tests/mpi/ghost_segments.c)
# With 2 ghosts and WISP_GHOST_BINDING=segment, operations over a whole
# window of the middle process cross a segment boundary: wisp must split
# some (WISP_VERBOSE=3 counts them per window) and the program's results
# must be exact; with rank binding nothing is split.
set -u
wisprun=$1 program=$2
failed=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

splits() { # splits BINDING: run, print the total of split operations over the ranks
    "$wisprun" --env WISP_GHOSTS=2 --env WISP_GHOST_WINDOWS=on --env WISP_VERBOSE=3 \
        --env WISP_GHOST_BINDING="$1" -n 5 "$program" >"$work/out" 2>"$work/err" ||
        { echo "FAIL (binding $1): the program failed"; cat "$work/out" "$work/err"; return 1; }
    grep -o '[0-9]* operations split across segments' "$work/err" |
        awk '{ n += $1; lines++ } END { print (lines == 3 ? n : "missing") }'
}

n=$(splits segment) || failed=1
if [ "$failed" = 0 ] && [ "$n" != missing ] && [ "$n" -gt 0 ]; then
    echo "ok: segment binding split $n operations, results exact"
else
    echo "FAIL: segment binding split '$n' operations (expected some on 3 ranks)"
    failed=1
fi
n=$(splits rank) || failed=1
if [ "$n" = 0 ]; then
    echo "ok: rank binding split none"
else
    echo "FAIL: rank binding split '$n' operations (expected 0 on 3 ranks)"
    failed=1
fi
exit $failed
