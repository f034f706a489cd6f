#!/usr/bin/env bash
# shm_small.sh WISPRUN PROGRAM NP
# A container's small /dev/shm: in a private mount namespace (unshare -m,
# needs root) a 64 MiB tmpfs replaces /dev/shm, and NP processes each
# allocate 48 MiB and then send many messages at once (tests/mpi/shm_small.c).
# The job must end cleanly with every byte intact: wisp's segments are
# committed at MPI_Init and the heap stops at half of /dev/shm's free space
# (WISP_VERBOSE says so once per process), instead of a SIGBUS when a page is
# first touched mid-run. A second run asks for rendezvous slots of 1 MiB
# (WISP_SHM_STAGE=1M): the 8 a process needs fit, not all 64, and the
# sends wait for the slots there are. A
# third asks for a point-to-point segment that cannot fit at all
# (WISP_SHM_STAGE=8M: 64 MiB for the first 8 slots of a process): the engine
# is off, WISP_VERBOSE says why, and the MPI carries the messages. A fourth
# allocates in blocks of 4 MiB, which the heap leaves to first touch within
# a budget /dev/shm holds whole: every page is written, no SIGBUS.
# Exit 77 (skipped) without the namespace.
set -u
wisprun=$1 program=$2 np=${3:-2}
if ! unshare -m true 2>/dev/null; then
    echo "SKIP: cannot make a mount namespace (unshare -m needs root)"
    exit 77
fi
failed=0
fail() { echo "FAIL: $*"; failed=1; }

# run_small WISPRUN-OPTIONS...: the job's output in $out, its status in $status
# (blocks of $block_mib MiB).
block_mib=1
run_small() {
    out=$(unshare -m bash -c 'mount -t tmpfs -o size=64m wisp-small /dev/shm || exit 77
                              exec "$@"' -- \
          timeout 100 "$wisprun" --env WISP_VERBOSE=1 "$@" -n "$np" "$program" 48 $block_mib 2>&1)
    status=$?
    echo "$out"
    if [ $status = 77 ]; then
        echo "SKIP: cannot mount a tmpfs on /dev/shm"
        exit 77
    fi
    [ $status = 0 ] || fail "exit status $status"
    for ((rank = 0; rank < np; rank++)); do
        line=$(grep "^shm_small rank $rank: " <<<"$out")
        [[ "$line" =~ :\ ([0-9]+)\ MiB\ in\ heap,\ ([0-9]+)\ MiB\ private,\ intact$ ]] ||
            fail "rank $rank: ${line:-no result}"
        [ "$(grep -c "^wisp\[$rank\]: shared heap partition cannot grow: the rest of /dev/shm is left to the MPI" <<<"$out")" = 1 ] ||
            fail "rank $rank did not say once that its heap stopped growing"
    done
}

echo "== engine on"
run_small
! grep "point-to-point engine off" <<<"$out" || fail "the engine did not run"

echo "== rendezvous slots that /dev/shm cannot hold all of"
run_small --env WISP_SHM_STAGE=1M
grep -q "^wisp\[[0-9]*\]: cannot commit [0-9]* bytes of the p2p segment in /dev/shm: No space left on device" <<<"$out" ||
    fail "no process asked for more slots than /dev/shm holds"
! grep "point-to-point engine off" <<<"$out" || fail "the engine did not run"

echo "== a point-to-point segment too large for /dev/shm"
run_small --env WISP_SHM_STAGE=8M
for ((rank = 0; rank < np; rank++)); do
    grep -q "^wisp\[$rank\]: cannot commit [0-9]* bytes of the p2p segment in /dev/shm: No space left on device" <<<"$out" ||
        fail "rank $rank did not say that the segment does not fit"
done
grep -q "^wisp\[0\]: point-to-point engine off on this node: no shared segment" <<<"$out" ||
    fail "rank 0 did not say that the engine is off"

echo "== blocks of 4 MiB, committed by their first touch"
block_mib=4
run_small
exit $failed
