#!/usr/bin/env bash
# unserved.sh WISPRUN PROGRAM refused|served: a Fortran call wisp does not
# convert (tests/fortran/unserved.f90) is forwarded to the MPI's own entry
# point and works; with ghosts, where wisp would have to serve it, the job
# stops with one line that names the function and the cause (Open MPI:
# "refused"). MPICH's mpif.h calls the C function, which wisp serves with
# ghosts too ("served").
set -u
wisprun=$1 program=$2 expect=$3
failed=0
out=$("$wisprun" -n 2 "$program" 2>&1) || { echo "FAIL: without ghosts: $out"; failed=1; }
[[ "$out" == *"unserved: ok"* ]] || { echo "FAIL: without ghosts: $out"; failed=1; }
if [ "$expect" = served ]; then
    out=$("$wisprun" --env WISP_GHOSTS=1 -n 3 "$program" 2>&1) || { echo "FAIL: ghosts: $out"; failed=1; }
    [[ "$out" == *"unserved: ok"* ]] || { echo "FAIL: ghosts: $out"; failed=1; }
    exit $failed
fi
out=$("$wisprun" --env WISP_GHOSTS=1 -n 3 "$program" 2>&1) && { echo "FAIL: ghosts: the job went on"; failed=1; }
grep -q "MPI_COMM_CREATE_ERRHANDLER from Fortran is not served by wisp and would see the ghost processes" <<<"$out" ||
    { echo "FAIL: ghosts: no line naming the cause:"; echo "$out"; failed=1; }
[[ "$out" != *"unserved: ok"* ]] || { echo "FAIL: ghosts: the call was served"; failed=1; }
exit $failed
