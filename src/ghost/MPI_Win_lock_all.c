/*
 * MPI_Win_lock_all on a served window. Another origin may hold an exclusive
 * lock on one of the targets, in that target's lock window, which a lock_all
 * in another window would not see: so the epoch becomes a shared lock on
 * every target's ghost in the target's lock window (Casper 4.5.4.3), with
 * the self-lock rule for the calling process. With MPI_MODE_NOCHECK (no
 * conflicting lock can exist) or without lock windows it lives in the
 * `global` window, which is always in a lock_all epoch.
 */
#include "ghost/win.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Win_lock_all(int assert, MPI_Win win)
{
    struct wisp_ghost_win *w = wisp_ghost_win_find(win);
    if (!w)
        return PMPI_Win_lock_all(assert, win);
    /* After a fence without MPI_MODE_NOSUCCEED no epoch is open unless another fence follows. */
    if (w->access != WISP_GHOST_NO_ACCESS && w->access != WISP_GHOST_FENCE)
        return wisp_ghost_win_error(w, MPI_ERR_RMA_SYNC);
    int rc = MPI_SUCCESS;
    w->lock_all_global = w->nlock == 0 || (assert &MPI_MODE_NOCHECK);
    wisp_ghost_epoch_start(w, -1, w->lock_all_global);
    if (w->lock_all_global) {
        rc = PMPI_Win_sync(w->global);
    } else {
        for (int r = 0; r < w->size && rc == MPI_SUCCESS; r++) {
            const struct wisp_ghost_target *t = &w->t[r];
            rc = PMPI_Win_lock(MPI_LOCK_SHARED, t->ghost, assert, w->lockwin[t->local]);
            if (rc == MPI_SUCCESS)
                w->held[t->local]++;
        }
        if (rc == MPI_SUCCESS)
            rc = wisp_ghost_self_lock(w, MPI_LOCK_SHARED, assert, w->lockwin[w->t[w->rank].local]);
    }
    w->access = WISP_GHOST_LOCK_ALL;
    return wisp_ghost_win_error(w, rc);
}
