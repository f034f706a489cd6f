#!/usr/bin/env bash
# tool_order.sh MPI PRELOAD TOOL PROGRAM: a second profiling-interface tool
# (tests/shims/count_tool.c) preloaded beside libwisp, in both orders, with
# the MPI's own mpiexec. Neither order may hang or change the program's
# results. Tool ahead of libwisp: the tool counts every MPI_Send of the
# application (500 per process) and wisp says in one line that it steps
# aside. Tool after libwisp: wisp serves, and says in one line that the tool
# sees none of the calls. PROGRAM is tests/mpi/pingpong.c. In the sanitizer
# build PRELOAD is "runtime:libwisp"; the tool goes just before or after
# libwisp.
set -u
mpi=$1 preload=$2 tool=$3 program=$4
here=$(dirname "$0")
failed=0
fail() { echo "FAIL: $*"; failed=1; }
wisp=${preload##*:}
first=${preload%"$wisp"}

run() { # run ORDER-LABEL PRELOAD: output in $out, exit status in $rc
    out=$(timeout 120 bash "$here/mpiexec_preload.sh" "$mpi" 2 "$2" -- "$program" 2>&1)
    rc=$?
    echo "--- $1 (LD_PRELOAD=$2): exit $rc"
    echo "$out"
    [ $rc = 0 ] || fail "$1: exit $rc$([ $rc = 124 ] && echo ' (hung)')"
    grep -q '^pingpong: ok' <<<"$out" || fail "$1: the program's results"
}

run "tool ahead" "${first}$tool:$wisp"
for r in 0 1; do
    grep -q "^count_tool: rank $r: 500 MPI_Send, 0 elsewhere$" <<<"$out" ||
        fail "tool ahead: rank $r's count is not 500 sends on the world"
done
[ "$(grep -c 'ahead of libwisp: those calls do not reach wisp' <<<"$out")" = 1 ] ||
    fail "tool ahead: not one line from wisp saying it steps aside"

run "tool after" "$preload:$tool"
! grep -q '^count_tool:' <<<"$out" || fail "tool after: the tool's MPI_Finalize ran"
[ "$(grep -c 'after libwisp: it sees none of those calls' <<<"$out")" = 1 ] ||
    fail "tool after: not one line from wisp saying the tool sees nothing"
exit $failed
