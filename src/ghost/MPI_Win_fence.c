/*
 * MPI_Win_fence on a served window, in passive mode (Casper 4.5.4.1): a
 * ghost never blocks in a fence, so it can serve simultaneous epochs of
 * other windows and processes. The operations of an epoch travel in
 * `global`, always in a lock_all epoch; a fence completes this origin's
 * operations (flush_all, skipped after MPI_MODE_NOPRECEDE), then a barrier
 * over the window's processes makes them complete everywhere before anyone
 * goes on, and MPI_Win_sync orders the local loads and stores around it.
 * MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED (nothing to complete, nothing
 * to start) needs no barrier. Casper also skipped it for NOSTORE | NOPUT |
 * NOPRECEDE, but those two are local assertions: processes that gave
 * different ones would not all enter the barrier.
 */
#include "ghost/win.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Win_fence(int assert, MPI_Win win)
{
    struct wisp_ghost_win *w = wisp_ghost_win_find(win);
    if (!w)
        return PMPI_Win_fence(assert, win);
    if (w->access != WISP_GHOST_NO_ACCESS && w->access != WISP_GHOST_FENCE)
        return wisp_ghost_win_error(w, MPI_ERR_RMA_SYNC);
    int rc = MPI_SUCCESS;
    if (!(assert &MPI_MODE_NOPRECEDE) && w->access == WISP_GHOST_FENCE)
        rc = PMPI_Win_flush_all(w->global);
    wisp_ghost_flushed(w, -1);
    bool nothing = (assert &MPI_MODE_NOPRECEDE) && (assert &MPI_MODE_NOSUCCEED);
    if (rc == MPI_SUCCESS && !nothing) {
        rc = PMPI_Win_sync(w->global);
        if (rc == MPI_SUCCESS)
            rc = PMPI_Barrier(w->comm);
        if (rc == MPI_SUCCESS)
            rc = PMPI_Win_sync(w->global);
    }
    w->access = assert &MPI_MODE_NOSUCCEED ? WISP_GHOST_NO_ACCESS : WISP_GHOST_FENCE;
    return wisp_ghost_win_error(w, rc);
}
