#!/usr/bin/env bash
# jemalloc_source.sh SOURCE-DIR MPI
# Bad choices of the shared heap's jemalloc source stop the build with a first
# line that names WISP_JEMALLOC_SOURCE and what it takes
# (cmake/WispJemallocSource.cmake): configures a throwaway build of the tree
# with each bad value (a missing path, a file that is no archive, an archive
# or a folder that is not jemalloc's, a file of another kind, no apt-get and
# no value), one of another jemalloc version (a warning, not an error), and
# with apt-get failing as without the network, where the download step's first
# line must come before apt's own errors.
set -u
src=$1 mpi=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
build=$scratch/build
failed=0
fail() { echo "FAIL: $*"; failed=1; }
hint="give -DWISP_JEMALLOC_SOURCE=<jemalloc 5.3.0's release tarball"

configure() { cmake -S "$src" -B "$build" -G Ninja -DWISP_MPI="$mpi" "$@" 2>&1; }

# expect_error VALUE PHRASE [cmake args]: configuring with VALUE fails, and
# the first line of the error says "WISP_JEMALLOC_SOURCE='VALUE' PHRASE...: <hint>".
expect_error() {
    local value=$1 phrase=$2 out first
    shift 2
    if out=$(configure -DWISP_JEMALLOC_SOURCE="$value" "$@"); then
        fail "WISP_JEMALLOC_SOURCE='$value': configure succeeded"
        return
    fi
    first=$(grep -A1 '^CMake Error' <<<"$out" | sed -n '2s/^ *//p')
    echo "$first"
    [[ "$first" == "WISP_JEMALLOC_SOURCE='$value' $phrase"*": $hint"* ]] ||
        fail "first error line for '$value' is not \"WISP_JEMALLOC_SOURCE='$value' $phrase...: $hint...\":"$'\n'"$out"
}

expect_error "$scratch/none.tar.bz2" "does not exist"
echo "not an archive" >"$scratch/notes.tar.bz2"
expect_error "$scratch/notes.tar.bz2" "is not an archive that can be read"
mkdir -p "$scratch/other-1.0/src"
echo "int main(void) { return 0; }" >"$scratch/other-1.0/src/main.c"
tar -C "$scratch" -cJf "$scratch/other-1.0.tar.xz" other-1.0
expect_error "$scratch/other-1.0.tar.xz" "is not jemalloc's release source"
expect_error "$scratch/other-1.0" "is not jemalloc's release source"
echo "PK" >"$scratch/jemalloc-5.3.0.zip"
expect_error "$scratch/jemalloc-5.3.0.zip" "is neither a directory nor a .tar.bz2, .tar.xz or .tar.gz archive"

# Not Debian: no value and no apt-get.
out=$(configure -DWISP_JEMALLOC_SOURCE= -DWISP_APT_GET="$scratch/no/apt-get") && fail "no apt-get: configure succeeded"
first=$(grep -A1 '^CMake Error' <<<"$out" | sed -n '2s/^ *//p')
echo "no apt-get: $first"
[[ "$first" == "WISP_JEMALLOC_SOURCE is unset and there is no apt-get"*"$hint"* ]] ||
    fail "first error line without apt-get does not name the option and what it takes:"$'\n'"$out"

# Another version: a warning that says which, and the configure goes on.
tree=$scratch/jemalloc-5.2.1
mkdir -p "$tree/src"
printf '#!/bin/sh\nexit 1\n' >"$tree/configure"
touch "$tree/src/jemalloc.c"
echo "5.2.1-0-g0000000000000000000000000000000000000000" >"$tree/VERSION"
tar -C "$scratch" -cjf "$scratch/jemalloc-5.2.1.tar.bz2" jemalloc-5.2.1
out=$(configure -DWISP_JEMALLOC_SOURCE="$scratch/jemalloc-5.2.1.tar.bz2") || fail "jemalloc 5.2.1: configure failed:"$'\n'"$out"
grep -q "is jemalloc '5.2.1-0-g0*', not 5.3.0" <<<"$(tr -s ' \n' ' ' <<<"$out")" ||
    fail "jemalloc 5.2.1: no warning naming the version:"$'\n'"$out"

# No network: apt-get (a stand-in) knows the source but cannot fetch it. The
# download step's first line names the option, above apt's error.
mkdir -p "$scratch/bin"
cat >"$scratch/bin/apt-get" <<'APT'
#!/bin/sh
case "$*" in
*--print-uris*) echo "'http://deb.debian.org/debian/pool/main/j/jemalloc/jemalloc_5.3.0-1.dsc' jemalloc_5.3.0-1.dsc 2157 SHA256:0" ;;
*) echo "E: Failed to fetch http://deb.debian.org/debian/pool/main/j/jemalloc/jemalloc_5.3.0.orig.tar.bz2  Temporary failure resolving 'deb.debian.org'" >&2; exit 100 ;;
esac
APT
chmod +x "$scratch/bin/apt-get"
export PATH="$scratch/bin:$PATH"
out=$(configure -DWISP_JEMALLOC_SOURCE= -DWISP_APT_GET="$scratch/bin/apt-get") || fail "fake apt-get: configure failed:"$'\n'"$out"
out=$(cmake --build "$build" --target jemalloc 2>&1) && fail "fake apt-get: the download step succeeded"
# The step's own lines: those after ninja's FAILED line and the command it echoes.
step=$(sed -n '/^FAILED:/,$p' <<<"$out" | sed '1,2d')
first=$(head -n 1 <<<"$step")
echo "no network: $first"
[[ "$first" == "wisp: cannot fetch jemalloc 5.3.0's source: apt-get source jemalloc failed"*"; without the network, $hint"* ]] ||
    fail "first line of the failed download does not name the option and what it takes:"$'\n'"$out"
sed -n '2,$p' <<<"$step" | grep -q "E: Failed to fetch" || fail "apt's error is not shown after the first line:"$'\n'"$out"

[ $failed = 1 ] || echo "ok: every bad WISP_JEMALLOC_SOURCE, and a failed fetch, named the option in their first line"
exit $failed
