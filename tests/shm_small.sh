#!/usr/bin/env bash
# shm_small.sh WISPRUN PROGRAM NP
# A container's small /dev/shm: in a private mount namespace (unshare -m,
# needs root) a 64 MiB tmpfs replaces /dev/shm, and NP processes each
# allocate 48 MiB and then send many messages at once (tests/mpi/shm_small.c).
# The job must end cleanly with every byte intact: wisp's segments are
# committed at MPI_Init and the heap stops at half of /dev/shm's free space
# (WISP_VERBOSE says so once per process), instead of a SIGBUS when a page is
# first touched mid-run. Exit 77 (skipped) without the namespace.
set -u
wisprun=$1 program=$2 np=${3:-2}
if ! unshare -m true 2>/dev/null; then
    echo "SKIP: cannot make a mount namespace (unshare -m needs root)"
    exit 77
fi
job="shmsmall-$$"
out=$(WISP_JOB=$job unshare -m bash -c 'mount -t tmpfs -o size=64m wisp-small /dev/shm || exit 77
                                        exec "$@"' -- \
      timeout 100 "$wisprun" --env WISP_VERBOSE=1 -n "$np" "$program" 48 2>&1)
status=$?
echo "$out"
[ $status = 77 ] && { echo "SKIP: cannot mount a tmpfs on /dev/shm"; exit 77; }
failed=0
fail() { echo "FAIL: $*"; failed=1; }
[ $status = 0 ] || fail "exit status $status"
for ((rank = 0; rank < np; rank++)); do
    line=$(grep "^shm_small rank $rank: " <<<"$out")
    [[ "$line" =~ :\ ([0-9]+)\ MiB\ in\ heap,\ ([0-9]+)\ MiB\ private,\ intact$ ]] ||
        fail "rank $rank: ${line:-no result}"
    [ "$(grep -c "^wisp\[$rank\]: shared heap partition cannot grow: the rest of /dev/shm is left to the MPI" <<<"$out")" = 1 ] ||
        fail "rank $rank did not say once that its heap stopped growing"
done
! grep "point-to-point engine off" <<<"$out" || fail "the engine did not run"
exit $failed
