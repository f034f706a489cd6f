#!/usr/bin/env bash
# thread_levels.sh WISPRUN PROGRAM NP LEVEL THREADS LINE [NAME=VALUE...]
# One case of the thread-level matrix (docs/ult.md): tests/mpi/thread_levels.c
# at LEVEL under the settings given must finish with "ok", its ULTs on
# THREADS kernel threads, and print LINE (a fixed string) on stderr exactly
# once, or, with LINE "-", no line of wisp turning a feature off.
set -u
wisprun=$1 program=$2 np=$3 level=$4 threads=$5 line=$6
shift 6
envs=()
for kv in "$@"; do envs+=(--env "$kv"); done
err=$(mktemp)
trap 'rm -f "$err"' EXIT
out=$(timeout 60 "$wisprun" "${envs[@]}" -n "$np" "$program" "$level" 2>"$err")
status=$?
cat "$err" >&2
echo "$out"
failed=0
[ "$status" = 0 ] || { echo "FAIL: exit status $status"; failed=1; }
grep -qx "thread_levels $level: ok (ULTs on $threads kernel threads)" <<<"$out" ||
    { echo "FAIL: no 'ok' with ULTs on $threads kernel threads"; failed=1; }
if [ "$line" = - ]; then
    ! grep -E '^wisp\[[0-9]+\]: (no progress thread|user-level threads on one kernel thread)' "$err" ||
        { echo "FAIL: wisp turned something off"; failed=1; }
else
    [ "$(grep -cF -- "$line" "$err")" = 1 ] || { echo "FAIL: not once on stderr: $line"; failed=1; }
fi
exit $failed
