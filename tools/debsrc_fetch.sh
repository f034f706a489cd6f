#!/usr/bin/env bash
# debsrc_fetch.sh WHAT PACKAGE VERSION DIR CHECK [HINT]: put Debian's source
# package PACKAGE (upstream VERSION) under DIR, once, and print the path of
# its tree, DIR/PACKAGE-VERSION. CHECK is a file relative to that tree whose
# presence says the tree is complete. Sources are fetched at build or test
# time, never kept in the repository: this adds a deb-src entry for bookworm
# main (/etc/apt/sources.list.d/wisp-src.sources) when apt knows no source
# for PACKAGE VERSION, runs apt-get update and apt-get source PACKAGE. Needs
# root and the network on first use. A failure prints one line, "WHAT: why;
# HINT" (HINT: what to do instead, such as the build option that takes a
# local copy), then what apt said, and exits with status 1: the first line
# alone tells the user what to do, above apt's own errors.
set -euo pipefail
what=$1 package=$2 version=$3 dir=$4 check=$5 hint=${6:-}
tree="$dir/$package-$version"
list=/etc/apt/sources.list.d/wisp-src.sources
log=$(mktemp)
trap 'rm -f "$log"' EXIT

fail() {
    echo "$what: $*${hint:+; $hint}" >&2
    sed 's/^/    /' "$log" >&2
    exit 1
}

mkdir -p "$dir"
exec 9>"$dir/.lock" # two builds fetching into DIR at once wait for each other
flock 9
if [ ! -e "$tree/$check" ]; then
    command -v apt-get >/dev/null || fail "no apt-get (not Debian?)"
    command -v dpkg-source >/dev/null || fail "no dpkg-source (apt-get install dpkg-dev)"
    if ! apt-get source --print-uris "$package" 2>/dev/null | grep -q "${package}_$version"; then
        [ -w /etc/apt/sources.list.d ] || fail "no deb-src entry for $package $version and $list cannot be written (run as root)"
        if [ ! -f "$list" ]; then
            cat >"$list" <<SOURCES
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
        fi
        # apt's lists are shared by every build of the machine: one update at a time.
        (flock 8 && apt-get update -qq) 8>/tmp/wisp-apt-update.lock >"$log" 2>&1 ||
            fail "apt-get update failed (is the network reachable?)"
        apt-get source --print-uris "$package" 2>/dev/null | grep -q "${package}_$version" ||
            fail "apt knows no source of $package $version after apt-get update (is deb.debian.org reachable? see $list)"
    fi
    rm -rf "$tree"
    (cd "$dir" && apt-get source -qq -o APT::Sandbox::User=root "$package") >"$log" 2>&1 ||
        fail "apt-get source $package failed (is the network reachable? see $list)"
    [ -e "$tree/$check" ] || fail "apt-get source $package gave no $package-$version (the archive has another version?)"
fi
echo "$tree"
