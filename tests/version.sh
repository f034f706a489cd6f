#!/usr/bin/env bash
# version.sh WISPRUN WISP-INFO MPI SOURCE-DIR VERSION
# `wisprun --version` and `wisp-info --version` print the same two lines:
# "wisp VERSION (<commit>)" and "built for MPI (<its make and version>, MPI
# standard x.y)"; the MPI's version is checked against what its own tools
# say (mpichversion, ompi_info). Then where the commit comes from
# (cmake/WispVersion.cmake run as a script, as the build runs it): this git
# checkout; a `git archive` of it (export-subst), also unpacked inside
# another repository; a copy with neither, which names no commit.
set -u
wisprun=$1 info=$2 mpi=$3 src=$4 version=$5
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

out=$("$info" --version) || fail "wisp-info --version exited with $?"
run=$("$wisprun" --version) || fail "wisprun --version exited with $?"
echo "$out"
[ "$run" = "$out" ] || fail "wisprun --version says '$run', wisp-info --version '$out'"
first=$(sed -n 1p <<<"$out")
second=$(sed -n 2p <<<"$out")
[[ "$first" =~ ^wisp\ ([0-9]+\.[0-9]+\.[0-9]+)(\ \((.*)\))?$ ]] || fail "first line is not 'wisp <version> [(<commit>)]': $first"
[ "${BASH_REMATCH[1]}" = "$version" ] || fail "it says version ${BASH_REMATCH[1]}, the project's is $version"
revision=${BASH_REMATCH[3]}

# The MPI's tools beside its launcher (TEST_MPIEXEC_<MPI>, the build's:
# a venv's MPICH 5 has its own mpichversion), else those in PATH.
launcher=TEST_MPIEXEC_$mpi
bindir=$(dirname "${!launcher:-/nonexistent/x}")
tool() { if [ -x "$bindir/$1" ]; then echo "$bindir/$1"; else echo "$1"; fi; }
case "${TEST_MPI_IMPL:-$mpi}" in # the standard ABI's: the implementation beneath
mpich) made=MPICH mpi_version=$("$(tool mpichversion)" | sed -n 's/^MPICH Version:[[:space:]]*//p') ;;
openmpi) made="Open MPI" mpi_version=$("$(tool ompi_info)" --version | sed -n 's/^Open MPI v//p') ;;
esac
[ -n "$mpi_version" ] || fail "the MPI's own tool (mpichversion, ompi_info) gave no version"
[[ "$second" == "built for $mpi ($made $mpi_version, MPI standard "[0-9]*.[0-9]*")" ]] ||
    fail "second line is not 'built for $mpi ($made $mpi_version, MPI standard x.y)': $second"

# The commit in the first line: whatever the source can tell.
top=$(git -C "$src" rev-parse --show-toplevel 2>/dev/null)
if [ "$top" = "$(realpath "$src")" ]; then
    # git describe: a tag's "v1-3-g<hash>" or the bare hash; any commit of
    # the repository (HEAD may have moved since the build).
    [[ "$revision" =~ ^git\ (.*-g)?([0-9a-f]+)(-dirty)?$ ]] &&
        git -C "$src" rev-parse -q --verify "${BASH_REMATCH[2]}^{commit}" >/dev/null ||
        fail "built from git, but '$revision' names no commit of $src"
elif grep -qx '[0-9a-f]*' "$src/cmake/wisp_git_commit.txt"; then
    [ "$revision" = "git archive of $(cat "$src/cmake/wisp_git_commit.txt")" ] ||
        fail "built from a git archive of $(cat "$src/cmake/wisp_git_commit.txt"), but it says '$revision'"
else
    [ -z "$revision" ] || fail "built from neither git nor a git archive, but it says '$revision'"
fi

# revision_of DIR: the commit the version script finds for a source in DIR.
revision_of() {
    cmake -DSOURCE_DIR="$1" -DOUTPUT="$scratch/version.h" -DVERSION="$version" -P "$1/cmake/WispVersion.cmake" &&
        sed -n 's/^#define WISP_VERSION_REVISION "\(.*\)"$/\1/p' "$scratch/version.h"
}
files=(cmake/WispVersion.cmake cmake/wisp_git_commit.txt)
if [ "$top" = "$(realpath "$src")" ]; then
    commit=$(git -C "$src" rev-parse HEAD)
    short=$(git -C "$src" log -1 --format=%h "$commit")
    mkdir -p "$scratch/archive" "$scratch/outer/wisp"
    git -C "$src" archive "$commit" "${files[@]}" | tar -x -C "$scratch/archive"
    got=$(revision_of "$scratch/archive")
    [ "$got" = "git archive of $short" ] || fail "from a git archive of $short: '$got'"
    # Unpacked inside a site's own repository, whose commits are not wisp's.
    git -C "$scratch/outer" init -q &&
        git -C "$scratch/outer" -c user.name=t -c user.email=t@t commit -q --allow-empty -m outer
    git -C "$src" archive "$commit" "${files[@]}" | tar -x -C "$scratch/outer/wisp"
    got=$(revision_of "$scratch/outer/wisp")
    [ "$got" = "git archive of $short" ] || fail "from a git archive inside another repository: '$got'"
    mkdir -p "$scratch/copy/cmake"
    cp "${files[@]/#/$src/}" "$scratch/copy/cmake/"
    got=$(revision_of "$scratch/copy")
    [ -z "$got" ] || fail "from a copy without git: '$got'"
else
    echo "(not a git checkout: the archive and copy cases need one, skipped)"
fi

[ $failed = 1 ] || echo "ok: --version of wisprun and wisp-info"
exit $failed
