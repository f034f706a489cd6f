#!/usr/bin/env bash
# man_pages.sh MAN-DIR CONFIG-DEF WISPRUN
# The build's manual pages (man/CMakeLists.txt): wisprun(1) and wisp(7)
# render without a warning (groff with every warning on, and man -l), wisp(7)
# has an entry for every variable of the gathered tables
# (src/core/gen/config.def, from src/*/config.def), and wisprun(1) for
# every option of `wisprun --help`.
set -u
dir=$1 def=$2 wisprun=$3
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }
for tool in groff man; do
    command -v $tool >/dev/null || { echo "FAIL: no $tool (apt-get install groff-base man-db; make check does)"; exit 1; }
done

# render PAGE: the page as man shows it, in plain text, into
# $scratch/PAGE.txt; any warning fails.
render() {
    local warnings
    warnings=$(groff -man -Tutf8 -ww -z "$dir/$1" 2>&1)
    [ -z "$warnings" ] || fail "groff -ww warns about $1:"$'\n'"$warnings"
    MANWIDTH=80 man -l "$dir/$1" >"$scratch/$1.txt" 2>"$scratch/$1.err" || fail "man -l $1 failed"
    [ -s "$scratch/$1.err" ] && fail "man -l $1 warns:"$'\n'"$(cat "$scratch/$1.err")"
}

render wisp.7
wisp7=$(cat "$scratch/wisp.7.txt")
[[ "$(head -n 1 <<<"$wisp7")" == "WISP(7)"* ]] || fail "wisp.7 does not render as WISP(7)"
names=$(sed -n 's/^WISP_CONFIG(\([A-Z0-9_]*\),.*/WISP_\1/p' "$def")
[ -n "$names" ] || fail "no WISP_CONFIG entry read from $def"
# An entry is the name alone on its line, under ENVIRONMENT.
env_part=$(sed -n '/^ENVIRONMENT$/,/^[A-Z]/p' <<<"$wisp7")
for name in $names; do
    grep -qx " *$name" <<<"$env_part" || fail "wisp(7) has no entry for $name"
done
entries=$(grep -cx ' *WISP_[A-Z0-9_]*' <<<"$env_part")
[ "$entries" = "$(wc -w <<<"$names")" ] || fail "wisp(7) has $entries entries, config.def $(wc -w <<<"$names") variables"

render wisprun.1
wisprun1=$(cat "$scratch/wisprun.1.txt")
[[ "$(head -n 1 <<<"$wisprun1")" == "WISPRUN(1)"* ]] || fail "wisprun.1 does not render as WISPRUN(1)"
options=$("$wisprun" --help | sed -n '/^options:/,/^$/p' | grep '^  -' | cut -c1-22 | grep -o -- '-[-a-z]*')
[ -n "$options" ] || fail "no option read from wisprun --help"
opt_part=$(sed -n '/^OPTIONS$/,/^[A-Z]/p' <<<"$wisprun1")
for opt in $options; do
    grep -qE -- "^ *([^ ].*[ ,])?$opt([ ,]|$)" <<<"$opt_part" || fail "wisprun(1) does not describe $opt"
done

[ $failed = 1 ] || echo "ok: wisprun(1) and wisp(7) render cleanly; $(wc -w <<<"$names") variables, $(wc -w <<<"$options") options"
exit $failed
