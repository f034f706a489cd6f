#!/usr/bin/env bash
# install.sh BUILD-DIR MPI
# `cmake --install` of this build alone into a scratch prefix, then use wisp
# as a user would: pkg-config (wisp-<mpi>, and plain wisp, which names the
# prefix's only MPI) with -lwisp-<mpi> (shared), find_package(wisp) with the
# shared and the static library, the installed wisprun (and its --version)
# and the manual pages, found by man in the prefix. Linked programs run
# under the plain mpiexec: wisp must be active without LD_PRELOAD. (Both
# MPIs in one prefix: install_both.sh.)
set -u
build=$1 mpi=$2
src=$(cd "$(dirname "$0")" && pwd)/install
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }
mpiexec=(mpiexec.$mpi -n 2)
[ "$mpi" = mpich ] || mpiexec+=(--oversubscribe --allow-run-as-root)

cmake --install "$build" --prefix "$prefix" >/dev/null || fail "cmake --install"
for f in include/wisp.h bin/wisprun "bin/wisp-info-$mpi" share/man/man1/wisprun.1 share/man/man7/wisp.7; do
    [ -e "$prefix/$f" ] || fail "$f not installed"
done
compgen -G "$prefix/share/modulefiles/lmod/wisp/*.lua" >/dev/null || fail "no Lmod module file installed"
compgen -G "$prefix/share/modulefiles/tcl/wisp/*" >/dev/null || fail "no Tcl module file installed"
libdir=$(dirname "$(find "$prefix" -name "libwisp-$mpi.so" | head -n 1)")
[ -e "$libdir/libwisp-$mpi.a" ] || fail "libwisp-$mpi.a not installed"
[ -e "$libdir/wisp/$mpi.conf" ] || fail "wisprun's $mpi.conf not installed"
leftover=$(find "$prefix" -name 'libwisp.*' -o -name wisp-info)
[ -z "$leftover" ] || fail "files not named for their MPI: $leftover"

export PKG_CONFIG_PATH="$libdir/pkgconfig"
[ "$(pkg-config --libs wisp)" = "$(pkg-config --libs "wisp-$mpi")" ] ||
    fail "pkg-config wisp is not wisp-$mpi in a prefix with $mpi alone: $(pkg-config --libs wisp 2>&1)"
for pc in wisp "wisp-$mpi"; do
    # shellcheck disable=SC2046
    "mpicc.$mpi" "$src/app.c" -o "$prefix/app_pc" $(pkg-config --cflags --libs $pc) -Wl,-rpath,"$libdir" ||
        fail "build with pkg-config $pc"
    out=$("${mpiexec[@]}" "$prefix/app_pc") && [[ "$out" == "linked: ok"* ]] || fail "pkg-config $pc program: $out"
done

cmake -S "$src" -B "$prefix/consumer" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null &&
    cmake --build "$prefix/consumer" >/dev/null || fail "find_package(wisp) build"
ldd "$prefix/consumer/app_shared" | grep -q "libwisp-$mpi\.so\.0 => $libdir/" ||
    fail "find_package(wisp): app_shared does not need the installed libwisp-$mpi.so.0"
for app in app_shared app_static; do
    out=$("${mpiexec[@]}" "$prefix/consumer/$app") && [[ "$out" == "linked: ok"* ]] || fail "$app: $out"
done
dry=$("$prefix/bin/wisprun" --dry-run -n 2 ./app)
[[ "$dry" == *"LD_PRELOAD"*"$libdir/libwisp-$mpi.so"* ]] || fail "installed wisprun does not preload the installed library: $dry"
out=$("$prefix/bin/wisprun" -n 2 "$prefix/consumer/app_shared") && [[ "$out" == "linked: ok"* ]] ||
    fail "installed wisprun: $out"
"$prefix/bin/wisprun" --help-env | grep -q '^WISP_STATS' || fail "installed wisprun --help-env"
version=$("$prefix/bin/wisprun" --version)
[[ "$version" == "wisp "*$'\n'"built for $mpi ("* ]] || fail "installed wisprun --version: $version"
# man, told only the prefix's share/man (as a module sets MANPATH), finds
# both pages there and shows wisp(7) with the variables.
for page in "1 wisprun" "7 wisp"; do
    # shellcheck disable=SC2086
    found=$(man -M "$prefix/share/man" -w $page 2>&1)
    [ "$found" = "$prefix/share/man/man${page% *}/${page#* }.${page% *}" ] || fail "man -w $page in the prefix: $found"
done
MANPATH="$prefix/share/man" MANWIDTH=80 man 7 wisp 2>/dev/null | grep -q '^ *WISP_VNODE_SIZE$' ||
    fail "man wisp (MANPATH=$prefix/share/man) does not show WISP_VNODE_SIZE"
[ $failed = 1 ] || echo "ok: installed to a scratch prefix and used through pkg-config, find_package, wisprun, man"
exit $failed
