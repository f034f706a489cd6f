#!/usr/bin/env bash
# jemalloc_archive.sh SOURCE-DIR MPI JEMALLOC-TREE
# A build without the network: packs the jemalloc tree this build was made
# from (Debian's, fetched, or whatever WISP_JEMALLOC_SOURCE gave) into a
# release-style tarball, jemalloc-5.3.0/ inside a .tar.bz2, then configures
# a throwaway build with -DWISP_JEMALLOC_SOURCE=<that tarball> and builds
# only its jemalloc target (about a minute on 2 cores): the tarball is
# accepted as 5.3.0, unpacked to the same files, and built into the object
# that libwisp links, with jemalloc's symbols under wisp's prefix.
set -u
src=$1 mpi=$2 tree=$3
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
build=$scratch/build
failed=0
fail() { echo "FAIL: $*"; failed=1; }

[ -e "$tree/configure" ] || { echo "FAIL: $tree has no jemalloc source (build the jemalloc target first)"; exit 1; }
archive=$scratch/jemalloc-5.3.0.tar.bz2
tar -C "$(dirname "$tree")" -cjf "$archive" --transform "s,^$(basename "$tree"),jemalloc-5.3.0," \
    "$(basename "$tree")" || { echo "FAIL: cannot pack $tree"; exit 1; }

out=$(cmake -S "$src" -B "$build" -G Ninja -DWISP_MPI="$mpi" -DWISP_JEMALLOC_SOURCE="$archive" 2>&1) ||
    { echo "FAIL: configure with the tarball:"$'\n'"$out"; exit 1; }
grep -q "wisp: jemalloc 5.3.0 from $archive" <<<"$out" || fail "the tarball was not taken as jemalloc 5.3.0:"$'\n'"$out"
grep -q "CMake Warning" <<<"$out" && fail "configure warned:"$'\n'"$out"

start=$(date +%s)
out=$(cmake --build "$build" --target jemalloc 2>&1) || { echo "FAIL: building jemalloc:"$'\n'"$out"; exit 1; }
grep -q "CMake Warning" <<<"$out" && fail "the build warned:"$'\n'"$out"
echo "jemalloc unpacked, configured and built from the tarball in $(($(date +%s) - start)) s"

unpacked=$build/jemalloc/src/jemalloc-archive
diff -r -q "$tree" "$unpacked" >"$scratch/diff" || fail "the unpacked tree differs from the packed one:"$'\n'"$(head "$scratch/diff")"
object=$build/jemalloc/build/wisp_jemalloc.o
[ -s "$object" ] || fail "no $object"
nm "$object" | grep -q ' T wispje_malloc$' || fail "$object defines no wispje_malloc"
nm "$object" | grep -qw ' T malloc' && fail "$object defines malloc itself"

[ $failed = 1 ] || echo "ok: jemalloc built from a local tarball, without fetching"
exit $failed
