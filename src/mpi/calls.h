/*
 * wisp's calls into the MPI, the bottom layer. A call of PMPI_X anywhere in
 * wisp above this folder is the MPI's own: gen/pmpi_names.h, forced into
 * every file of libwisp but this folder's and the PMPI_X that libwisp
 * exports for profiling tools (src/wrap/pmpi.h), renames it to
 * wisp_mpi_PMPI_X (gen/calls.c), which calls the MPI's function through
 * `wisp_mpi`. That table is filled with dlsym(RTLD_NEXT, "PMPI_X") once,
 * when libwisp is loaded (the wrapper layer's constructor, src/wrap/tools.c)
 * or at the first call if one comes before (resolve.c). The wrapper layer's
 * tables take the MPI's function itself from `wisp_mpi` where they would
 * hold its wisp_mpi_PMPI_X, so that a call passed on costs one jump.
 */
#ifndef WISP_MPI_CALLS_H
#define WISP_MPI_CALLS_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>

#include "wisp_have.h" /* generated at configure time: WISP_HAVE_MPI_* */

/* Deprecated MPI functions are called like any other. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#pragma GCC visibility push(hidden)

/* The MPI's PMPI_X, found by the dynamic linker after libwisp. */
struct wisp_mpi_functions {
#define WISP_FN(f) __typeof__(P##f) *P##f;
#include "present.def"
#undef WISP_FN
};
extern struct wisp_mpi_functions wisp_mpi;

/* Fill `wisp_mpi`, once (a second call returns at once). */
void wisp_mpi_resolve_once(void);
/* Is `address` in the MPI's library (the MPI calling its own PMPI_X)? */
bool wisp_mpi_in_library(const void *address);

#define WISP_MPI_CALL __attribute__((visibility("hidden")))
#define WISP_MPI(pf)                                                                               \
    (__builtin_expect(wisp_mpi.pf != NULL, 1) ? wisp_mpi.pf                                        \
                                              : (wisp_mpi_resolve_once(), wisp_mpi.pf))

#pragma GCC visibility pop

#endif
