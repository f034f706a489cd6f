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
wrappable=$(comm -12 <(echo "$declared") <(echo "$defined"))
# (MPI_SEND & co., all capitals, are Fortran entry points: tests/exports.sh)
exported=$(nm -D --defined-only "$lib" | awk '$2 == "T" && $3 ~ /^MPI_/ && $3 !~ /^MPI_[A-Z0-9_]+$/ {print $3}' | sort -u)
missing=$(comm -23 <(echo "$wrappable") <(echo "$exported"))
extra=$(comm -13 <(echo "$wrappable") <(echo "$exported"))
echo "mpi.h declares $(echo "$declared" | wc -l) MPI functions;" \
    "$(echo "$wrappable" | wc -l) of them are defined by $(echo $mpi_libs);" \
    "libwisp exports $(echo "$exported" | wc -l)"
echo "declared but not defined by the MPI (nothing to wrap):" $(comm -23 <(echo "$declared") <(echo "$defined"))
[ -z "$missing" ] || { echo "declared but not wrapped:"; echo "$missing"; }
[ -z "$extra" ] || { echo "wrapped but not declared:"; echo "$extra"; }
[ -z "$missing$extra" ] && [ "$(echo "$wrappable" | wc -l)" -gt 300 ]
