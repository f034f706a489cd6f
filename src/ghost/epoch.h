/*
 * Access epochs of any window but PSCW (epoch.c): locks, lock_all, fences,
 * MPI_Win_sync and MPI_Win_flush_all; a served window's own implementation,
 * or the MPI's (routes.def).
 */
#ifndef WISP_GHOST_EPOCH_H
#define WISP_GHOST_EPOCH_H

#include <mpi.h>
#include <stdbool.h>

#include "ghost/served.h"

#pragma GCC visibility push(hidden)

/* MPI_Win_lock and MPI_Win_unlock on a served window. */
int wisp_ghost_lock(struct wisp_ghost_win *w, int lock_type, int rank, int assert);
int wisp_ghost_unlock(struct wisp_ghost_win *w, int rank);

/* The same functions on any window. */
int wisp_ghost_win_lock(int lock_type, int rank, int assert, MPI_Win win);
int wisp_ghost_win_unlock(int rank, MPI_Win win);
int wisp_ghost_win_lock_all(int assert, MPI_Win win);
int wisp_ghost_win_unlock_all(MPI_Win win);
int wisp_ghost_win_fence(int assert, MPI_Win win);
int wisp_ghost_win_sync(MPI_Win win);
int wisp_ghost_win_flush_all(MPI_Win win, bool local);

#pragma GCC visibility pop

#endif
