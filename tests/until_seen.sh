#!/usr/bin/env bash
# until_seen.sh EXIT PATTERN -- COMMAND...
# A fault test whose fault happens only in one interleaving: COMMAND must
# print a line matching PATTERN (grep -E) and exit as EXIT says (0: with
# status 0; fail: with any other status). A run that exits 0 without the
# line never reached the fault (a loaded machine delayed a process past
# the moment the test arranges): it proves nothing either way and is run
# again, up to 5 runs. Any other outcome fails at once.
set -u
want=$1 pattern=$2
shift 3
for try in 1 2 3 4 5; do
    out=$("$@" 2>&1)
    rc=$?
    printf '%s\n' "$out"
    seen=0
    grep -Eq -- "$pattern" <<<"$out" && seen=1
    if [ $seen = 1 ]; then
        if { [ "$want" = 0 ] && [ $rc = 0 ]; } || { [ "$want" = fail ] && [ $rc != 0 ]; }; then
            exit 0
        fi
        echo "until_seen: the fault was met, but the command exited $rc (wanted: $want)"
        exit 1
    fi
    if [ $rc != 0 ]; then
        echo "until_seen: the command exited $rc without a line matching: $pattern"
        exit 1
    fi
    echo "until_seen: run $try exited 0 without meeting the fault; again"
done
echo "until_seen: 5 runs, none met the fault"
exit 1
