#!/usr/bin/env bash
# exports.sh LIBWISP.SO JEMALLOC.O: libwisp exports only what wisp defines
# (the MPI_* wrappers, wisp.h's wisp_* functions, the malloc family that
# serves from the shared heap, ucp_worker_progress for the ghosts), nothing
# of the jemalloc linked into it; and every global symbol of that jemalloc
# (linked into libwisp.a too) is prefixed wispje_ and hidden, so that it
# cannot become a program's malloc or clash with another jemalloc.
set -u
lib=$1 je=$2
failed=0
allowed='^(MPI_[A-Za-z0-9_]+|wisp_[a-z0-9_]+|malloc|free|calloc|realloc|reallocarray|posix_memalign|aligned_alloc|memalign|valloc|pvalloc|malloc_usable_size|ucp_worker_progress)$'
extra=$(nm -D --defined-only "$lib" | awk '{print $3}' | grep -Ev "$allowed")
[ -z "$extra" ] || { echo "FAIL: $lib exports what wisp does not define:"; echo "$extra" | head -20; failed=1; }
nm -D --defined-only "$lib" | awk '{print $3}' | grep -qx malloc || { echo "FAIL: $lib does not export malloc"; failed=1; }
bad=$(readelf -sW "$je" | awk '$5 == "GLOBAL" || $5 == "WEAK"' | awk '$7 != "UND" && ($6 != "HIDDEN" || $8 !~ /^wispje_/) {print $8, $5, $6}')
[ -z "$bad" ] || { echo "FAIL: jemalloc symbols not prefixed or not hidden:"; echo "$bad" | head -20; failed=1; }
[ $failed = 1 ] || echo "ok: libwisp exports $(nm -D --defined-only "$lib" | wc -l) symbols, all wisp's; jemalloc's are prefixed and hidden"
exit $failed
