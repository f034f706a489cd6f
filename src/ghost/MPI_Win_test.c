/* MPI_Win_test on a served window: MPI_Win_wait without blocking. */
#include "ghost/win.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Win_test(MPI_Win win, int *flag)
{
    struct wisp_ghost_win *w = wisp_ghost_win_find(win);
    if (!w)
        return PMPI_Win_test(win, flag);
    if (!w->exposed)
        return wisp_ghost_win_error(w, MPI_ERR_RMA_SYNC);
    int rc = MPI_SUCCESS, done = 1;
    for (int i = 0; i < w->npost && rc == MPI_SUCCESS; i++) {
        int one = 1;
        rc = PMPI_Test(&w->post_done[i], &one, MPI_STATUS_IGNORE);
        done &= one;
    }
    *flag = done && rc == MPI_SUCCESS;
    if (rc == MPI_SUCCESS && *flag) {
        rc = PMPI_Win_sync(w->global);
        w->exposed = false;
    }
    return wisp_ghost_win_error(w, rc);
}
