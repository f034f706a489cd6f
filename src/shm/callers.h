/*
 * The MPI's own code (callers.c): the callers whose allocations the shared
 * heap leaves to glibc (WISP_HEAP_MPI).
 */
#ifndef WISP_SHM_CALLERS_H
#define WISP_SHM_CALLERS_H

#include <stdbool.h>

#pragma GCC visibility push(hidden)

/* At MPI_Init, after the MPI's own start: find the MPI's objects. */
void wisp_shm_callers_init(void);

/* Is the code at `caller` the MPI's? */
bool wisp_shm_caller_is_mpi(const void *caller);

#pragma GCC visibility pop

#endif
