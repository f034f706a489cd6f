#!/usr/bin/env bash
# demo.sh BUILD-DIR: what `make demo` shows. For each MPI: what wisp sees of
# the machine, unmodified MPI programs giving identical output natively and
# under wisp, the WISP_STATS report, point-to-point latency and message rate
# through wisp's shared-memory engine against the plain MPI in the same run,
# and (MPICH) one-sided operations completing while their target computes,
# thanks to a ghost process; then two application experiments (3-D Jacobi,
# CG) side by side. Short runs: figures to look at, not to quote
# (docs/benchmarks.md says how to measure).
set -u
build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
status=0

section() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

for mpi in mpich openmpi; do
    dir="$build/$mpi"
    wisprun="$dir/wisprun"
    section "wisp on $mpi: 4 ranks cut into virtual nodes of 2 (WISP_VERBOSE=2)"
    "$wisprun" --env WISP_VERBOSE=2 --env WISP_VNODE_SIZE=2 -n 4 "$dir/tests/t_topology" 2

    section "$mpi: unmodified MPI programs, natively and under wisp"
    for prog in p2p_blocking p2p_wildcard collectives datatypes comm_group rma; do
        exe="$dir/tests/t_$prog"
        [ -x "$exe" ] || continue
        native=$("$wisprun" --native -n 3 "$exe" 2>&1)
        wisp=$("$wisprun" -n 3 "$exe" 2>&1)
        if [ "$native" = "$wisp" ]; then
            printf '  %-14s identical output (%d lines), last: %s\n' "$prog" \
                "$(wc -l <<<"$native")" "$(tail -n 1 <<<"$native")"
        else
            printf '  %-14s OUTPUT DIFFERS\n' "$prog"
            diff <(echo "$native") <(echo "$wisp") | head -20
            status=1
        fi
    done

    section "$mpi: WISP_STATS=1 on the point-to-point program (calls, and messages through shared memory)"
    "$wisprun" --env WISP_STATS=1 -n 3 "$dir/tests/t_p2p_blocking" >/dev/null

    section "$mpi: point-to-point latency through shared memory, wisp against $mpi (ratio > 1: wisp faster)"
    python3 "$root/bench/run.py" --wisprun "$wisprun" --mpi "$mpi" --np 2 --reps 3 \
        --json "$dir/demo-p2p_latency.json" -- "$dir/bench/p2p_latency" |
        grep -E '^(metric|latency_(0|8|1024|65536|1048576)B) ' || status=1

    section "$mpi: 8-byte message rate, wisp against $mpi"
    python3 "$root/bench/run.py" --wisprun "$wisprun" --mpi "$mpi" --np 2 --reps 3 \
        --json "$dir/demo-msgrate.json" -- "$dir/bench/msgrate" pair |
        grep -E '^(metric|msgrate_pair_8B) ' || status=1

    if [ "$mpi" = mpich ]; then
        section "$mpi: 10 MPI_Accumulate + MPI_Win_flush while the target computes 300 ms, with one ghost per node (WISP_GHOSTS=1)"
        python3 "$root/bench/run.py" --wisprun "$wisprun" --mpi "$mpi" --np 3 --reps 3 \
            --env WISP_GHOSTS=1 --json "$dir/demo-rma_busy_target.json" \
            -- "$dir/bench/rma_busy_target" | grep -E '^(metric|acc_flush10_busy300ms|acc_flush_idle|compute_ms)' || status=1
    fi
done

section "application experiments (bench/apps/): 3-D Jacobi and CG, natively, under wisp and (MPICH) with MPICH's progress thread"
py=python3
[ -x "$root/.venv/bin/python" ] && py="$root/.venv/bin/python"
if ! "$py" "$root/bench/apps/report.py" --build "$build/mpich" --build "$build/openmpi" \
    --out "$build/demo-report" --small --reps 3 --only '^(jacobi_nonblocking|cg)$' \
    2>"$build/demo-report.log"; then
    tail -n 20 "$build/demo-report.log"
    status=1
fi
echo "(medians of 3 short runs per mode on a shared machine: an illustration; \`make report\` measures)"
exit $status
