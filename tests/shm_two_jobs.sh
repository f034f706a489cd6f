#!/usr/bin/env bash
# shm_two_jobs.sh MPI WISPRUN PROGRAM
# Two wisp jobs on one node at once (issue 49, item 3), sharing a 512 MiB
# /dev/shm (a private mount namespace) that cannot hold both: each job's
# 2 processes allocate 8 x 24 MiB with MPI_Alloc_mem, which the heap serves
# in every build (tests/mpi/latetouch.c), both jobs wait
# until the other has allocated too, then write every block and send two.
# Each heap sized its budget from what /dev/shm had free when it started,
# so pages first touched late may find /dev/shm full (then they become
# private), and late allocations fall back to private memory. Both
# jobs must end with the native output, and nothing of either be left in
# /dev/shm. Exit 77 (skipped) without the namespace.
set -u
mpi=$1 wisprun=$2 program=$3
unshare -m true 2>/dev/null || { echo "SKIP: cannot make a mount namespace (unshare -m needs root)"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

native=("mpiexec.$mpi" -n 2)
[ "$mpi" = openmpi ] && native+=(--oversubscribe --allow-run-as-root)
touch "$work/go-native"
LATETOUCH_READY=$work/ready-native LATETOUCH_GO=$work/go-native timeout 100 "${native[@]}" "$program" alloc_mem >"$work/native.raw" 2>"$work/native.err" ||
    { cat "$work/native.err"; fail "the native run failed"; }
sort "$work/native.raw" >"$work/native.out"

W=$wisprun P=$program D=$work unshare -m bash -c '
    mount -t tmpfs -o size=512m wisp-two /dev/shm || exit 77
    pids=()
    for job in a b; do
        LATETOUCH_READY=$D/ready-$job LATETOUCH_GO=$D/go timeout 100 "$W" --env WISP_VERBOSE=1 -n 2 "$P" alloc_mem \
            >"$D/$job.raw" 2>"$D/$job.err" &
        pids+=($!)
    done
    # Both have allocated: let them write.
    for i in $(seq 600); do [ -e "$D/ready-a" ] && [ -e "$D/ready-b" ] && break; sleep 0.1; done
    touch "$D/go"
    wait ${pids[0]}; echo $? >"$D/a.status"
    wait ${pids[1]}; echo $? >"$D/b.status"
    ls /dev/shm >"$D/left"'
[ $? = 77 ] && { echo "SKIP: cannot mount a tmpfs on /dev/shm"; exit 77; }
[ -e "$work/ready-a" ] && [ -e "$work/ready-b" ] || fail "the two jobs did not run at the same time"
for job in a b; do
    echo "== job $job"
    cat "$work/$job.raw" "$work/$job.err"
    sort "$work/$job.raw" >"$work/$job.out"
    [ "$(cat "$work/$job.status")" = 0 ] || fail "job $job: exit status $(cat "$work/$job.status")"
    diff -u "$work/native.out" "$work/$job.out" || fail "job $job: stdout differs from the native run's"
    grep -q "MPI_Alloc_mem served from it" "$work/$job.err" || fail "job $job: the heap did not serve"
done
[ ! -s "$work/left" ] || fail "left in /dev/shm: $(cat "$work/left")"
exit $failed
