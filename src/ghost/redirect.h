/*
 * One-sided operations and flushes on any window, redirected to the ghosts
 * on a served one (redirect.c); what the epochs (epoch.c, pscw.c) take from
 * them.
 */
#ifndef WISP_GHOST_REDIRECT_H
#define WISP_GHOST_REDIRECT_H

#include <mpi.h>
#include <stdbool.h>

#include "ghost/issue.h"
#include "ghost/served.h"

#pragma GCC visibility push(hidden)

/* Any one-sided operation on `win`: the MPI's own when the window is not
 * served, else redirected to the ghosts. */
int wisp_ghost_rma(MPI_Win win, const struct wisp_ghost_op *op);

/* Where an operation on target `rank` (valid, not MPI_PROC_NULL) goes in this
 * origin's current epoch: the internal window, or MPI_ERR_RMA_SYNC. */
int wisp_ghost_epoch_window(struct wisp_ghost_win *w, int rank, MPI_Win *iwin);

/* MPI_Win_flush (local false) or MPI_Win_flush_local on any window. */
int wisp_ghost_flush(MPI_Win win, int rank, bool local);

/* The same on a served window, in `iwin`, without the error handler. */
int wisp_ghost_flush_target(struct wisp_ghost_win *w, int rank, MPI_Win iwin, bool local);

/* MPI_Win_flush_all / _local_all on a served window. */
int wisp_ghost_flush_all(struct wisp_ghost_win *w, bool local);

/* The lock of a self lock after the lock on one's ghost in `iwin`: waits until
 * the MPI holds it, then locks oneself (see redirect.c). */
int wisp_ghost_self_lock(struct wisp_ghost_win *w, int lock_type, int assert, MPI_Win iwin);

/* The ranks in the window of the processes of `group` (n of them); false when
 * one is not in the window. */
bool wisp_ghost_group_ranks(struct wisp_ghost_win *w, MPI_Group group, int *n, int *ranks);

#pragma GCC visibility pop

#endif
