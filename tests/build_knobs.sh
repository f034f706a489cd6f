#!/usr/bin/env bash
# build_knobs.sh WISPRUN CMAKE-CACHE PROGRAM
# The build's own settings share the WISP_ prefix (WISP_MPI,
# WISP_JEMALLOC_SOURCE, which the README tells users to set for the build):
# exported in the environment, they must not stop a job as unknown run-time
# variables (issue 53). Every user-visible WISP_* entry of the build's
# CMakeCache.txt is exported at once, with its own value, and the job must run
# as without them; a misspelt run-time variable beside them is still refused.
set -u
wisprun=$1 cache=$2 program=$3
failed=0
fail() { echo "FAIL: $*"; failed=1; }
knobs=()
while IFS= read -r line; do
    knobs+=("${line%%:*}=${line#*=}")
done < <(grep -E '^WISP_[A-Z0-9_]+:(BOOL|STRING|PATH|FILEPATH)=' "$cache")
for must in WISP_MPI WISP_JEMALLOC_SOURCE; do
    [[ " ${knobs[*]}" == *" $must="* ]] || fail "$cache has no $must: the test reads the wrong file"
done

out=$(env "${knobs[@]}" "$wisprun" -n 2 "$program" 2>&1)
status=$?
[ $status = 0 ] && [[ "$out" != *"not a wisp variable"* ]] ||
    fail "wisprun with the build's variables exported (${knobs[*]%%=*}): exit $status: $out"
out=$(env "${knobs[@]}" WISP_STAT=1 "$wisprun" -n 2 "$program" 2>&1)
[[ "$out" == *"WISP_STAT is not a wisp variable (did you mean WISP_STATS?)"* ]] ||
    fail "a misspelt variable beside the build's is not refused: $out"
[ $failed = 1 ] || echo "ok: ${#knobs[@]} build variables exported (${knobs[*]%%=*}): the job runs; a typo beside them is still refused"
exit $failed
