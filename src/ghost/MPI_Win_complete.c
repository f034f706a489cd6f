/* MPI_Win_complete on a served window: completes this origin's operations,
 * then tells each target of the access group; see MPI_Win_post.c. */
#include "ghost/win.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Win_complete(MPI_Win win)
{
    struct wisp_ghost_win *w = wisp_ghost_win_find(win);
    if (!w)
        return PMPI_Win_complete(win);
    if (w->access != WISP_GHOST_PSCW)
        return wisp_ghost_win_error(w, MPI_ERR_RMA_SYNC);
    int rc = PMPI_Win_flush_all(w->global);
    wisp_ghost_flushed(w, -1);
    for (int i = 0; i < w->nstart && rc == MPI_SUCCESS; i++) {
        MPI_Request req;
        rc = PMPI_Isend(NULL, 0, MPI_BYTE, w->start[i], WISP_GHOST_TAG_DONE, w->comm, &req);
        if (rc == MPI_SUCCESS)
            rc = PMPI_Request_free(&req);
    }
    w->access = WISP_GHOST_NO_ACCESS;
    return wisp_ghost_win_error(w, rc);
}
