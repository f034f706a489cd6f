#!/usr/bin/env bash
# shm_name_taken.sh WISPRUN PROGRAM SHIM
# Another user of the node holds the names wisp tries first for its
# segments (tests/shims/fixed_random.c makes them known; the files are made
# before the job): the node's leader takes other names, WISP_VERBOSE=1 says
# so, and the shared heap and the point-to-point engine still serve
# (PROGRAM is t_shm_heap, which checks that the heap serves). Before, a
# taken name turned them off without a word.
set -u
wisprun=$1 program=$2 shim=$3
job="taken-$$"
for use in heap p2p ghost win; do
    : >"/dev/shm/wisp-$job+$use-5757575757575757"
done
out=$(LD_PRELOAD=$shim WISP_JOB=$job timeout 60 "$wisprun" --env WISP_VERBOSE=1 -n 2 "$program" on 2>&1)
status=$?
rm -f /dev/shm/wisp-"$job"+*
printf '%s\n' "$out"
failed=0
[ "$status" = 0 ] || { echo "FAIL: the job failed ($status)"; failed=1; }
grep -q "taken by another: trying another name" <<<"$out" || { echo "FAIL: no line says a name was taken"; failed=1; }
if grep -q "engine off\|heap off" <<<"$out"; then
    echo "FAIL: a taken name turned the engine or the heap off"
    failed=1
fi
exit $failed
