/* MPI_Win_flush_local on a served window: the target's ghost in the internal
 * window of this origin's passive epoch (redirect.c). */
#include "ghost/win.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Win_flush_local(int rank, MPI_Win win)
{
    struct wisp_ghost_win *w = wisp_ghost_win_find(win);
    if (!w)
        return PMPI_Win_flush_local(rank, win);
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (rank < 0 || rank >= w->size)
        return wisp_ghost_win_error(w, MPI_ERR_RANK);
    MPI_Win iwin;
    int grank;
    int rc = wisp_ghost_passive_target(w, rank, &iwin, &grank);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Win_flush_local(grank, iwin);
    return wisp_ghost_win_error(w, rc);
}
