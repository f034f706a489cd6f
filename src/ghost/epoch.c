/*
 * Lock epochs on one target of a served window (MPI_Win_lock, MPI_Win_unlock).
 *
 * The lock goes to the ghost bound to the target, in the lock window of the
 * target's local index, so that locks on different processes of one node do
 * not exclude each other while locks on one process do (Casper 4.5.1). A
 * lock on oneself must be held when the call returns: see
 * wisp_ghost_self_lock (redirect.c). A window created with a hint that no
 * lock will come has no lock windows, and there a lock would not exclude
 * anything: it fails with MPI_ERR_RMA_SYNC, as an epoch the window cannot
 * have.
 */
#include "ghost/win.h"

/* After a fence without MPI_MODE_NOSUCCEED no epoch is open unless another fence follows. */
static bool may_lock(const struct wisp_ghost_win *w, int rank)
{
    bool other_epoch = w->access != WISP_GHOST_NO_ACCESS && w->access != WISP_GHOST_FENCE &&
                       w->access != WISP_GHOST_LOCK;
    return w->nlock > 0 && !other_epoch && !w->locked[rank];
}

int wisp_ghost_lock(struct wisp_ghost_win *w, int lock_type, int rank, int assert)
{
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (rank < 0 || rank >= w->size)
        return wisp_ghost_win_error(w, MPI_ERR_RANK);
    if (lock_type != MPI_LOCK_SHARED && lock_type != MPI_LOCK_EXCLUSIVE)
        return PMPI_Win_lock(lock_type, rank, assert, w->win); /* the MPI's own error */
    if (!may_lock(w, rank))
        return wisp_ghost_win_error(w, MPI_ERR_RMA_SYNC);
    const struct wisp_ghost_target *t = &w->t[rank];
    MPI_Win iwin = w->lockwin[t->local];
    wisp_ghost_epoch_start(w, rank, assert &MPI_MODE_NOCHECK);
    int rc = PMPI_Win_lock(lock_type, t->ghost, assert, iwin);
    if (rc == MPI_SUCCESS && rank == w->rank)
        rc = wisp_ghost_self_lock(w, lock_type, assert, iwin);
    if (rc == MPI_SUCCESS) {
        w->held[t->local]++;
        w->locked[rank] = (unsigned char)(lock_type + 1);
        w->nlocked++;
        w->access = WISP_GHOST_LOCK;
    }
    return wisp_ghost_win_error(w, rc);
}

int wisp_ghost_unlock(struct wisp_ghost_win *w, int rank)
{
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (rank < 0 || rank >= w->size)
        return wisp_ghost_win_error(w, MPI_ERR_RANK);
    if (w->access != WISP_GHOST_LOCK || !w->locked[rank])
        return wisp_ghost_win_error(w, MPI_ERR_RMA_SYNC);
    const struct wisp_ghost_target *t = &w->t[rank];
    MPI_Win iwin = w->lockwin[t->local];
    int rc = MPI_SUCCESS;
    if (rank == w->rank && w->self_locked) {
        rc = PMPI_Win_unlock(w->rank, iwin);
        w->self_locked = false;
    }
    int rc2 = wisp_ghost_unlock_extra(w, rank, iwin);
    rc = rc == MPI_SUCCESS ? rc2 : rc;
    rc2 = PMPI_Win_unlock(t->ghost, iwin);
    rc = rc == MPI_SUCCESS ? rc2 : rc;
    w->held[t->local]--;
    w->locked[rank] = 0;
    if (--w->nlocked == 0)
        w->access = WISP_GHOST_NO_ACCESS;
    return wisp_ghost_win_error(w, rc);
}
