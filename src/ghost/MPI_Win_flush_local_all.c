/* MPI_Win_flush_local_all on a served window: every internal window that
 * carries this origin's passive epoch. */
#include "ghost/win.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Win_flush_local_all(MPI_Win win)
{
    struct wisp_ghost_win *w = wisp_ghost_win_find(win);
    if (!w)
        return PMPI_Win_flush_local_all(win);
    int rc = MPI_SUCCESS;
    if (w->access == WISP_GHOST_LOCK_ALL && w->lock_all_global) {
        rc = PMPI_Win_flush_local_all(w->global);
    } else if (w->access == WISP_GHOST_LOCK || w->access == WISP_GHOST_LOCK_ALL) {
        if (w->nlock == 0)
            rc = PMPI_Win_flush_local_all(w->global);
        for (int i = 0; i < w->nlock; i++)
            if (w->held[i]) {
                int rc2 = PMPI_Win_flush_local_all(w->lockwin[i]);
                rc = rc == MPI_SUCCESS ? rc2 : rc;
            }
    } else {
        rc = MPI_ERR_RMA_SYNC;
    }
    return wisp_ghost_win_error(w, rc);
}
