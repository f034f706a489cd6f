/* MPI_Win_unlock on a served window: the lock on the target's ghost (and the
 * second lock of a self lock) is released; see MPI_Win_lock.c. */
#include "ghost/win.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Win_unlock(int rank, MPI_Win win)
{
    struct wisp_ghost_win *w = wisp_ghost_win_find(win);
    if (!w)
        return PMPI_Win_unlock(rank, win);
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (rank < 0 || rank >= w->size)
        return wisp_ghost_win_error(w, MPI_ERR_RANK);
    if (w->access != WISP_GHOST_LOCK || !w->locked[rank])
        return wisp_ghost_win_error(w, MPI_ERR_RMA_SYNC);
    const struct wisp_ghost_target *t = &w->t[rank];
    int rc = MPI_SUCCESS;
    if (w->nlock) {
        MPI_Win iwin = w->lockwin[t->local];
        if (rank == w->rank && w->self_locked) {
            rc = PMPI_Win_unlock(w->rank, iwin);
            w->self_locked = false;
        }
        int rc2 = wisp_ghost_unlock_extra(w, rank, iwin);
        rc = rc == MPI_SUCCESS ? rc2 : rc;
        rc2 = PMPI_Win_unlock(t->ghost, iwin);
        rc = rc == MPI_SUCCESS ? rc2 : rc;
        w->held[t->local]--;
    } else {
        rc = wisp_ghost_flush_target(w, rank, w->global,
                                     false); /* the epoch stays open in `global` */
    }
    w->locked[rank] = 0;
    if (--w->nlocked == 0)
        w->access = WISP_GHOST_NO_ACCESS;
    return wisp_ghost_win_error(w, rc);
}
