/* Error handlers that the program sets on MPI_COMM_WORLD see MPI_COMM_WORLD,
 * not the application's world carved out of it (errhandler.c). */
#ifndef WISP_GHOST_ERRHANDLER_H
#define WISP_GHOST_ERRHANDLER_H

#include <mpi.h>
#include <stdbool.h>

#include "wisp_have.h"

#pragma GCC visibility push(hidden)

/* In the application's processes while ghosts are set aside (on), and at
 * MPI_Finalize (off): whether handlers created from now on translate. */
void wisp_ghost_errhandlers_translate(bool on);

/* MPI_Comm_create_errhandler and MPI_Errhandler_create (MPI-1, still in
 * MPICH): through the trampoline while translating. */
int wisp_ghost_comm_create_errhandler(MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler);
#ifdef WISP_HAVE_MPI_Errhandler_create
int wisp_ghost_errhandler_create(MPI_Handler_function *fn, MPI_Errhandler *errhandler);
#endif

/* MPI_Comm_set_errhandler and MPI_Errhandler_set: a handler set on the
 * application's world is set on the real MPI_COMM_WORLD too. */
int wisp_ghost_comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler);

#pragma GCC visibility pop

#endif
