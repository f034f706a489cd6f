#!/usr/bin/env bash
# conformance_launch.sh: the "mpiexec" that MPICH's runtests calls as
#   conformance_launch.sh WISPRUN GHOSTS LIMIT [wisprun options] -n NP [mpiexec args] ./prog args
# It runs the test with wisprun (the options say native or which WISP_*
# settings), launching NP + GHOSTS processes so that the program still sees
# NP ranks when each node sets ghosts aside, caps the job's time at LIMIT
# seconds (more where its processes outnumber the cores) and says so in the
# output when the job ran out of it.
set -u
wisprun=$1 ghosts=$2 limit=$3
shift 3
opts=()
while [ $# -gt 0 ] && [ "$1" != -n ]; do opts+=("$1"); shift; done
[ $# -ge 2 ] || { echo "conformance_launch: no -n NP in the command" >&2; exit 2; }
np=$(($2 + ghosts))
shift 2
while [ $# -gt 0 ] && [[ "$1" == -* ]]; do opts+=(--mpiexec-arg "$1"); shift; done

# runtests' limits assume a core per process: more processes and ghosts
# than cores get proportionally more (conformance.py, setting_limits).
cores=$(nproc)
[ "$np" -le "$cores" ] || limit=$((limit * np / cores))
# runtests sets MPIEXEC_TIMEOUT (the test's timeLimit), which both mpiexecs obey.
t=${MPIEXEC_TIMEOUT:-$limit}
[ "$t" -le "$limit" ] 2>/dev/null || t=$limit
export MPIEXEC_TIMEOUT=$t
start=$SECONDS
# The outer timeout only catches a launcher that ignores its own.
timeout -k 10 $((t + 60)) "$wisprun" "${opts[@]}" -n "$np" "$@"
rc=$?
if [ "$rc" != 0 ] && [ $((SECONDS - start)) -ge "$t" ]; then
    echo "conformance: TIMEOUT: the job ran out of its $t s"
fi
exit "$rc"
