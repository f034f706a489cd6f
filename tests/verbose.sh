#!/usr/bin/env bash
# verbose.sh WISPRUN TOPOLOGY-PROGRAM
# WISP_VERBOSE=1 prints one summary line from rank 0; =2 adds one topology
# line per rank; =0 prints nothing.
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
[ "$(count '^wisp\[' "$v1")" = 1 ] || { echo "FAIL: level 1 printed more than the summary"; failed=1; }
for rank in 0 1 2; do
    [ "$(count "^wisp\[$rank\]: node 0 of 1, node rank $rank of 3" "$v2")" = 1 ] ||
        { echo "FAIL: no topology line from rank $rank at level 2"; failed=1; }
done
exit $failed
