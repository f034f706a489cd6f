/*
 * The application's world: the communicator it sees as MPI_COMM_WORLD. It
 * is the real world until ghost processes are carved out of it
 * (ghost/carve.c sets it at MPI_Init and back at MPI_Finalize); the
 * wrappers translate the application's MPI_COMM_WORLD into it, and the
 * components make their own communicators from it.
 */
#ifndef WISP_CORE_WORLD_H
#define WISP_CORE_WORLD_H

#include <mpi.h>

#pragma GCC visibility push(hidden)

extern MPI_Comm wisp_core_user_world;

static inline MPI_Comm wisp_core_comm_in(MPI_Comm comm)
{
    return comm == MPI_COMM_WORLD ? wisp_core_user_world : comm;
}

#pragma GCC visibility pop

#endif
