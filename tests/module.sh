#!/usr/bin/env bash
# module.sh OPENMPI-BUILD MPICH-BUILD
# The environment modules that `cmake --install` writes
# (cmake/WispInstallShared.cmake): both builds installed into a scratch
# prefix; under Debian's Lmod (its init script, MODULEPATH the prefix's
# share/modulefiles/lmod), `module load wisp` makes wisp usable as a user
# uses it (tests/loaded.sh: wisprun, man, pkg-config, find_package; an
# MPICH and an Open MPI program through the one wisprun with the heap
# serving; a linked program), and `module unload wisp` takes it away; the
# same with the Tcl module file (share/modulefiles/tcl, for Environment
# Modules; Lmod reads Tcl too). Each one's whatis and help name the MPIs
# installed with their versions. Registered in the Open MPI build, which finds
# the MPICH build beside it; skipped (77) without it.
set -u
ompi_build=$1 mpich_build=$2
here=$(cd "$(dirname "$0")" && pwd)
# Lmod's init as a login shell runs it (Debian's /etc/profile.d/lmod.sh):
# it keeps the system's manual pages in MANPATH (a trailing ':'), then
# sources init/bash.
lmod_init=/usr/share/lmod/lmod/init/profile
[ -r "$lmod_init" ] || { echo "FAIL: no $lmod_init (apt-get install lmod; make deps does)"; exit 1; }
for m in mpich openmpi; do
    build=$([ $m = mpich ] && echo "$mpich_build" || echo "$ompi_build")
    [ -n "$build" ] && [ -e "$build/cmake_install.cmake" ] ||
        { echo "SKIP: no $m build tree at '$build' (configure the Open MPI build with -DWISP_MPICH_BUILD=<the MPICH build>)"; exit 77; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; return 1; }
# shellcheck source=tests/loaded.sh
source "$here/loaded.sh"

prefix=$tmp/prefix
for b in "$mpich_build" "$ompi_build"; do
    cmake --install "$b" --prefix "$prefix" >/dev/null || fail "cmake --install $b --prefix $prefix"
done
version=$("$prefix/bin/wisprun" --version | sed -n '1s/^wisp \([^ ]*\).*/\1/p')
# The MPIs installed, as the module files name them: "MPICH 4.0.2 or Open
# MPI 4.1.4" (from wisprun --version's "built for mpich (MPICH 4.0.2, ...").
mpis=$("$prefix/bin/wisprun" --version | sed -n 's/^built for [a-z]* (\([^,]*\),.*/\1/p' | paste -sd '|' | sed 's/|/ or /g')
[[ "$mpis" == "MPICH "*" or Open MPI "* ]] || fail "the MPIs of wisprun --version: $mpis"

# A clean environment for Lmod (no other module system's leftovers).
unset MODULEPATH MODULEPATH_ROOT LOADEDMODULES _LMFILES_ MODULESHOME MANPATH
set +u # (Lmod's scripts use unset variables)
# shellcheck disable=SC1090
source "$lmod_init" || { echo "FAIL: source $lmod_init"; exit 1; }
system_man=$(man -w ls 2>/dev/null)
for kind in lmod tcl; do
    export MODULEPATH=$prefix/share/modulefiles/$kind
    out=$(module --terse avail wisp 2>&1)
    grep -qx "wisp/$version" <<<"$out" || fail "$kind: module avail does not list wisp/$version: $out"
    module load wisp || fail "$kind: module load wisp"
    [ "$(module --terse list 2>&1 | grep '^wisp')" = "wisp/$version" ] || fail "$kind: wisp/$version not loaded: $(module --terse list 2>&1)"
    out=$(module whatis wisp 2>&1)
    [[ "$out" == *"Version: $version"* ]] && [[ "$out" == *"for programs of $mpis ("* ]] ||
        fail "$kind: module whatis wisp: $out"
    out=$(module help wisp 2>&1)
    [[ "$out" == *"wisprun -n 4 ./app"* ]] && [[ "$out" == *"For programs of $mpis."* ]] ||
        fail "$kind: module help wisp (expected \"For programs of $mpis.\"): $out"
    check_loaded "$prefix" "$tmp"
    [ -z "$system_man" ] || [ "$(man -w ls 2>/dev/null)" = "$system_man" ] ||
        fail "$kind: with wisp loaded, man no longer finds the system's pages (MANPATH=$MANPATH)"
    module unload wisp || fail "$kind: module unload wisp"
    [[ ":$PATH:" != *":$prefix/bin:"* ]] || fail "$kind: $prefix/bin still in PATH after module unload: $PATH"
    command -v wisprun >/dev/null && fail "$kind: wisprun still on PATH after module unload"
    echo "$kind: module load wisp, used, unloaded"
done

[ $failed = 1 ] || echo "ok: module load wisp (Lmod; the Lua and the Tcl module file)"
exit $failed
