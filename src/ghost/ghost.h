/*
 * Ghost processes: WISP_GHOSTS processes of every node that the application
 * never sees. They are set aside at MPI_Init, and the application's
 * MPI_COMM_WORLD becomes the communicator of the other processes (the
 * wrappers translate it everywhere). Ghosts serve the windows of
 * MPI_Win_allocate(_shared) (win.h, serve.c) until the application
 * finalizes.
 */
#ifndef WISP_GHOST_GHOST_H
#define WISP_GHOST_GHOST_H

#include <mpi.h>

#pragma GCC visibility push(hidden)

/* Collective over MPI_COMM_WORLD, with wisp_topo describing it. The last
 * `ghosts` node ranks of every node become ghosts: in them this function
 * never returns (they wait, then finalize and exit). In the others it
 * returns the communicator of all non-ghost processes, in world order. */
MPI_Comm wisp_ghost_carve(int ghosts);

/* The component's start (core/component.h): with WISP_GHOSTS, carve the
 * ghosts out, make the rest the application's world and narrow the
 * topology to it. */
void wisp_ghost_start(int thread_level);

/* In MPI_Finalize of the application's processes, before the underlying
 * MPI_Finalize: let this node's ghosts finalize too, and free the
 * application's world (MPI_COMM_WORLD is the real one again). */
void wisp_ghost_release(void);

/* Total ghosts of the job (0 without ghosts). */
int wisp_ghost_count(void);

#pragma GCC visibility pop

#endif
