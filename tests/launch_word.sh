#!/usr/bin/env bash
# launch_word.sh MPI PRELOAD PROGRAM: a launch that went wrong (the launcher
# started several processes, the MPI made each a world of one) gets one line
# on stderr from wisp, from the launcher's first task, and the run goes on
# as it is; a right launch and a lone process get none. PROGRAM is
# tests/mpi/world_of.c, run as the README says to run without wisprun.
set -u
mpi=$1 preload=$2 program=$3
here=$(dirname "$0")
failed=0
fail() { echo "FAIL: $*"; failed=1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
unset GLIBC_TUNABLES
word='but the MPI made each a world of one process'

# srun without --mpi=: every task a process of its own, with Slurm's words
# and none for the MPI (tests/slurm/run.sh runs the real srun).
for i in 0 1 2; do
    env SLURM_STEP_NUM_TASKS=3 SLURM_PROCID=$i LD_PRELOAD="$preload" \
        timeout 60 "$program" >"$work/out$i" 2>"$work/err$i" &
    pids[i]=$!
done
for i in 0 1 2; do
    wait "${pids[i]}" || fail "task $i of the srun-like launch exited with $?"
    grep -qx 'world 0 of 1, rank sum 0' "$work/out$i" || fail "task $i: $(cat "$work/out$i")"
done
cat "$work"/err*
srun_word='srun started 3 tasks, but with nothing that lets the MPI join them'
[ "$(cat "$work"/err* | grep -c "$srun_word")" = 1 ] || fail "not one line about the launch from 3 tasks"
grep -q "^wisp: $srun_word.*srun --mpi=pmi2" "$work/err0" || fail "task 0 did not name srun and --mpi="

# The same words in a right launch of 2 (srun --mpi=pmi2 sets them too): nothing.
out=$(bash "$here/mpiexec_preload.sh" "$mpi" 2 "$preload" SLURM_STEP_NUM_TASKS=2 SLURM_PROCID=0 \
      -- "$program" 2>"$work/err_right") || fail "the right launch exited with $?"
[ "$(grep -c 'of 2, rank sum 1' <<<"$out")" = 2 ] || fail "the right launch: $out"
! grep -q "$word\|$srun_word" "$work/err_right" || fail "a word about a right launch: $(cat "$work/err_right")"

# A lone process, no launcher: nothing.
LD_PRELOAD="$preload" timeout 60 "$program" >"$work/out_lone" 2>"$work/err_lone" ||
    fail "the lone process exited with $?"
! grep -q "$word\|$srun_word" "$work/err_lone" || fail "a word about a lone process"

# The other MPI's launcher (a usual slip on a machine with both): its words.
other=$([ "$mpi" = mpich ] && echo openmpi || echo mpich)
if [ "$mpi" = mpich ] && command -v mpiexec.openmpi >/dev/null; then
    root=$([ "$(id -u)" = 0 ] && echo --allow-run-as-root)
    timeout 60 mpiexec.openmpi $root --oversubscribe -n 2 -x "LD_PRELOAD=$preload" "$program" \
        >"$work/out_other" 2>"$work/err_other" || fail "under mpiexec.$other: exit $?"
    cat "$work/err_other"
    [ "$(grep -c "Open MPI's mpirun started 2 processes, $word" "$work/err_other")" = 1 ] ||
        fail "not one line about Open MPI's mpirun"
fi
exit $failed
