/* MPI_Win_unlock_all on a served window: see MPI_Win_lock_all.c. */
#include "ghost/win.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Win_unlock_all(MPI_Win win)
{
    struct wisp_ghost_win *w = wisp_ghost_win_find(win);
    if (!w)
        return PMPI_Win_unlock_all(win);
    if (w->access != WISP_GHOST_LOCK_ALL)
        return wisp_ghost_win_error(w, MPI_ERR_RMA_SYNC);
    int rc = MPI_SUCCESS;
    if (w->lock_all_global) {
        /* The epoch stays open in `global`: complete this origin's operations. */
        rc = PMPI_Win_flush_all(w->global);
        int rc2 = PMPI_Win_sync(w->global);
        rc = rc == MPI_SUCCESS ? rc2 : rc;
    } else {
        const struct wisp_ghost_target *me = &w->t[w->rank];
        if (w->self_locked) {
            rc = PMPI_Win_unlock(w->rank, w->lockwin[me->local]);
            w->self_locked = false;
        }
        for (int r = 0; r < w->size; r++) {
            const struct wisp_ghost_target *t = &w->t[r];
            int rc2 = wisp_ghost_unlock_extra(w, r, w->lockwin[t->local]);
            rc = rc == MPI_SUCCESS ? rc2 : rc;
            rc2 = PMPI_Win_unlock(t->ghost, w->lockwin[t->local]);
            rc = rc == MPI_SUCCESS ? rc2 : rc;
            w->held[t->local]--;
        }
    }
    w->access = WISP_GHOST_NO_ACCESS;
    return wisp_ghost_win_error(w, rc);
}
