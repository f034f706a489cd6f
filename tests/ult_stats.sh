#!/usr/bin/env bash
# ult_stats.sh WISPRUN PROGRAM
# WISP_STATS of a program whose ULTs wait in MPI together (tests/mpi/
# ult_stats.c) on 1 and 2 kernel threads, several runs each: every time the
# report gives (the time in MPI, each function's) is at most the rank's
# wall time, and that at most the job's as this script measures it. A ULT's
# call that another ULT of its thread closed once counted from a start of 0:
# the machine's uptime (issue 53).
set -u
wisprun=$1 program=$2
failed=0
fail() { echo "FAIL: $*"; failed=1; }
runs=0
for threads in 1 2; do
    for run in 1 2 3 4; do
        t0=$(date +%s.%N)
        out=$("$wisprun" --env WISP_STATS=1 --env WISP_ULT_THREADS=$threads -n 2 "$program" 2>&1)
        status=$?
        job=$(echo "$(date +%s.%N) - $t0" | bc)
        runs=$((runs + 1))
        [ $status = 0 ] && [[ "$out" == *"ult_stats: ok"* ]] ||
            { fail "WISP_ULT_THREADS=$threads run $run: exit $status: $out"; continue; }
        n=0
        while IFS= read -r line; do
            n=$((n + 1))
            re=': ([0-9]+) MPI calls, ([0-9.]+) s in MPI of ([0-9.]+) s'
            [[ "$line" =~ $re ]] || { fail "unreadable report line: $line"; continue; }
            wall=${BASH_REMATCH[3]}
            times=("${BASH_REMATCH[2]}")
            rest=${line#*top:}
            while [[ "$rest" =~ [0-9]+x\ ([0-9.]+)\ s(.*) ]]; do
                times+=("${BASH_REMATCH[1]}")
                rest=${BASH_REMATCH[2]}
            done
            for t in "${times[@]}"; do
                [ "$(echo "$t <= $wall" | bc)" = 1 ] ||
                    fail "WISP_ULT_THREADS=$threads run $run: $t s exceeds the rank's wall time $wall s: $line"
            done
            [ "$(echo "$wall <= $job" | bc)" = 1 ] ||
                fail "WISP_ULT_THREADS=$threads run $run: the rank's $wall s exceeds the job's $job s: $line"
        done < <(grep -E 'stats rank [0-9]+: ' <<<"$out")
        [ $n = 2 ] || fail "WISP_ULT_THREADS=$threads run $run: $n report lines, expected 2: $out"
    done
done
[ $failed = 1 ] || echo "ok: $runs runs with ULTs in MPI, every reported time within the wall time"
exit $failed
