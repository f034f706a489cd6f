#!/usr/bin/env bash
# tool_order.sh MPI PRELOAD TOOL PROGRAM [LINKED...]: a second profiling-
# interface tool (tests/shims/count_tool.c, which counts MPI_Send) beside
# libwisp, with the MPI's own mpiexec: preloaded ahead of libwisp and after
# it (also with a ghost process), and, with LINKED (PROGRAM linked with
# -lwisp and the tool, in either order), linked. Every way: no hang, the
# program's results right, the tool sees the application's 500 sends per
# process on its world of 2, and wisp serves them (WISP_STATS: messages
# copied through shared memory). In the
# sanitizer build PRELOAD is "runtime:libwisp"; the tool goes just before
# or after libwisp.
set -u
mpi=$1 preload=$2 tool=$3 program=$4
shift 4
here=$(dirname "$0")
failed=0
fail() { echo "FAIL: $*"; failed=1; }
wisp=${preload##*:}
first=${preload%"$wisp"}

check() { # check LABEL PRELOAD PROGRAM [NP NAME=VALUE...]
    local out rc np=${4:-2}
    out=$(timeout 120 bash "$here/mpiexec_preload.sh" "$mpi" "$np" "$2" WISP_STATS=1 "${@:5}" \
          -- "$3" 2>&1)
    rc=$?
    echo "--- $1: exit $rc"
    echo "$out"
    [ $rc = 0 ] || fail "$1: exit $rc$([ $rc = 124 ] && echo ' (hung)')"
    grep -q '^pingpong: ok' <<<"$out" || fail "$1: the program's results"
    for r in 0 1; do
        grep -q "^count_tool: rank $r of 2: 500 MPI_Send, 0 elsewhere$" <<<"$out" ||
            fail "$1: the tool did not see rank $r's 500 sends on a world of 2"
        grep -Eq "^wisp\[$r\]: stats rank $r shared memory: .*; [1-9][0-9]* copies" <<<"$out" ||
            fail "$1: wisp did not serve rank $r's messages"
    done
}

check "preloaded, tool ahead of libwisp" "${first}$tool:$wisp" "$program"
check "preloaded, tool after libwisp" "$preload:$tool" "$program"
# With a ghost process (one more launched): the tool's PMPI_Comm_size and
# PMPI_Comm_rank answer for the application's world, as its MPI_Send sees it.
check "preloaded, tool ahead, one ghost" "${first}$tool:$wisp" "$program" 3 WISP_GHOSTS=1
check "preloaded, tool after, one ghost" "$preload:$tool" "$program" 3 WISP_GHOSTS=1
for linked in "$@"; do
    check "linked: $(basename "$linked")" "$first" "$linked"
done
exit $failed
