#!/usr/bin/env bash
# stats.sh WISPRUN PINGPONG: WISP_STATS=1 counts the calls of a Fortran
# program (tests/fortran/pingpong.f90) as the C functions wisp serves: on
# each rank 6 MPI_Send (among the top three calls), and the messages went
# through wisp's shared-memory engine (single copies: 800 KB each).
set -u
wisprun=$1 program=$2
failed=0
err=$("$wisprun" --env WISP_STATS=1 -n 2 "$program" 2>&1 >/dev/null) || { echo "FAIL: run failed"; failed=1; }
echo "$err"
for rank in 0 1; do
    line=$(grep -F "wisp[0]: stats rank $rank: " <<<"$err")
    [[ "$line" == *"MPI_Send 6x"* ]] || { echo "FAIL: rank $rank lacks MPI_Send 6x"; failed=1; }
    shm=$(grep -F "wisp[0]: stats rank $rank shared memory: " <<<"$err")
    [[ -n "$shm" && "$shm" != *", 0 single copy,"* ]] ||
        { echo "FAIL: rank $rank: no message through wisp's shared memory: $shm"; failed=1; }
done
exit $failed
