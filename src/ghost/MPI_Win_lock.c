/*
 * MPI_Win_lock on a served window: the lock goes to the ghost bound to the
 * target, in the lock window of the target's local index, so that locks on
 * different processes of one node do not exclude each other while locks on
 * one process do (Casper 4.5.1). A lock on oneself must be held when the
 * call returns: see wisp_ghost_self_lock (redirect.c).
 */
#include "ghost/win.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
    struct wisp_ghost_win *w = wisp_ghost_win_find(win);
    if (!w)
        return PMPI_Win_lock(lock_type, rank, assert, win);
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (rank < 0 || rank >= w->size)
        return wisp_ghost_win_error(w, MPI_ERR_RANK);
    if (lock_type != MPI_LOCK_SHARED && lock_type != MPI_LOCK_EXCLUSIVE)
        return PMPI_Win_lock(lock_type, rank, assert, w->win); /* the MPI's own error */
    /* After a fence without MPI_MODE_NOSUCCEED no epoch is open unless another fence follows. */
    if ((w->access != WISP_GHOST_NO_ACCESS && w->access != WISP_GHOST_FENCE &&
         w->access != WISP_GHOST_LOCK) ||
        w->locked[rank])
        return wisp_ghost_win_error(w, MPI_ERR_RMA_SYNC);
    const struct wisp_ghost_target *t = &w->t[rank];
    int rc = MPI_SUCCESS;
    wisp_ghost_epoch_start(w, rank, w->nlock == 0 || (assert &MPI_MODE_NOCHECK));
    if (w->nlock) { /* without lock windows (hints no_locks, epochs_used) locks are no-ops */
        MPI_Win iwin = w->lockwin[t->local];
        rc = PMPI_Win_lock(lock_type, t->ghost, assert, iwin);
        if (rc == MPI_SUCCESS && rank == w->rank)
            rc = wisp_ghost_self_lock(w, lock_type, assert, iwin);
        if (rc == MPI_SUCCESS)
            w->held[t->local]++;
    }
    if (rc == MPI_SUCCESS) {
        w->locked[rank] = (unsigned char)(lock_type + 1);
        w->nlocked++;
        w->access = WISP_GHOST_LOCK;
    }
    return wisp_ghost_win_error(w, rc);
}
