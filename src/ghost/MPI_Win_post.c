/*
 * MPI_Win_post on a served window: PSCW in passive mode (Casper 4.5.4.2).
 * The target tells each origin of `group` that its memory is exposed with a
 * zero-byte message (none with MPI_MODE_NOCHECK, which promises that the
 * origins' starts come later anyway), and expects from each a message when
 * its accesses are complete (MPI_Win_complete.c), received by
 * MPI_Win_wait or MPI_Win_test.
 */
#include "ghost/win.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Win_post(MPI_Group group, int assert, MPI_Win win)
{
    struct wisp_ghost_win *w = wisp_ghost_win_find(win);
    if (!w)
        return PMPI_Win_post(group, assert, win);
    if (w->exposed)
        return wisp_ghost_win_error(w, MPI_ERR_RMA_SYNC);
    if (!wisp_ghost_group_ranks(w, group, &w->npost, w->post))
        return wisp_ghost_win_error(w, MPI_ERR_GROUP);
    int rc = PMPI_Win_sync(w->global); /* local stores before the post are visible */
    for (int i = 0; i < w->npost && rc == MPI_SUCCESS; i++) {
        rc = PMPI_Irecv(NULL, 0, MPI_BYTE, w->post[i], WISP_GHOST_TAG_DONE, w->comm,
                        &w->post_done[i]);
        if (rc == MPI_SUCCESS && !(assert &MPI_MODE_NOCHECK)) {
            MPI_Request req;
            rc = PMPI_Isend(NULL, 0, MPI_BYTE, w->post[i], WISP_GHOST_TAG_POST, w->comm, &req);
            if (rc == MPI_SUCCESS)
                rc = PMPI_Request_free(&req);
        }
    }
    w->exposed = rc == MPI_SUCCESS;
    return wisp_ghost_win_error(w, rc);
}
