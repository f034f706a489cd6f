/*
 * wisp beside other profiling-interface tools (docs/launch.md). libwisp
 * exports PMPI_X as well as MPI_X. A tool ahead of it (LD_PRELOAD=tool:
 * libwisp) calls PMPI_X from its MPI_X, which reaches wisp; for one after
 * it, wisp's MPI_X jumps to the tool's (its slot of wisp_entry holds the
 * tool's, found in wisp_next), whose PMPI_X reaches wisp. The exported
 * PMPI_X (gen/pmpi.c) serve through wisp_serve. Without a tool they go
 * straight to the MPI, as do the MPI's calls of its own PMPI_X (ROMIO, say)
 * when there is one. wisp's own calls of PMPI_X go to the MPI through the
 * bottom layer (src/mpi/calls.h).
 */
#ifndef WISP_WRAP_PMPI_H
#define WISP_WRAP_PMPI_H

#include <stdbool.h>

#include "mpi/calls.h"
#include "wrap/wrap.h"

#pragma GCC visibility push(hidden)

/* A tool found either way: the exported PMPI_X serve as MPI_X does
 * (tools.c, at load). */
extern bool wisp_pmpi_serves;

#define WISP_PMPI_STRAIGHT() (!wisp_pmpi_serves || wisp_mpi_in_library(__builtin_return_address(0)))

#pragma GCC visibility pop

#endif
