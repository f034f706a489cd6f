#!/usr/bin/env bash
# stats_report.sh WISPRUN PROGRAM
# WISP_STATS=1 prints one line per rank, from rank 0, with exact call counts:
# tests/mpi/stats.c makes 24 calls (1 Comm_rank, 17 Barrier, 5 Allreduce,
# 1 Sendrecv of 8 bytes, received through shared memory as one immediate
# message of 8 bytes, copied twice), and the MPI's own allocations that the
# shared heap left to glibc (some: its start and its calls allocate; none
# where AddressSanitizer's malloc comes first). Without WISP_STATS nothing is
# printed. Each line carries the prefix of the rank it is about (wisp[1]:
# stats rank 1 ...), though rank 0 prints them all.
set -u
wisprun=$1 program=$2
failed=0
heap_lines=2
! ldd "$program" | grep -q libasan || heap_lines=0
err=$("$wisprun" --env WISP_STATS=1 -n 2 "$program" 2>&1 >/dev/null) || { echo "FAIL: run failed"; failed=1; }
echo "$err"
for rank in 0 1; do
    line=$(grep -F "wisp[$rank]: stats rank $rank: " <<<"$err")
    [[ "$line" == *": 24 MPI calls, "* ]] || { echo "FAIL: rank $rank total is not 24 calls"; failed=1; }
    [[ "$line" == *"MPI_Barrier 17x"* ]] || { echo "FAIL: rank $rank lacks MPI_Barrier 17x"; failed=1; }
    shm=$(grep -F "wisp[$rank]: stats rank $rank shared memory: " <<<"$err")
    [[ "$shm" == *": 1 immediate, 0 staged, 0 single copy, 0 synergistic, 0 to self; 2 copies, 8 bytes" ]] ||
        { echo "FAIL: rank $rank shared-memory line is wrong: $shm"; failed=1; }
    heap=$(grep -F "wisp[$rank]: stats rank $rank shared heap: " <<<"$err")
    [ $heap_lines = 0 ] || [[ "$heap" =~ :\ [1-9][0-9]*\ allocations\ of\ the\ MPI\'s\ own\ code\ left\ to\ glibc$ ]] ||
        { echo "FAIL: rank $rank shared-heap line is wrong: $heap"; failed=1; }
done
[ "$(grep -c 'stats rank' <<<"$err")" = $((4 + heap_lines)) ] ||
    { echo "FAIL: expected $((4 + heap_lines)) report lines"; failed=1; }
quiet=$("$wisprun" -n 2 "$program" 2>&1) || { echo "FAIL: run without stats failed"; failed=1; }
[ -z "$quiet" ] || { echo "FAIL: output without WISP_STATS: $quiet"; failed=1; }
exit $failed
