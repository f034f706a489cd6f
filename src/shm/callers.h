/*
 * The MPI's own code (callers.c): the callers whose allocations the shared
 * heap leaves to glibc (WISP_HEAP_MPI).
 */
#ifndef WISP_SHM_CALLERS_H
#define WISP_SHM_CALLERS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/* At MPI_Init, after the MPI's own start: find the MPI's objects. */
void wisp_shm_callers_init(void);

/* Is the code at `caller` the MPI's? */
bool wisp_shm_caller_is_mpi(const void *caller);

/* Allocations of the MPI's code left to glibc, counted with WISP_STATS. */
extern _Atomic uint64_t wisp_shm_mpi_allocations;

#pragma GCC visibility pop

#endif
