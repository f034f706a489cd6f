#!/usr/bin/env bash
# slurm/run.sh MPI WISPRUN LIBWISP PINGPONG WORLD_OF: the README's ways to
# start a job under Slurm, on a Slurm bed of this machine (tools/slurm.sh:
# munged, slurmctld, slurmd; MpiDefault=none), stopped by PID afterwards,
# also when a check fails. Root only (77: skipped, with the reason).
#  - srun --mpi=pmi2 (MPICH) / --mpi=pmix (Open MPI) with LD_PRELOAD: one job
#    of 2 processes, the ping-pong right and its messages copied by wisp
#    through the shared heap (WISP_STATS);
#  - srun without --mpi=: one line from wisp naming the fix (MPICH then makes
#    a world of one per task, Open MPI stops in MPI_Init);
#  - salloc, then wisprun; sbatch --wait of a script that calls wisprun;
#  - a task killed, with srun -K and without: no file left in /dev/shm;
#  - TaskPlugin=task/affinity, each task bound to one core: the progress
#    thread set aside a core (WISP_PROGRESS_CORES=1) stays on its task's;
#  - MPICH: two slurmd's on this machine, srun -N 2: two nodes for wisp.
set -u
mpi=$1 wisprun=$2 libwisp=$3 pingpong=$4 world_of=$5
here=$(cd "$(dirname "$0")" && pwd)
bed=$here/../../tools/slurm.sh
bash "$bed" check || exit $?
dir=$(mktemp -d /tmp/wisp-slurm.XXXXXX)
trap 'bash "$bed" down "$dir"; rm -rf "$dir"' EXIT
bash "$bed" up "$dir" task/affinity || exit 1
. "$dir/env"
failed=0
fail() { echo "FAIL: $*"; failed=1; }
plugin=$([ "$mpi" = mpich ] && echo pmi2 || echo pmix)

out=$(timeout 120 srun -n 2 --mpi=$plugin --export=ALL,LD_PRELOAD=$libwisp,WISP_STATS=1 \
      "$pingpong" 2>&1) || fail "srun --mpi=$plugin: exit $?"
echo "--- srun --mpi=$plugin"; echo "$out"
grep -q '^pingpong: ok' <<<"$out" || fail "srun --mpi=$plugin: the ping-pong's results"
for r in 0 1; do
    grep -Eq "^wisp\[$r\]: stats rank $r shared memory: .*[1-9][0-9]* single copy" <<<"$out" ||
        fail "srun --mpi=$plugin: wisp did not copy rank $r's messages single-copy"
done

out=$(timeout 120 srun -n 2 --export=ALL,LD_PRELOAD=$libwisp "$world_of" 2>&1)
echo "--- srun without --mpi= (exit $?)"; echo "$out"
[ "$(grep -c "srun started 2 tasks, but with nothing that lets the MPI join them" <<<"$out")" = 1 ] ||
    fail "srun without --mpi=: not one line from wisp"
grep -q "srun --mpi=$plugin for" <<<"$out" || grep -q "for MPICH, --mpi=$plugin" <<<"$out" ||
    fail "srun without --mpi=: the line does not name --mpi=$plugin"

out=$(timeout 120 salloc -n 2 "$wisprun" -n 2 "$pingpong" 2>&1) || fail "salloc + wisprun: exit $?"
echo "--- salloc + wisprun"; echo "$out"
grep -q '^pingpong: ok' <<<"$out" || fail "salloc + wisprun: the ping-pong's results"

printf '#!/bin/sh\nexec "%s" -n 2 "%s"\n' "$wisprun" "$pingpong" >"$dir/job.sh"
timeout 120 sbatch --wait -n 2 -o "$dir/job.out" "$dir/job.sh" >/dev/null || fail "sbatch: exit $?"
echo "--- sbatch"; cat "$dir/job.out"
grep -q '^pingpong: ok' "$dir/job.out" || fail "sbatch: the ping-pong's results"
# The CPUs in a /proc status line "Cpus_allowed_list: 0-1,3", one per line.
cpus_of() {
    awk '/^Cpus_allowed_list:/ {print $2}' "$1" | tr ',' '\n' |
        awk -F- '{for (c = $1; c <= ($2 == "" ? $1 : $2); c++) print c}' | sort -n
}
timeout 30 srun -n 2 -c 1 --cpu-bind=cores --mpi=$plugin \
    --export=ALL,LD_PRELOAD=$libwisp,WISP_PROGRESS=thread,WISP_PROGRESS_CORES=1 \
    "$pingpong" 100000000 >"$dir/bind.out" 2>&1 &
step=$!
sleep 3
tasks=$(pgrep -f -- "^$pingpong 100000000")
echo "--- task/affinity, WISP_PROGRESS_CORES=1: tasks $(echo $tasks)"
[ "$(wc -w <<<"$tasks")" = 2 ] || fail "task/affinity: not 2 tasks running"
for t in $tasks; do
    own=$(cpus_of "/proc/$t/status" | tr '\n' ' ')
    threads=$(ls "/proc/$t/task" | wc -l) out=0
    for th in /proc/"$t"/task/*; do
        outside=$(comm -13 <(cpus_of "/proc/$t/status") <(cpus_of "$th/status") | tr '\n' ' ')
        [ -z "$outside" ] || { fail "task/affinity: task $t (CPUs $own) has thread ${th##*/} on CPUs $outside"; out=$((out + 1)); }
    done
    echo "task $t: CPUs $own, $threads threads, $out of them on other CPUs"
done
set -- $tasks
[ $# = 0 ] || [ "$(cpus_of "/proc/$1/status" | wc -l)" = 1 ] ||
    fail "task/affinity: the task is not bound to one core"
pkill -9 -f -- "^$pingpong 100000000" # the tasks: the step ends
wait $step 2>/dev/null

# A task killed (SIGKILL) in the middle of a long ping-pong, with srun -K
# (the step ends) and without (wisp's watcher in the other task ends it a
# second later, src/core/alive.c; before, it waited for its peer until the
# time limit here): the step fails, and no file of wisp's for the job stays
# in /dev/shm (WISP_JOB names them).
for K in -K ""; do
    job="slurm-kill$K-$$"
    timeout 15 srun $K -n 2 --mpi=$plugin --export=ALL,LD_PRELOAD=$libwisp,WISP_JOB=$job \
        "$pingpong" 100000000 >"$dir/kill.out" 2>&1 &
    step=$!
    for _ in $(seq 1 100); do # both tasks started
        [ "$(pgrep -f -- "$pingpong 100000000" | wc -l)" -ge 3 ] && break
        sleep 0.1
    done
    sleep 1
    pkill -9 -n -f -- "^$pingpong 100000000" # the newest task
    wait $step
    rc=$?
    pkill -9 -f -- "$pingpong 100000000"
    left=$(ls /dev/shm | grep -c "^wisp-$job+")
    echo "--- srun ${K:-without -K}, a task killed: exit $rc, files left in /dev/shm: $left"
    [ $rc != 0 ] || fail "srun ${K:-without -K}: the step did not fail when a task was killed"
    [ "$left" = 0 ] || fail "srun ${K:-without -K}: $left files of wisp's left in /dev/shm"
    rm -f /dev/shm/wisp-"$job"+*
done
# Two nodes: two slurmd's on this machine (MPICH with --mpi=pmi2; Open MPI's
# PMIx refuses two slurmd's on one host, natively too). The MPI puts the
# tasks on two hosts, so wisp sees two nodes and leaves the messages to it.
bash "$bed" down "$dir"
if [ "$mpi" = mpich ]; then
    bash "$bed" up "$dir/two" task/none 2 || exit 1
    trap 'bash "$bed" down "$dir/two"; bash "$bed" down "$dir"; rm -rf "$dir"' EXIT
    . "$dir/two/env"
    out=$(timeout 120 srun -N 2 -n 2 --mpi=pmi2 --export=ALL,LD_PRELOAD=$libwisp,WISP_VERBOSE=1 \
          "$pingpong" 2>&1) || fail "two nodes: exit $?"
    echo "--- srun -N 2 on two slurmd's"; echo "$out"
    grep -q '^pingpong: ok' <<<"$out" || fail "two nodes: the ping-pong's results"
    grep -q '^wisp\[0\]: 2 ranks on 2 nodes' <<<"$out" || fail "two nodes: wisp did not see 2 nodes"
else
    echo "--- two slurmd's: not with Open MPI (its PMIx refuses two slurmd's on one host)"
fi
exit $failed
