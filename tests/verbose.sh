#!/usr/bin/env bash
# verbose.sh WISPRUN TOPOLOGY-PROGRAM
# WISP_VERBOSE=1 prints a summary from rank 0 and one line per node from its
# leader (3 ranks in virtual nodes of 2: ranks 0 and 2); =2 adds one
# topology line per rank; =0 prints nothing. Counts agree with their nouns
# and a thread level is named.
set -u
wisprun=$1 program=$2
failed=0
count() { grep -c "$1" <<<"$2"; }
v0=$("$wisprun" -n 3 "$program" 2>&1 >/dev/null)
v1=$("$wisprun" --env WISP_VERBOSE=1 --env WISP_VNODE_SIZE=2 -n 3 "$program" 2 2>&1 >/dev/null)
v2=$("$wisprun" --env WISP_VERBOSE=2 -n 3 "$program" 2>&1 >/dev/null)
echo "$v1"
echo "$v2"
[ -z "$v0" ] || { echo "FAIL: WISP_VERBOSE=0 printed: $v0"; failed=1; }
[ "$(count '^wisp\[0\]: 3 ranks on 2 nodes (virtual)' "$v1")" = 1 ] || { echo "FAIL: summary at level 1"; failed=1; }
[ "$(count '^wisp\[1\]' "$v1")" = 0 ] || { echo "FAIL: level 1 printed from rank 1, not a node leader"; failed=1; }
[ "$(count '^wisp\[2\]: shared heap at' "$v1")" = 1 ] || { echo "FAIL: no heap line from node 1's leader"; failed=1; }
for rank in 0 1 2; do
    [ "$(count "^wisp\[$rank\]: node 0 of 1, node rank $rank of 3" "$v2")" = 1 ] ||
        { echo "FAIL: no topology line from rank $rank at level 2"; failed=1; }
done
# Counts in words (1 rank, 1 node, 0 ghosts), and the thread level by its
# name where the progress thread raises the MPI's (issue 53).
one=$("$wisprun" --env WISP_VERBOSE=1 --env WISP_PROGRESS=thread -n 1 "$program" 2>&1 >/dev/null)
echo "$one"
[ "$(count '^wisp\[0\]: 1 rank on 1 node, 0 ghosts per node; 1 process on [0-9]* cores\? here' "$one")" = 1 ] ||
    { echo "FAIL: the summary of one rank is not in the singular"; failed=1; }
if grep -q 'MPI_THREAD_MULTIPLE for the MPI' <<<"$one"; then
    [ "$(count 'for the progress thread; the application has MPI_THREAD_SINGLE$' "$one")" = 1 ] ||
        { echo "FAIL: the application's thread level is not named"; failed=1; }
fi
ghost=$("$wisprun" --env WISP_VERBOSE=1 --env WISP_GHOSTS=1 -n 3 "$program" 2>&1 >/dev/null)
[ "$(count '^wisp\[0\]: 2 ranks on 1 node, 1 ghost per node; 3 processes on' "$ghost")" = 1 ] ||
    { echo "FAIL: one ghost is not in the singular: $ghost"; failed=1; }
exit $failed
