#!/usr/bin/env bash
# smoke_bench.sh WISPRUN P2P_LATENCY MSGRATE
# What `make demo` measures, once each, natively and under wisp on 2
# processes: the 1 MiB latency and the 8-byte message rate must be printed
# as positive figures on both sides (a check that the benchmarks run over
# this build's MPI, not a measurement: docs/results/2026-12-06-every-mpi.md).
set -u
wisprun=$1 latency=$2 msgrate=$3
failed=0
figure() { # figure METRIC OUTPUT: the metric's value, or nothing
    awk -v m="$1" '$1 == "metric" && $2 == m && $3 > 0 {print $3}' <<<"$2"
}
for mode in --native ""; do
    side=${mode:-wisp}
    side=${side#--}
    out=$(timeout 90 "$wisprun" $mode -n 2 "$latency" 2>&1) || { echo "FAIL: $side p2p_latency: exit $?"; echo "$out" | tail -5; failed=1; }
    v=$(figure latency_1048576B "$out")
    [ -n "$v" ] && echo "$side: latency_1048576B $v us" || { echo "FAIL: $side p2p_latency printed no latency_1048576B"; failed=1; }
    out=$(timeout 90 "$wisprun" $mode -n 2 "$msgrate" pair 2>&1) || { echo "FAIL: $side msgrate: exit $?"; echo "$out" | tail -5; failed=1; }
    v=$(figure msgrate_pair_8B "$out")
    [ -n "$v" ] && echo "$side: msgrate_pair_8B $v msg/s" || { echo "FAIL: $side msgrate printed no msgrate_pair_8B"; failed=1; }
done
exit $failed
