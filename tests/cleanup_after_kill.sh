#!/usr/bin/env bash
# cleanup_after_kill.sh WISPRUN PROGRAM
# A job whose rank 1 is killed with SIGKILL leaves /dev/shm/wisp-<job>+*
# files behind (tests/mpi/leftover.c); wisprun must remove them all, and
# report the job's failure in its exit status.
set -u
wisprun=$1 program=$2
job="cleanup-test-$$"
WISP_JOB=$job timeout 60 "$wisprun" -n 2 "$program" >/dev/null 2>&1
status=$?
left=$(ls /dev/shm | grep -c "^wisp-$job+")
echo "job exit status $status; files left in /dev/shm: $left"
rm -f /dev/shm/wisp-"$job"+*
[ "$status" != 0 ] && [ "$status" != 124 ] && [ "$left" = 0 ]
