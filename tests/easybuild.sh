#!/usr/bin/env bash
# easybuild.sh SOURCE-DIR VERSION EB JEMALLOC-TREE
# The easyconfig packaging/easybuild/wisp-VERSION.eb (Debian's two MPIs)
# built by EasyBuild (EB: its `eb`, from PyPI into .venv-easybuild by `make
# deps`) as a site builds it, in a scratch directory under Debian's Lmod
# (tests/easybuild_common.sh, shared with easybuild_mpi_in_path.sh). Then
# `module load wisp` of EasyBuild's module and use it as in module.sh (tests/loaded.sh): an MPICH
# and an Open MPI program through the one wisprun with the heap serving.
# About 10 minutes on 2 cores (two builds of wisp and of jemalloc).
# Skipped (77), saying why, without EasyBuild (PyPI not reachable when
# `make deps` ran) or without a git checkout to archive.
set -u
src=$1 version=$2 eb=$3 jemalloc_tree=$4
here=$(cd "$(dirname "$0")" && pwd)
failed=0
fail() { echo "FAIL: $*"; failed=1; return 1; }
# shellcheck source=tests/loaded.sh
source "$here/loaded.sh"
# shellcheck source=tests/easybuild_common.sh
source "$here/easybuild_common.sh"
eb_prepare "$src" "$src/packaging/easybuild/wisp-$version.eb" "$eb" "$jemalloc_tree"
eb_build

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
