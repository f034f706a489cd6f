#!/usr/bin/env bash
# stats.sh WISPRUN PROGRAM CALLS: WISP_STATS=1 counts the calls of a Fortran
# program (tests/fortran/pingpong.f90: "MPI_Send 6x"; f08.f90: "MPI_Waitall
# 2x") as the C functions wisp serves, among the top three calls of each
# rank, and its large messages went through wisp's shared-memory engine
# (single copies, or synergistic ones from WISP_SHM_SYNERGY on). Without
# wisp's Fortran entry points, nothing is counted.
set -u
wisprun=$1 program=$2 calls=$3
failed=0
err=$("$wisprun" --env WISP_STATS=1 -n 2 "$program" 2>&1 >/dev/null) || { echo "FAIL: run failed"; failed=1; }
echo "$err"
for rank in 0 1; do
    line=$(grep -F "wisp[$rank]: stats rank $rank: " <<<"$err")
    [[ "$line" == *"$calls"* ]] || { echo "FAIL: rank $rank lacks $calls"; failed=1; }
    shm=$(grep -F "wisp[$rank]: stats rank $rank shared memory: " <<<"$err")
    [[ -n "$shm" && ("$shm" != *", 0 single copy,"* || "$shm" != *", 0 synergistic,"*) ]] ||
        { echo "FAIL: rank $rank: no message through wisp's shared memory: $shm"; failed=1; }
done
exit $failed
