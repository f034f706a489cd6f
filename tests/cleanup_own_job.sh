#!/usr/bin/env bash
# cleanup_own_job.sh WISPRUN
# wisprun removes the shared-memory files of its own job only: not those of
# a concurrent job whose tag extends this one's (tag T and tag T-2: before,
# rm -f /dev/shm/wisp-T-* removed both jobs' files; '+' now ends a tag).
set -u
wisprun=$1
mine="own-$$" other="own-$$-2"
: >"/dev/shm/wisp-$mine+heap-0123456789abcdef"  # left by a rank of this job
: >"/dev/shm/wisp-$other+heap-0123456789abcdef" # the other job's, in use
WISP_JOB=$mine timeout 60 "$wisprun" -n 1 true
status=$?
failed=0
[ "$status" = 0 ] || { echo "FAIL: the job failed ($status)"; failed=1; }
[ ! -e "/dev/shm/wisp-$mine+heap-0123456789abcdef" ] || { echo "FAIL: this job's file is left"; failed=1; }
[ -e "/dev/shm/wisp-$other+heap-0123456789abcdef" ] || { echo "FAIL: the other job's file is gone"; failed=1; }
rm -f /dev/shm/wisp-"$mine"+* /dev/shm/wisp-"$other"+*
exit $failed
