/* MPI_Win_wait on a served window: the completion message of every origin
 * of the exposure group; see MPI_Win_post.c. */
#include "ghost/win.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Win_wait(MPI_Win win)
{
    struct wisp_ghost_win *w = wisp_ghost_win_find(win);
    if (!w)
        return PMPI_Win_wait(win);
    if (!w->exposed)
        return wisp_ghost_win_error(w, MPI_ERR_RMA_SYNC);
    int rc = MPI_SUCCESS;
    for (int i = 0; i < w->npost && rc == MPI_SUCCESS; i++)
        rc = PMPI_Wait(&w->post_done[i], MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Win_sync(w->global); /* loads after the wait see the origins' updates */
    w->exposed = false;
    return wisp_ghost_win_error(w, rc);
}
