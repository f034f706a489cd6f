#!/usr/bin/env bash
# find_mpi.sh SOURCE-DIR MPICC
# The build takes its MPI from the C compiler wrapper and reads what the MPI
# is from its mpi.h, never from a name (cmake/WispFindMPI.cmake). Configures
# (configure only, stopping where the MPI is chosen) with wrappers made up
# here, each a script named mpicc beside an mpiexec, over a made-up mpi.h:
#   - an MPI whose mpi.h has none of MPICH_VERSION, OMPI_MAJOR_VERSION,
#     I_MPI_VERSION: stops with one line naming what it found;
#   - the same with MPI_ABI_VERSION (the MPI-5 ABI's mpi_abi.h) but no
#     library that implements it: one line saying which MPI is unknown;
#   - Intel MPI (I_MPI_VERSION, with MPICH's macros too): one line;
#   - a made-up MPICH 9.1.2 named mpicc-foo, with mpiexec-foo beside it:
#     family mpich, version 9.1.2, that launcher, whatever its name;
#   - no mpiexec beside the wrapper: one line;
#   - -DWISP_MPI=openmpi with an MPICH wrapper: one line.
# And the real MPICC (this build's): its family as the build found it.
set -u
src=$1 real=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

# fake NAME MPICC-NAME HEADER-LINES...: $tmp/NAME/bin/MPICC-NAME over $tmp/NAME/include/mpi.h
fake() {
    local dir=$tmp/$1 cc=$2
    shift 2
    mkdir -p "$dir/bin" "$dir/include"
    printf '%s\n' "$@" >"$dir/include/mpi.h"
    printf '#!/bin/sh\nexec cc -I%s "$@"\n' "$dir/include" >"$dir/bin/$cc"
    printf '#!/bin/sh\nexit 0\n' >"$dir/bin/mpiexec${cc#mpicc}"
    chmod +x "$dir/bin/$cc" "$dir/bin/mpiexec${cc#mpicc}"
}
# configure NAME ARGS...: the configure's output; its status in $rc
configure() {
    local name=$1
    shift
    out=$(cmake -S "$src" -B "$tmp/build-$name" -DWISP_TESTS=OFF "$@" 2>&1)
    rc=$?
}
# one_line WHAT PATTERN: the configure failed with one "wisp: ..." line matching PATTERN
one_line() {
    local errors
    errors=$(sed -n '/CMake Error/,/^Call Stack/p' <<<"$out" | sed '1d; $d; /^$/d' | tr -s ' ' | tr -d '\n')
    if [ "$rc" = 0 ]; then
        fail "$1: configure succeeded"
    elif [[ "$errors" =~ $2 ]]; then
        echo "ok: $1: $errors"
    else
        fail "$1: expected an error matching '$2', got: $(echo "$out" | grep -A4 'CMake Error' | head -8)"
    fi
}

fake unknown mpicc '#define MPI_VERSION 4' '#define MPI_SUBVERSION 1'
configure unknown -DMPI_C_COMPILER="$tmp/unknown/bin/mpicc"
one_line "unknown MPI" "^ ?wisp: unknown MPI: $tmp/unknown/bin/mpicc compiles with an mpi.h of MPI 4\.1 with neither MPICH_VERSION"

fake abi mpicc '#define MPI_VERSION 5' '#define MPI_SUBVERSION 0' '#define MPI_ABI_VERSION 1' '#define MPI_ABI_SUBVERSION 0'
configure abi -DMPI_C_COMPILER="$tmp/abi/bin/mpicc"
one_line "the MPI-5 ABI" "^ ?wisp: cannot tell which MPI implements the MPI-5 standard ABI of $tmp/abi/bin/mpicc: a program of MPI_Get_library_version built with it does not build or run"

fake intel mpicc '#define MPI_VERSION 3' '#define MPI_SUBVERSION 1' '#define MPICH_VERSION "3.4a2"' '#define I_MPI_VERSION "2021.19.0"'
configure intel -DMPI_C_COMPILER="$tmp/intel/bin/mpicc"
one_line "Intel MPI" "is Intel MPI 2021\.19\.0 \(I_MPI_VERSION in its mpi\.h\)"

fake nine mpicc-foo '#define MPI_VERSION 5' '#define MPI_SUBVERSION 0' '#define MPICH_VERSION "9.1.2"' 'int PMPI_Send(void);'
configure nine -DMPI_C_COMPILER="$tmp/nine/bin/mpicc-foo"
# (It goes on to find_package(MPI), which this made-up MPI does not pass:
# only what the family probe printed counts here.)
grep -qF -- "-- wisp: the MPI is mpich 9.1.2 ($tmp/nine/bin/mpicc-foo, launcher $tmp/nine/bin/mpiexec-foo)" <<<"$out" &&
    echo "ok: a made-up MPICH 9.1.2 by an odd name: family mpich, its own launcher" ||
    fail "made-up MPICH 9.1.2: $(grep 'wisp' <<<"$out" | head -3)"

rm "$tmp/nine/bin/mpiexec-foo"
configure nine-alone -DMPI_C_COMPILER="$tmp/nine/bin/mpicc-foo"
one_line "no launcher beside the wrapper" "^ ?wisp: no mpiexec beside $tmp/nine/bin/mpicc-foo"

fake mpich mpicc '#define MPI_VERSION 4' '#define MPI_SUBVERSION 0' '#define MPICH_VERSION "4.0.2"'
configure mismatch -DMPI_C_COMPILER="$tmp/mpich/bin/mpicc" -DWISP_MPI=openmpi
one_line "WISP_MPI of the other family" "^ ?wisp: WISP_MPI=openmpi, but $tmp/mpich/bin/mpicc is mpich 4\.0\.2"

configure real -DMPI_C_COMPILER="$real"
line=$(grep -- "-- wisp: the MPI is " <<<"$out")
[ "$rc" = 0 ] && [[ "$line" =~ the\ MPI\ is\ (mpich|openmpi|abi)\ [0-9]+\.[0-9]+ ]] &&
    echo "ok: this build's MPI: ${line#-- }" || fail "this build's MPI ($real): rc=$rc: $line"

exit $failed
