/*
 * wisp beside other profiling-interface tools (docs/launch.md). libwisp
 * exports PMPI_X as well as MPI_X. A tool ahead of it (LD_PRELOAD=tool:
 * libwisp) calls PMPI_X from its MPI_X, which reaches wisp; for one after
 * it, wisp's MPI_X jumps to the tool's (its slot of wisp_entry holds the
 * tool's, found in wisp_next), whose PMPI_X reaches wisp. The exported
 * PMPI_X serve through wisp_serve. Without a tool they go straight to the
 * MPI, as do the MPI's calls of its own PMPI_X (ROMIO, say) when there is
 * one. wisp's own calls of PMPI_X go to the MPI through wisp_mpi
 * (gen/pmpi_names.h renames them to wisp_mpi_PMPI_X, gen/pmpi.c).
 */
#ifndef WISP_WRAP_PMPI_H
#define WISP_WRAP_PMPI_H

#include <stdbool.h>
#include <stddef.h>

#include "wrap/wrap.h"

#pragma GCC visibility push(hidden)

/* The MPI's PMPI_X, found by the dynamic linker after libwisp. */
struct wisp_mpi_functions {
#define WISP_FN(f) __typeof__(P##f) *P##f;
#include "present.def"
#undef WISP_FN
};
extern struct wisp_mpi_functions wisp_mpi;

/* A tool found either way: the exported PMPI_X serve as MPI_X does. */
extern bool wisp_pmpi_serves;

/* Fill wisp_mpi and wisp_next (gen/pmpi.c); once, at load (tools.c). */
void wisp_pmpi_resolve(void);
void wisp_pmpi_resolve_once(void);
/* For wisp_pmpi_resolve, in tools.c: the MPI's function `pname`
 * (PMPI_X); and a tool's `name` (MPI_X) after libwisp, or NULL, noting one
 * ahead of it too. */
void *wisp_tools_mpi(const char *pname);
void *wisp_tools_next(const char *name, const void *mpi_function);
/* Is `caller` in the MPI's library (its own call of PMPI_X)? */
bool wisp_pmpi_from_mpi(const void *caller);

#define WISP_MPI_CALL __attribute__((visibility("hidden")))
#define WISP_MPI(pf)                                                                               \
    (__builtin_expect(wisp_mpi.pf != NULL, 1) ? wisp_mpi.pf                                        \
                                              : (wisp_pmpi_resolve_once(), wisp_mpi.pf))
#define WISP_PMPI_STRAIGHT() (!wisp_pmpi_serves || wisp_pmpi_from_mpi(__builtin_return_address(0)))
#define WISP_PMPI_RESOLVE(f)                                                                       \
    do {                                                                                           \
        wisp_mpi.P##f = (__typeof__(wisp_mpi.P##f))wisp_tools_mpi("P" #f);                         \
        wisp_next.f = (__typeof__(wisp_next.f))wisp_tools_next(#f, (const void *)wisp_mpi.P##f);   \
    } while (0)

#pragma GCC visibility pop

#endif
