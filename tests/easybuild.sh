#!/usr/bin/env bash
# easybuild.sh SOURCE-DIR VERSION EB JEMALLOC-TREE
# The easyconfig packaging/easybuild/wisp-VERSION.eb built by EasyBuild (EB:
# its `eb`, from PyPI into .venv-easybuild by `make deps`) as a site builds
# it: the source a `git archive` of SOURCE-DIR's HEAD, jemalloc's release
# tarball (Debian's orig tarball that this build fetched, the same file as
# upstream's; else a tarball packed from JEMALLOC-TREE, with
# --ignore-checksums), everything in a scratch directory: sources, build,
# installation and module, under Debian's Lmod. Then `module load wisp` of
# EasyBuild's module and use it as in module.sh (tests/loaded.sh): an MPICH
# and an Open MPI program through the one wisprun with the heap serving.
# About 10 minutes on 2 cores (two builds of wisp and of jemalloc).
# Skipped (77), saying why, without EasyBuild (PyPI not reachable when
# `make deps` ran) or without a git checkout to archive.
set -u
src=$1 version=$2 eb=$3 jemalloc_tree=$4
ec=$src/packaging/easybuild/wisp-$version.eb
lmod_init=/usr/share/lmod/lmod/init/profile # as a login shell runs it
[ -r "$ec" ] || { echo "FAIL: no easyconfig for wisp $version: $ec"; exit 1; }
[ -r "$lmod_init" ] || { echo "FAIL: no $lmod_init (apt-get install lmod; make deps does)"; exit 1; }
if [ ! -x "$eb" ]; then
    echo "SKIP: no EasyBuild at $eb: make deps installs it from PyPI (pip install -r packaging/easybuild/requirements.txt into .venv-easybuild); was PyPI reachable?"
    exit 77
fi
top=$(git -C "$src" rev-parse --show-toplevel 2>/dev/null)
if [ "$top" != "$(realpath "$src")" ]; then
    echo "SKIP: $src is not a git checkout: this test builds a git archive of it"
    exit 77
fi
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; return 1; }
# shellcheck source=tests/loaded.sh
source "$here/loaded.sh"

# The sources.
sources=$tmp/sources/w/wisp
mkdir -p "$sources"
git -C "$src" archive --prefix="wisp-$version/" -o "$sources/wisp-$version.tar.gz" HEAD ||
    { echo "FAIL: git archive"; exit 1; }
changed=$(git -C "$src" --no-optional-locks status --porcelain --untracked-files=no | wc -l)
echo "wisp: git archive of $(git -C "$src" log -1 --format=%h HEAD)$([ "$changed" = 0 ] || echo " (HEAD: $changed files changed in the work tree are not in it)")"
checksum_opt=()
orig=$(dirname "$jemalloc_tree")/jemalloc_5.3.0.orig.tar.bz2
want=$(sed -n "s/^ *'\([0-9a-f]\{64\}\)',  # jemalloc-5.3.0.tar.bz2$/\1/p" "$ec")
if [ -r "$orig" ] && [ "$(sha256sum <"$orig" | cut -d' ' -f1)" = "$want" ]; then
    cp "$orig" "$sources/jemalloc-5.3.0.tar.bz2"
    echo "jemalloc: Debian's $orig (upstream's checksum)"
elif [ -e "$jemalloc_tree/configure" ]; then
    tar -C "$(dirname "$jemalloc_tree")" -cjf "$sources/jemalloc-5.3.0.tar.bz2" \
        --transform "s,^$(basename "$jemalloc_tree"),jemalloc-5.3.0," "$(basename "$jemalloc_tree")" ||
        { echo "FAIL: cannot pack $jemalloc_tree"; exit 1; }
    checksum_opt=(--ignore-checksums)
    echo "jemalloc: packed from $jemalloc_tree (not the release tarball: --ignore-checksums)"
else
    echo "FAIL: no jemalloc source in $jemalloc_tree (build the jemalloc target first)"
    exit 1
fi

# EasyBuild, under Lmod.
unset MODULEPATH MODULEPATH_ROOT LOADEDMODULES _LMFILES_ MODULESHOME MANPATH
set +u # (Lmod's scripts use unset variables)
# shellcheck disable=SC1090
source "$lmod_init" || { echo "FAIL: source $lmod_init"; exit 1; }
export EB_PYTHON
EB_PYTHON=$(dirname "$eb")/python
root_opt=()
[ "$(id -u)" != 0 ] || root_opt=(--allow-use-as-root-and-accept-consequences)
installpath=$tmp/eb/install
start=$(date +%s)
"$eb" "$ec" "${root_opt[@]}" "${checksum_opt[@]}" --modules-tool=Lmod --module-syntax=Lua \
    --prefix="$tmp/eb" --installpath="$installpath" --buildpath="$tmp/eb/build" --sourcepath="$tmp/sources" \
    --tmpdir="$tmp/eb/tmp" --tmp-logdir="$tmp/eb/logs" --disable-cleanup-tmpdir --trace >"$tmp/eb.out" 2>&1
status=$?
if [ $status != 0 ]; then
    echo "FAIL: eb exited with $status:"
    tail -n 30 "$tmp/eb.out"
    for log in "$tmp"/eb/logs/*.log; do
        [ -e "$log" ] && { echo "--- the end of $log:"; tail -n 40 "$log"; }
    done
    exit 1
fi
echo "eb built and installed wisp $version in $(($(date +%s) - start)) s"
grep -q "COMPLETED: Installation ended successfully" "$tmp/eb.out" || fail "eb did not say it completed:"$'\n'"$(tail "$tmp/eb.out")"

prefix=$installpath/software/wisp/$version
[ -e "$installpath/modules/all/wisp/$version.lua" ] || fail "no module file $installpath/modules/all/wisp/$version.lua"
export MODULEPATH=$installpath/modules/all
module load wisp || fail "module load wisp (EasyBuild's)"
[ "$(module --terse list 2>&1 | grep '^wisp')" = "wisp/$version" ] || fail "wisp/$version not loaded: $(module --terse list 2>&1)"
check_loaded "$prefix" "$tmp"
version_out=$(wisprun --version)
[[ "$version_out" == "wisp $version (git archive of "*")"$'\n'"built for mpich "*$'\n'"built for openmpi "* ]] ||
    fail "the installed wisprun --version: $version_out"
module unload wisp || fail "module unload wisp"

[ $failed = 1 ] || echo "ok: packaging/easybuild/wisp-$version.eb built by EasyBuild $("$eb" --version 2>/dev/null | sed -n 's/^This is EasyBuild \([^ ]*\).*/\1/p'), loaded and used"
exit $failed
