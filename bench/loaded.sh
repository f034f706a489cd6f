#!/usr/bin/env bash
# loaded.sh - a benchmark through bench/run.py (native and wisp alternated,
# ratios of medians) while other work loads the node's cores, as on a node
# shared with other jobs.
#
# Usage: bench/loaded.sh [--hogs N] [--mpi-job] [--reps N] BUILD -- PROGRAM [ARGS...]
#
#   --hogs N    N busy loops (a shell's `while :`), default 1
#   --mpi-job   also another 2-process job of the MPI, natively, that
#               spins in its waits (bench/coll's barrier and allreduce
#               over and over), as a neighbour's job does
#   --reps N    measured runs per side (run.py's --reps), default 5
#   BUILD       a build directory (build/mpich, build/openmpi): its
#               wisprun, and its MPI from CMakeCache.txt
#   PROGRAM     relative to BUILD/bench, e.g. `coll allreduce hot 8 65536`
#               or `p2p_latency`
#
# The hogs, the other job and the measured runs all run at the caller's
# priority (do not nice this script: the point is that they compete alike).
# The load average is printed before the runs and after them; the hogs are
# stopped on every exit. Prints run.py's table.
set -euo pipefail

hogs=1 mpi_job=0 reps=5
while [ $# -gt 0 ]; do
    case $1 in
    --hogs) hogs=$2; shift 2 ;;
    --mpi-job) mpi_job=1; shift ;;
    --reps) reps=$2; shift 2 ;;
    --) shift; break ;;
    -*) echo "loaded.sh: unknown option $1" >&2; exit 2 ;;
    *) build=$1; shift ;;
    esac
done
if [ -z "${build:-}" ] || [ $# -lt 1 ]; then
    sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
    exit 2
fi
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mpi=$(sed -n 's/^WISP_MPI:[A-Z]*=//p' "$build/CMakeCache.txt")
program=$1
shift

pids=()
stop() {
    local p
    for p in "${pids[@]}"; do
        kill -- -"$p" 2>/dev/null || true
    done
    wait 2>/dev/null || true
}
trap stop EXIT

for ((i = 0; i < hogs; i++)); do
    setsid bash -c 'while :; do :; done' &
    pids+=($!)
done
if [ $mpi_job = 1 ]; then
    setsid bash -c 'while :; do "$0" --native -n 2 "$1" barrier allreduce hot 8 >/dev/null 2>&1 || sleep 0.1; done' \
        "$build/wisprun" "$build/bench/coll" &
    pids+=($!)
fi
sleep 1
echo "load: $hogs busy loop(s), other MPI job: $([ $mpi_job = 1 ] && echo yes || echo no); loadavg before: $(cut -d' ' -f1-3 /proc/loadavg)"
# What else runs now at a priority that competes (not nice 19), ours aside.
echo "others running: $(ps -eo stat=,ni=,pid=,comm= | awk -v me=$$ '$1 ~ /^R/ && $2 != 19 && $3 != me && $4 != "ps" && $4 != "awk" && $4 != "bash" {print $4}' | sort | uniq -c | xargs)"
python3 "$here/run.py" --wisprun "$build/wisprun" --mpi "$mpi" --np 2 --reps "$reps" \
    --name "loaded-$program" -- "$build/bench/$program" "$@"
echo "loadavg after: $(cut -d' ' -f1-3 /proc/loadavg)"
