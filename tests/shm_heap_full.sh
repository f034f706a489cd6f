#!/usr/bin/env bash
# shm_heap_full.sh WISPRUN PROGRAM
# A full shared-heap partition (WISP_HEAP_SIZE=4M, 16 MiB asked for) falls
# back to private memory: every allocation succeeds, nothing is corrupted,
# WISP_VERBOSE says so once per process, and no file is left in /dev/shm.
set -u
wisprun=$1 program=$2
job="heapfull-$$"
failed=0
fail() { echo "FAIL: $*"; failed=1; }
out=$(WISP_JOB=$job "$wisprun" --env WISP_HEAP_SIZE=4M --env WISP_VERBOSE=1 -n 2 "$program" 2>"/tmp/$job.err")
status=$?
err=$(cat "/tmp/$job.err")
rm -f "/tmp/$job.err"
echo "$out"
echo "$err"
[ $status = 0 ] || fail "exit status $status"
for rank in 0 1; do
    line=$(grep "^heap_fill rank $rank: " <<<"$out")
    [[ "$line" =~ :\ ([0-9]+)\ in\ heap,\ ([0-9]+)\ private,\ intact$ ]] || { fail "rank $rank: $line"; continue; }
    [ "${BASH_REMATCH[1]}" -ge 1 ] && [ "${BASH_REMATCH[2]}" -ge 1 ] ||
        fail "rank $rank did not use both the heap and private memory"
    [ "$(grep -c "^wisp\[$rank\]: shared heap partition full (WISP_HEAP_SIZE): further allocations are private" <<<"$err")" = 1 ] ||
        fail "rank $rank did not say once that its partition is full"
done
left=$(ls /dev/shm | grep -c "^wisp-$job+")
[ "$left" = 0 ] || fail "$left files left in /dev/shm"
exit $failed
