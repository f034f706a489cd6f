#!/usr/bin/env bash
# easybuild_mpi_in_path.sh SOURCE-DIR VERSION EB JEMALLOC-TREE MPI-BIN
# The easyconfig packaging/easybuild/wisp-VERSION-mpi-in-path.eb, which names
# no MPI, built by EasyBuild as a site whose MPI comes from a module builds
# it: MPI-BIN first in PATH, as `module load mpich/5.0.2` (or a toolchain's
# gompi/gmpich) puts its mpicc and mpiexec there. MPI-BIN is MPICH 5.0.2's
# from PyPI (build/.venv-mpis/mpich5/bin, `make deps-mpis`), not one of
# Debian's. The build is EasyBuild's, in a scratch directory under Debian's
# Lmod (tests/easybuild_common.sh, shared with easybuild.sh). Then, with
# MPI-BIN still first in PATH, `module load wisp/VERSION-mpi-in-path`, and:
# - the installation holds that one MPI's library and nothing of Debian's:
#   libwisp-mpich, wisprun --version "built for mpich (MPICH <the version of
#   MPI-BIN's mpichversion>", wisp-mpich.pc built against it, wisprun's
#   launcher MPI-BIN/mpiexec;
# - as in module.sh (tests/loaded.sh): wisprun, the manual pages and
#   find_package(wisp) through the module; a program built with MPI-BIN's
#   mpicc runs through the installed wisprun with the heap serving, and one
#   linked with -lwisp-mpich under MPI-BIN's plain mpiexec.
# One build of wisp and of jemalloc: 10-11 minutes on 2 cores at load 15
# (2026-12-06; script.easybuild builds two).
# Skipped (77), saying why, without EasyBuild, without MPI-BIN's mpicc and
# mpiexec, or without a git checkout to archive.
set -u
src=$1 version=$2 eb=$3 jemalloc_tree=$4 mpi_bin=$5
here=$(cd "$(dirname "$0")" && pwd)
failed=0
fail() { echo "FAIL: $*"; failed=1; return 1; }
full=$version-mpi-in-path
if [ ! -x "$mpi_bin/mpicc" ] || [ ! -x "$mpi_bin/mpiexec" ] || [ ! -x "$mpi_bin/mpichversion" ]; then
    echo "SKIP: no MPICH from PyPI at $mpi_bin (mpicc, mpiexec, mpichversion): make deps-mpis installs it (pip install mpich==5.0.2 into build/.venv-mpis/mpich5); was PyPI reachable?"
    exit 77
fi
mpi_bin=$(cd "$mpi_bin" && pwd)
mpi_version=$("$mpi_bin/mpichversion" --version 2>/dev/null | sed -n 's/^MPICH Version:[[:space:]]*//p')
[ -n "$mpi_version" ] || { echo "FAIL: $mpi_bin/mpichversion --version says no version"; exit 1; }
# shellcheck source=tests/loaded.sh
source "$here/loaded.sh"
# shellcheck source=tests/easybuild_common.sh
source "$here/easybuild_common.sh"
eb_prepare "$src" "$src/packaging/easybuild/wisp-$full.eb" "$eb" "$jemalloc_tree"

# The site's `module load mpich/5.0.2`.
export PATH=$mpi_bin:$PATH
[ "$(command -v mpicc)" = "$mpi_bin/mpicc" ] || { echo "FAIL: mpicc in PATH is $(command -v mpicc), not $mpi_bin/mpicc"; exit 1; }
echo "the MPI in PATH: $mpi_bin/mpicc, MPICH $mpi_version"
eb_build

prefix=$installpath/software/wisp/$full
[ -e "$installpath/modules/all/wisp/$full.lua" ] || fail "no module file $installpath/modules/all/wisp/$full.lua"
export MODULEPATH=$installpath/modules/all
module load "wisp/$full" || fail "module load wisp/$full (EasyBuild's)"
[ "$(module --terse list 2>&1 | grep '^wisp')" = "wisp/$full" ] || fail "wisp/$full not loaded: $(module --terse list 2>&1)"
[ "$(command -v mpicc)" = "$mpi_bin/mpicc" ] || fail "mpicc in PATH after module load wisp: $(command -v mpicc)"

# That one MPI, and nothing of Debian's.
libs=$(cd "$prefix/lib" && echo libwisp-*.so)
[ "$libs" = libwisp-mpich.so ] || fail "libraries in $prefix/lib: $libs (expected libwisp-mpich.so alone)"
confs=$(cd "$prefix/lib/wisp" && echo *.conf)
[ "$confs" = mpich.conf ] || fail "wisprun's MPIs in $prefix/lib/wisp: $confs (expected mpich.conf alone)"
grep -qx "launcher=$mpi_bin/mpiexec" "$prefix/lib/wisp/mpich.conf" ||
    fail "wisprun's launcher is not $mpi_bin/mpiexec:"$'\n'"$(cat "$prefix/lib/wisp/mpich.conf")"
version_out=$(wisprun --version)
[[ "$version_out" == "wisp $version (git archive of "*")"$'\n'"built for mpich (MPICH $mpi_version, "* ]] &&
    [ "$(grep -c '^built for ' <<<"$version_out")" = 1 ] || fail "the installed wisprun --version: $version_out"
pc=$(pkg-config --print-errors --modversion wisp-mpich 2>&1 && grep '^Description:' "$prefix/lib/pkgconfig/wisp-mpich.pc")
[[ "$pc" == *"(built against mpich $mpi_version)" ]] || fail "wisp-mpich.pc: $pc"
# cmake's own module files in the installation (share/modulefiles, for a
# site that uses them rather than EasyBuild's) name that MPI alone.
for f in "lmod/wisp/$version.lua" "tcl/wisp/$version"; do
    [ "$(grep -c "^For programs of MPICH $mpi_version\.\$\|for programs of MPICH $mpi_version (wisprun" "$prefix/share/modulefiles/$f")" = 2 ] ||
        fail "the installed module file $f does not name MPICH $mpi_version alone:"$'\n'"$(cat "$prefix/share/modulefiles/$f")"
done

# As a user of the module: wisprun, man, CMake; the MPI's programs.
check_loaded_env "$prefix"
check_loaded_mpi "$tmp" mpich MPICH mpicc mpiexec
out=$(cmake -S "$here/install" -B "$tmp/consumer" -DMPI_FIRST=ON -DMPI_C_COMPILER="$mpi_bin/mpicc" 2>&1) &&
    [ "$(cat "$tmp/consumer/wisp_mpi.txt")" = mpich ] ||
    fail "find_package(wisp) through CMAKE_PREFIX_PATH with $mpi_bin/mpicc: $out"
module unload wisp || fail "module unload wisp"

[ $failed = 1 ] || echo "ok: packaging/easybuild/wisp-$full.eb built by EasyBuild $("$eb" --version 2>/dev/null | sed -n 's/^This is EasyBuild \([^ ]*\).*/\1/p') over MPICH $mpi_version from $mpi_bin, loaded and used"
exit $failed
