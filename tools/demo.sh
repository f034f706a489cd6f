#!/usr/bin/env bash
# demo.sh BUILD-DIR: what `make demo` shows. For each MPI: what wisp sees of
# the machine, unmodified MPI programs giving identical output natively and
# under wisp, the WISP_STATS report, and the wrapper overhead measured
# against the plain MPI in the same run.
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

    section "$mpi: WISP_STATS=1 on the collectives program"
    "$wisprun" --env WISP_STATS=1 -n 3 "$dir/tests/t_collectives" >/dev/null

    section "$mpi: wrapper overhead (rate of MPI_Send to MPI_PROC_NULL and of an empty MPI_Iprobe)"
    python3 "$root/bench/run.py" --wisprun "$wisprun" --mpi "$mpi" --np 1 --reps 5 \
        --target 'send_proc_null_rate>=0.9' --target 'iprobe_empty_rate>=0.9' \
        --json "$dir/bench-overhead.json" -- "$dir/bench/overhead" || status=1
done
exit $status
