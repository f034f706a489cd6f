#!/usr/bin/env bash
# install_languages.sh BUILD-DIR MPI
# Fortran (mpif77 with mpif.h, mpif90 with `use mpi` and `use mpi_f08`) and
# C++ programs linked with an installed wisp as a user would: pkg-config
# wisp-<mpi> on the MPI's compiler line, and find_package(wisp) (wisp::wisp,
# and the flavored wisp::wisp_<mpi> named after the MPI). gcc links with
# --as-needed and a Fortran program's MPI symbols all come from the MPI's
# Fortran library, so libwisp-<mpi> must be kept in the program's NEEDED by
# wisp's .pc and CMake files (issue 53): each program must need it
# (readelf -d) and, run under the plain mpiexec, answer through wisp
# (WISP_STATS=1 reports).
set -u
build=$1 mpi=$2
src=$(cd "$(dirname "$0")" && pwd)/install_languages
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }
mpiexec=(mpiexec.$mpi -n 2)
[ "$mpi" = mpich ] || mpiexec+=(--oversubscribe --allow-run-as-root)

cmake --install "$build" --prefix "$prefix" >/dev/null || { echo "FAIL: cmake --install"; exit 1; }
libdir=$(dirname "$(find "$prefix" -name "libwisp-$mpi.so" | head -n 1)")
export PKG_CONFIG_PATH="$libdir/pkgconfig"

check() { # NAME PROGRAM: needs libwisp-<mpi>, runs, and wisp reports
    local name=$1 prog=$2 out
    readelf -d "$prog" | grep -q "NEEDED.*\[libwisp-$mpi\.so" ||
        fail "$name: libwisp-$mpi is not in the program's NEEDED (readelf -d: $(readelf -d "$prog" | grep -o 'NEEDED.*' | tr '\n' ' '))"
    out=$(WISP_STATS=1 "${mpiexec[@]}" "$prog" 2>&1)
    [[ "$out" == *"ring: ok"* ]] || fail "$name: the ring does not say ok: $out"
    [[ "$out" == *"stats rank 1:"* ]] || fail "$name: wisp is not active (no WISP_STATS report): $out"
}

# pkg-config on the MPI's compiler wrappers.
pcflags=$(pkg-config --cflags --libs "wisp-$mpi") || fail "pkg-config wisp-$mpi"
n=0
for case in "mpif77 ring.f" "mpif90 ring.f90" "mpif90 ring_f08.f90" "mpicxx ring.cpp"; do
    set -- $case
    out="$prefix/pc_${2//./_}"
    # shellcheck disable=SC2086
    if "$1.$mpi" "$src/$2" -o "$out" $pcflags -Wl,-rpath,"$libdir" >"$prefix/cc.log" 2>&1; then
        check "$1 $2 with pkg-config wisp-$mpi" "$out"
        n=$((n + 1))
    else
        fail "$1.$mpi $2 \$(pkg-config --cflags --libs wisp-$mpi): $(cat "$prefix/cc.log")"
    fi
done

# find_package(wisp) in a Fortran and C++ project.
if cmake -S "$src" -B "$prefix/consumer" -DCMAKE_PREFIX_PATH="$prefix" -DMPI_C_COMPILER="mpicc.$mpi" \
    -DMPI_CXX_COMPILER="mpicxx.$mpi" -DMPI_Fortran_COMPILER="mpif90.$mpi" >"$prefix/cmake.log" 2>&1 &&
    cmake --build "$prefix/consumer" >>"$prefix/cmake.log" 2>&1; then
    for app in ring_f77 ring_f90 ring_f08 ring_cxx; do
        check "find_package(wisp) $app" "$prefix/consumer/$app"
        n=$((n + 1))
    done
else
    fail "find_package(wisp) Fortran and C++ project: $(tail -n 20 "$prefix/cmake.log")"
fi
[ $failed = 1 ] || echo "ok: $n Fortran and C++ programs linked through pkg-config and find_package need libwisp-$mpi and run under wisp"
exit $failed
