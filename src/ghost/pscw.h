/*
 * Post-start-complete-wait on any window (pscw.c): a served window's own
 * implementation, or the MPI's (routes.def).
 */
#ifndef WISP_GHOST_PSCW_H
#define WISP_GHOST_PSCW_H

#include <mpi.h>

#pragma GCC visibility push(hidden)

int wisp_ghost_win_post(MPI_Group group, int assert, MPI_Win win);
int wisp_ghost_win_start(MPI_Group group, int assert, MPI_Win win);
int wisp_ghost_win_complete(MPI_Win win);
int wisp_ghost_win_wait(MPI_Win win);
int wisp_ghost_win_test(MPI_Win win, int *flag);

#pragma GCC visibility pop

#endif
