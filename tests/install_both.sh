#!/usr/bin/env bash
# install_both.sh OPENMPI-BUILD MPICH-BUILD
# Both MPIs' builds installed into one prefix (cmake/WispInstall.cmake), as
# a site installs wisp (`make install`):
# - the two installs, in either order, give the same tree, holding every
#   file of each build's install alone unchanged: flavored files side by
#   side, the shared ones the same from both builds (but lib/pkgconfig/
#   wisp.pc, which asks for a choice once the prefix holds both, and the
#   module files, which name the MPIs the prefix holds);
# - pkg-config: wisp-mpich and wisp-openmpi link programs that run with
#   their MPI's plain mpiexec; plain wisp asks for a choice;
# - find_package(wisp): the library for the MPI the project compiles with
#   (found before, or the default mpicc), for COMPONENTS or WISP_MPI; asking
#   for another MPI than the project's, or for no MPI, fails with a message;
# - the one wisprun: --version names both MPIs; an MPICH and an Open MPI
#   program each run under wisp with its MPI's launcher and library (the
#   heap serves: WISP_VERBOSE=1), and a linked one too; a program that
#   names no MPI is refused unless --mpi names one.
# Registered in the Open MPI build, which finds the MPICH build beside it
# (tests/CMakeLists.txt, WISP_MPICH_BUILD); skipped (77) without it.
set -u
ompi_build=$1 mpich_build=$2
here=$(cd "$(dirname "$0")" && pwd)
for m in mpich openmpi; do
    build=$([ $m = mpich ] && echo "$mpich_build" || echo "$ompi_build")
    [ -n "$build" ] && [ -e "$build/cmake_install.cmake" ] && [ -e "$build/wisprun.d/$m.conf" ] ||
        { echo "SKIP: no $m build tree at '$build' (configure the Open MPI build with -DWISP_MPICH_BUILD=<the MPICH build>)"; exit 77; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; return 1; }
install_into() { # STAGE BUILD...: DESTDIR=STAGE, prefix /opt/wisp-test
    local stage=$1 b
    shift
    for b in "$@"; do
        DESTDIR=$stage cmake --install "$b" --prefix /opt/wisp-test >/dev/null || fail "cmake --install $b into $stage"
    done
}

# The same tree from either order; each install alone kept whole.
install_into "$tmp/m" "$mpich_build"
install_into "$tmp/o" "$ompi_build"
install_into "$tmp/mo" "$mpich_build" "$ompi_build"
install_into "$tmp/om" "$ompi_build" "$mpich_build"
diff -r --no-dereference "$tmp/mo" "$tmp/om" >"$tmp/diff" || fail "the order of the installs matters:"$'\n'"$(head "$tmp/diff")"
(cd "$tmp/m" && find . ! -type d) | sort >"$tmp/m.files"
(cd "$tmp/o" && find . ! -type d) | sort >"$tmp/o.files"
(cd "$tmp/mo" && find . ! -type d) | sort >"$tmp/mo.files"
[ "$(sort -u "$tmp/m.files" "$tmp/o.files")" = "$(cat "$tmp/mo.files")" ] ||
    fail "the two installs together are not the union of each alone:"$'\n'"$(diff <(sort -u "$tmp/m.files" "$tmp/o.files") "$tmp/mo.files")"
shared=0
while read -r f; do
    case $f in # written from what the prefix holds (checked below)
    ./opt/wisp-test/lib/pkgconfig/wisp.pc | ./opt/wisp-test/share/modulefiles/*) continue ;;
    esac
    for alone in m o; do
        [ -e "$tmp/$alone/$f" ] || [ -L "$tmp/$alone/$f" ] || continue
        if [ -L "$tmp/mo/$f" ]; then
            [ "$(readlink "$tmp/mo/$f")" = "$(readlink "$tmp/$alone/$f")" ] || fail "$f: another link than in the $alone install"
        else
            cmp -s "$tmp/mo/$f" "$tmp/$alone/$f" || fail "$f differs from the $alone install's: overwritten"
        fi
    done
    grep -qxF "$f" "$tmp/o.files" && grep -qxF "$f" "$tmp/m.files" && shared=$((shared + 1))
done <"$tmp/mo.files"
echo "both installs: $(wc -l <"$tmp/mo.files") files, $shared of them shared and the same from both builds"
for f in bin/wisp-info-mpich bin/wisp-info-openmpi lib/libwisp-mpich.so lib/libwisp-openmpi.so lib/libwisp-mpich.a \
    lib/libwisp-openmpi.a lib/wisp/mpich.conf lib/wisp/openmpi.conf lib/pkgconfig/wisp-mpich.pc \
    lib/pkgconfig/wisp-openmpi.pc lib/cmake/wisp/mpich/wispTargets.cmake lib/cmake/wisp/openmpi/wispTargets.cmake; do
    [ -e "$tmp/mo/opt/wisp-test/$f" ] || fail "$f not installed"
done
grep -q 'choose-mpich-or-openmpi' "$tmp/mo/opt/wisp-test/lib/pkgconfig/wisp.pc" || fail "wisp.pc does not ask for a choice with both"
# The module files name the MPIs the prefix holds, with their versions
# (from each build's wisp-<mpi>.pc): one alone, both together.
names() { # STAGE: "MPICH 4.0.2 or Open MPI 4.1.4", from its wisprun --version
    "$1/opt/wisp-test/bin/wisprun" --version | sed -n 's/^built for [a-z]* (\([^,]*\),.*/\1/p' | paste -sd '|' | sed 's/|/ or /g'
}
for stage in m o mo; do
    want=$(names "$tmp/$stage")
    case $stage in
    m) [[ "$want" == "MPICH "* ]] && [[ "$want" != *" or "* ]] ;;
    o) [[ "$want" == "Open MPI "* ]] && [[ "$want" != *" or "* ]] ;;
    mo) [[ "$want" == "MPICH "*" or Open MPI "* ]] ;;
    esac || fail "the $stage install's wisprun --version names: $want"
    v=$("$tmp/$stage/opt/wisp-test/bin/wisprun" --version | sed -n '1s/^wisp \([^ ]*\).*/\1/p')
    for f in "lmod/wisp/$v.lua" "tcl/wisp/$v"; do
        got=$(grep -c "^For programs of $want\.\$\|for programs of $want (wisprun" "$tmp/$stage/opt/wisp-test/share/modulefiles/$f")
        [ "$got" = 2 ] || fail "the $stage install's module file $f does not name $want in its help and description:"$'\n'"$(cat "$tmp/$stage/opt/wisp-test/share/modulefiles/$f")"
    done
done

# A real prefix with both, for use.
prefix=$tmp/prefix
for b in "$mpich_build" "$ompi_build"; do
    cmake --install "$b" --prefix "$prefix" >/dev/null || fail "cmake --install $b --prefix $prefix"
done
lib=$prefix/lib
for m in mpich openmpi; do
    "mpicc.$m" "$here/install/hello.c" -o "$tmp/hello_$m" || fail "mpicc.$m"
done
mpiexec_of() { # MPI: its plain launcher, as the tests run it
    if [ "$1" = mpich ]; then echo "mpiexec.mpich -n 2"; else echo "mpiexec.openmpi -n 2 --oversubscribe --allow-run-as-root"; fi
}

# pkg-config
export PKG_CONFIG_PATH=$lib/pkgconfig
for m in mpich openmpi; do
    libs=$(pkg-config --libs "wisp-$m") || fail "pkg-config wisp-$m"
    mpilib=$([ $m = mpich ] && echo -lmpich || echo -lmpi)
    [[ " $libs " == *" -lwisp-$m "*" $mpilib "* ]] || fail "pkg-config --libs wisp-$m: $libs"
    [ "$(pkg-config --define-variable=mpi=$m --libs wisp)" = "$libs" ] || fail "pkg-config --define-variable=mpi=$m wisp"
    # shellcheck disable=SC2046
    "mpicc.$m" "$here/install/app.c" -o "$tmp/app_pc_$m" $(pkg-config --cflags --libs "wisp-$m") -Wl,-rpath,"$lib" ||
        fail "build with pkg-config wisp-$m"
    # shellcheck disable=SC2046
    out=$($(mpiexec_of $m) "$tmp/app_pc_$m") && [[ "$out" == "linked: ok"* ]] || fail "pkg-config wisp-$m program: $out"
done
out=$(pkg-config --libs wisp 2>&1) && fail "pkg-config wisp with both MPIs chose one: $out"
grep -q "wisp-choose-mpich-or-openmpi" <<<"$out" || fail "pkg-config wisp with both MPIs: $out"

# find_package(wisp): configure tests/install as a project.
consumer() { # NAME CMAKE-ARGS...: configure; the MPI picked, or "error: <message>"
    local dir=$tmp/consumer-$1 out
    shift
    if out=$(cmake -S "$here/install" -B "$dir" -DCMAKE_PREFIX_PATH="$prefix" "$@" 2>&1); then
        cat "$dir/wisp_mpi.txt"
    else
        echo "error: $(tr '\n' ' ' <<<"$out" | tr -s ' ')"
    fi
}
# The default mpicc's MPI (Debian: the mpi alternative), from its mpi.h.
defines=$(printf '#include <mpi.h>\n' | mpicc -E -dM -x c - 2>/dev/null)
if grep -q '^#define MPICH_VERSION ' <<<"$defines"; then
    default_mpi=mpich
elif grep -q '^#define OMPI_MAJOR_VERSION ' <<<"$defines"; then
    default_mpi=openmpi
else
    default_mpi=""
fi
for m in mpich openmpi; do
    got=$(consumer "first-$m" -DMPI_FIRST=ON -DMPI_C_COMPILER="mpicc.$m")
    [ "$got" = "$m" ] || fail "find_package(MPI) with mpicc.$m, then find_package(wisp): $got"
    cmake --build "$tmp/consumer-first-$m" >/dev/null || fail "build with find_package(wisp), $m"
    ldd "$tmp/consumer-first-$m/app_shared" | grep -q "libwisp-$m\.so\.0 => $lib/" || fail "find_package(wisp), $m: not linked with libwisp-$m"
    for app in app_shared app_static; do
        # shellcheck disable=SC2046
        out=$($(mpiexec_of $m) "$tmp/consumer-first-$m/$app") && [[ "$out" == "linked: ok"* ]] || fail "$m $app: $out"
    done
    got=$(consumer "component-$m" -DCOMPONENT=$m)
    [ "$got" = "$m" ] || fail "find_package(wisp COMPONENTS $m): $got"
    got=$(consumer "variable-$m" -DWISP_MPI=$m)
    [ "$got" = "$m" ] || fail "find_package(wisp) with WISP_MPI=$m: $got"
done
if [ -n "$default_mpi" ]; then
    got=$(consumer default)
    [ "$got" = "$default_mpi" ] || fail "find_package(wisp) with nothing said (mpicc is $default_mpi's): $got"
else
    echo "(no default mpicc: the default case is not checked)"
fi
got=$(consumer mismatch -DMPI_FIRST=ON -DMPI_C_COMPILER=mpicc.openmpi -DCOMPONENT=mpich)
[[ "$got" == "error: "*"COMPONENTS mpich asks for the library for mpich, but the project compiles with openmpi"* ]] ||
    fail "COMPONENTS mpich with Open MPI's compiler: $got"
got=$(consumer bogus -DCOMPONENT=bogus)
[[ "$got" == "error: "*"no component 'bogus'"* ]] || fail "COMPONENTS bogus: $got"

# The one wisprun.
wisprun=$prefix/bin/wisprun
version=$("$wisprun" --version)
[[ "$version" == "wisp "*$'\n'"built for mpich (MPICH "*$'\n'"built for openmpi (Open MPI "* ]] &&
    [ "$(wc -l <<<"$version")" = 3 ] || fail "wisprun --version with both: $version"
for m in mpich openmpi; do
    [ "$("$wisprun" --mpi $m --version)" = "$("$prefix/bin/wisp-info-$m" --version)" ] || fail "wisprun --mpi $m --version"
    "$wisprun" --help | grep -q "^  $m .*mpiexec\.$m, $lib/libwisp-$m\.so" || fail "wisprun --help does not list $m"
    out=$("$wisprun" --env WISP_VERBOSE=1 -n 2 "$tmp/hello_$m" 2>"$tmp/err")
    status=$?
    name=$([ $m = mpich ] && echo MPICH || echo "Open MPI")
    [ $status = 0 ] && [ "$out" = "hello: $name, 2 processes: ok" ] || fail "wisprun $m program, exit $status: $out"$'\n'"$(cat "$tmp/err")"
    [ "$(grep -c '^wisp\[0\]: shared heap at 0x[0-9a-f]*: 2 partitions' "$tmp/err")" = 1 ] ||
        fail "wisprun $m program: no line saying that the heap serves:"$'\n'"$(cat "$tmp/err")"
    dry=$("$wisprun" --dry-run -n 2 "$tmp/hello_$m")
    [[ "$dry" == *"mpiexec.$m "*"LD_PRELOAD"*"$lib/libwisp-$m.so"* ]] || fail "wisprun --dry-run, $m program: $dry"
    out=$("$wisprun" -n 2 "$tmp/app_pc_$m") && [[ "$out" == "linked: ok"* ]] || fail "wisprun, $m program linked with wisp: $out"
    dry=$("$wisprun" --mpi $m --dry-run sh -c true) && [[ "$dry" == *"mpiexec.$m "* ]] || fail "wisprun --mpi $m sh: $dry"
done
out=$("$wisprun" --dry-run sh -c true 2>&1)
[ $? = 2 ] && [[ "$out" == "wisprun: cannot tell which MPI 'sh' is for (no MPI library needed by: "*"); give --mpi mpich or --mpi openmpi" ]] ||
    fail "a program that names no MPI, with both: $out"

[ $failed = 1 ] || echo "ok: both MPIs' builds in one prefix"
exit $failed
