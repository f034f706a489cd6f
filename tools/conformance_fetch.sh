#!/usr/bin/env bash
# conformance_fetch.sh DIR: put MPICH's source (Debian's mpich 4.0.2 source
# package, whose test/mpi is MPICH's own test suite) under DIR, once. It is
# fetched at test time, never kept in the repository: this adds a deb-src
# entry when none is there, runs apt-get update and apt-get source mpich.
# Prints the path of test/mpi. Needs root and the network on first use.
set -euo pipefail
dir=$1
version=4.0.2
suite="$dir/mpich-$version/test/mpi"
list=/etc/apt/sources.list.d/wisp-src.sources

fail() {
    echo "conformance: cannot fetch MPICH's test suite: $*" >&2
    exit 1
}

mkdir -p "$dir"
exec 9>"$dir/.lock" # two builds fetching at once wait for each other
flock 9
if [ ! -x "$suite/configure" ]; then
    if ! apt-get source --print-uris mpich 2>/dev/null | grep -q "mpich_$version"; then
        [ -w /etc/apt/sources.list.d ] || fail "no deb-src entry for mpich $version and $list cannot be written (run as root)"
        if [ ! -f "$list" ]; then
            cat >"$list" <<SOURCES
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
        fi
        apt-get update -qq >&2 || fail "apt-get update failed (is the network reachable?)"
    fi
    rm -rf "$dir/mpich-$version"
    (cd "$dir" && apt-get source -qq mpich >&2) ||
        fail "apt-get source mpich failed (is the network reachable? see $list)"
    [ -x "$suite/configure" ] || fail "apt-get source mpich gave no mpich-$version (the archive has another version?)"
fi
echo "$suite"
