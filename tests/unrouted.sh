#!/usr/bin/env bash
# unrouted.sh WISPRUN PROGRAM: tests/mpi/unrouted_refused.c natively
# (completes) and under wisp (stops at the call, with one line naming the
# function and why, exit status not 0).
set -u
wisprun=$1 program=$2
failed=0
native=$(timeout 60 "$wisprun" --native -n 2 "$program" 2>&1) &&
    [[ "$native" == *"unrouted_refused: get_status_any index=0 value=7"* ]] &&
    echo "ok: natively: $native" || { echo "FAIL: natively: $native"; failed=1; }
wisp=$(timeout 60 "$wisprun" -n 2 "$program" 2>&1)
rc=$?
line=$(grep -c "^wisp\[0\]: MPI_Request_get_status_any is not supported under wisp yet: MPI-4.1; .* run the program without wisp (wisprun --native)$" <<<"$wisp")
if [ "$rc" != 0 ] && [ "$line" = 1 ]; then
    echo "ok: under wisp (exit $rc): $(grep '^wisp\[0\]' <<<"$wisp")"
else
    echo "FAIL: under wisp: exit $rc, expected one line naming MPI_Request_get_status_any:"
    echo "$wisp" | head -10
    failed=1
fi
exit $failed
