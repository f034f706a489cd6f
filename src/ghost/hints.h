/* The info hints of a served window (hints.c). */
#ifndef WISP_GHOST_HINTS_H
#define WISP_GHOST_HINTS_H

#include <mpi.h>
#include <stdbool.h>

#pragma GCC visibility push(hidden)

struct wisp_ghost_hints {
    bool locks;               /* MPI_Win_lock may come: lock windows are needed */
    bool no_local_load_store; /* no load/store on the local memory */
    bool noncontig;           /* alloc_shared_noncontig: each process's part apart */
};

/* The hints of `info` (MPI_INFO_NULL: none); `say`: log what is not understood. */
struct wisp_ghost_hints wisp_ghost_read_hints(MPI_Info info, bool say);

#pragma GCC visibility pop

#endif
