#!/usr/bin/env bash
# exports.sh LIBWISP.SO JEMALLOC.O [MPI-FORTRAN-LIB...]: libwisp exports only
# what wisp defines (the MPI_* wrappers, the PMPI_* entries that profiling
# tools call, wisp.h's wisp_* functions, the malloc family that serves from
# the shared heap, sigaction and signal (the heap's SIGBUS, src/shm/fault.c),
# ucp_worker_progress for the ghosts, __cxa_atexit for the MPI's exit
# handlers that a ghost runs (src/core/mpi_exit.c), ompt_start_tool for
# the datatype engine's idle threads (src/team/ompt.c), the Fortran entry
# points), nothing of the jemalloc linked into it; every Fortran entry point
# (ompi_x_f, mpi_x_, mpi_x__, mpi_x, MPI_X, mpi_x_f08_) is a symbol that the
# MPI's own Fortran libraries export, so that wisp interposes theirs and
# adds no name (docs/fortran.md); and every global symbol of that jemalloc
# (linked into libwisp.a too) is prefixed wispje_ and hidden, so that it
# cannot become a program's malloc or clash with another jemalloc.
set -u
lib=$1 je=$2
shift 2
failed=0
allowed='^(MPI_[A-Za-z0-9_]+|PMPI_[A-Za-z0-9_]+|wisp_[a-z0-9_]+|ompi_[a-z0-9_]+_f|mpi_[a-z0-9_]+|malloc|free|calloc|realloc|reallocarray|posix_memalign|aligned_alloc|memalign|valloc|pvalloc|malloc_usable_size|sigaction|signal|ucp_worker_progress|__cxa_atexit|ompt_start_tool)$'
extra=$(nm -D --defined-only "$lib" | awk '{print $3}' | grep -Ev "$allowed")
[ -z "$extra" ] || { echo "FAIL: $lib exports what wisp does not define:"; echo "$extra" | head -20; failed=1; }
fortran=$(nm -D --defined-only "$lib" | awk '{print $3}' | grep -E '^(ompi_[a-z0-9_]+_f|mpi_[a-z0-9_]+|MPI_[A-Z0-9_]+)$' | sort)
theirs=$(for f in "$@"; do nm -D --defined-only "$f" | awk '{print $3}'; done | sort -u)
foreign=$(comm -23 <(echo "$fortran") <(echo "$theirs") | grep .)
[ -z "$foreign" ] || { echo "FAIL: Fortran symbols that the MPI's Fortran libraries ($*) do not export:"; echo "$foreign" | head -20; failed=1; }
echo "libwisp defines $(grep -c . <<<"$fortran") Fortran entry points"
nm -D --defined-only "$lib" | awk '{print $3}' | grep -qx malloc || { echo "FAIL: $lib does not export malloc"; failed=1; }
bad=$(readelf -sW "$je" | awk '$5 == "GLOBAL" || $5 == "WEAK"' | awk '$7 != "UND" && ($6 != "HIDDEN" || $8 !~ /^wispje_/) {print $8, $5, $6}')
[ -z "$bad" ] || { echo "FAIL: jemalloc symbols not prefixed or not hidden:"; echo "$bad" | head -20; failed=1; }
[ $failed = 1 ] || echo "ok: libwisp exports $(nm -D --defined-only "$lib" | wc -l) symbols, all wisp's; jemalloc's are prefixed and hidden"
exit $failed
