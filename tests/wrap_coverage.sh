#!/usr/bin/env bash
# wrap_coverage.sh MPICC LIBWISP
# Every MPI function that the MPI's mpi.h declares and its library defines
# must be defined and exported by libwisp.so, and nothing else named MPI_*
# may be. Both lists are read here from the preprocessed header and the
# libraries' symbol tables, independently of how the generator and the
# configure-time probe found them.
set -eu
mpicc=$1 lib=$2
declared=$(echo '#include <mpi.h>' | LC_ALL=C "$mpicc" -E -x c - |
    tr ';' '\n' | grep -oE '\bPMPI_[A-Za-z0-9_]+[[:space:]]*\(' | sed -E 's/^P//; s/[[:space:]]*\($//' | sort -u)
mpi_libs=$(ldd "$lib" | awk '$1 ~ /^libmpi/ {print $3}')
defined=$(for l in $mpi_libs; do nm -D --defined-only "$l"; done |
    awk '$3 ~ /^PMPI_/ {print substr($3, 2)}' | sort -u)
# A function that mpi.h also defines as a function-like macro (MPICH 5:
# MPI_Comm_c2f & co.) is left to the MPI (cmake/WispProbeMPI.cmake).
macros=$(echo '#include <mpi.h>' | LC_ALL=C "$mpicc" -E -dM -x c - |
    sed -nE 's/^#define P?(MPI_[A-Za-z0-9_]+)\(.*/\1/p' | sort -u)
# A function outside the MPI standard (Open MPI 5's MPI_Session_set_info) is
# the MPI's own: wisp knows the standard's (src/wrap/gen/mpi_functions.def).
standard=$(sed -nE 's/^WISP_FN\((MPI_[A-Za-z0-9_]+)\).*/\1/p' \
    "$(dirname "$0")/../src/wrap/gen/mpi_functions.def" | sort -u)
extensions=$(comm -12 <(echo "$declared") <(echo "$defined") | comm -23 - <(echo "$standard"))
wrappable=$(comm -12 <(echo "$declared") <(echo "$defined") | comm -23 - <(echo "$macros") |
    comm -12 - <(echo "$standard"))
# (MPI_SEND & co., all capitals, are Fortran entry points: tests/exports.sh)
exported=$(nm -D --defined-only "$lib" | awk '$2 == "T" && $3 ~ /^MPI_/ && $3 !~ /^MPI_[A-Z0-9_]+$/ {print $3}' | sort -u)
missing=$(comm -23 <(echo "$wrappable") <(echo "$exported"))
# Functions of a newer MPI of MPICH's ABI that this mpi.h lacks (Intel MPI's
# MPI-4.1 calls), served by libwisp where a program of that MPI calls them
# (src/wrap/newer.c): exported, though this mpi.h does not declare them.
newer=$(sed -nE 's/^int (MPI_[A-Za-z0-9_]+)\(.*/\1/p' "$(dirname "$0")/../src/wrap/newer.c" | sort -u)
extra=$(comm -13 <(echo "$wrappable") <(echo "$exported") | comm -23 - <(echo "$newer"))
echo "mpi.h declares $(echo "$declared" | wc -l) MPI functions;" \
    "$(echo "$wrappable" | wc -l) of them are defined by $(echo $mpi_libs);" \
    "libwisp exports $(echo "$exported" | wc -l)"
echo "declared but not defined by the MPI (nothing to wrap):" $(comm -23 <(echo "$declared") <(echo "$defined"))
echo "macros in mpi.h (left to the MPI):" $(comm -12 <(echo "$declared") <(echo "$macros"))
echo "not in the MPI standard (left to the MPI):" $extensions
[ -z "$missing" ] || { echo "declared but not wrapped:"; echo "$missing"; }
[ -z "$extra" ] || { echo "wrapped but not declared:"; echo "$extra"; }
[ -z "$missing$extra" ] && [ "$(echo "$wrappable" | wc -l)" -gt 300 ]
