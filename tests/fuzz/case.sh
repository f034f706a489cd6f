#!/bin/sh
# A finding of the differential tester cut down (tests/fuzz/cases/*.keep),
# run RUNS times under wisp: its failure depended on timing, so one run
# passing says little. p2p_fuzz's exit status is non-zero on a line it
# marks BAD; its watchdog ends a hang.
# usage: case.sh WISPRUN PROGRAM KEEP SEED NP RUNS [VAR=VALUE...]
set -eu
wisprun=$1 program=$2 keep=$3 seed=$4 np=$5 runs=$6
shift 6
envs=""
for kv in "$@"; do envs="$envs --env $kv"; done
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
i=0
while [ "$i" -lt "$runs" ]; do
    i=$((i + 1))
    # shellcheck disable=SC2086
    if ! "$wisprun" $envs -n "$np" "$program" "$logs" "$seed" 1 --keep "$keep" --watchdog 20; then
        echo "case.sh: $(basename "$keep") failed in run $i of $runs" >&2
        grep -h BAD "$logs"/r*.log >&2 || true
        exit 1
    fi
done
echo "case.sh: $(basename "$keep"): $runs runs, all as MPI's rules say"
