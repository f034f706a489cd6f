/* MPI_Win_start on a served window: waits for the post message of each
 * target of `group` (none with MPI_MODE_NOCHECK); see MPI_Win_post.c. */
#include "ghost/win.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Win_start(MPI_Group group, int assert, MPI_Win win)
{
    struct wisp_ghost_win *w = wisp_ghost_win_find(win);
    if (!w)
        return PMPI_Win_start(group, assert, win);
    /* After a fence without MPI_MODE_NOSUCCEED no epoch is open unless another fence follows. */
    if (w->access != WISP_GHOST_NO_ACCESS && w->access != WISP_GHOST_FENCE)
        return wisp_ghost_win_error(w, MPI_ERR_RMA_SYNC);
    if (!wisp_ghost_group_ranks(w, group, &w->nstart, w->start))
        return wisp_ghost_win_error(w, MPI_ERR_GROUP);
    int rc = MPI_SUCCESS;
    if (!(assert &MPI_MODE_NOCHECK))
        for (int i = 0; i < w->nstart && rc == MPI_SUCCESS; i++)
            rc = PMPI_Recv(NULL, 0, MPI_BYTE, w->start[i], WISP_GHOST_TAG_POST, w->comm,
                           MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS)
        w->access = WISP_GHOST_PSCW;
    wisp_ghost_epoch_start(w, -1, true);
    return wisp_ghost_win_error(w, rc);
}
