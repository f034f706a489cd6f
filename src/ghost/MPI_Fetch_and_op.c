/* MPI_Fetch_and_op: to the ghost bound to the target (redirect.c). */
#include "ghost/win.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype,
                               int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win)
{
    struct wisp_ghost_win *w = wisp_ghost_win_find(win);
    if (!w)
        return PMPI_Fetch_and_op(origin_addr, result_addr, datatype, target_rank, target_disp, op,
                                 win);
    MPI_Win iwin;
    int grank;
    MPI_Aint gdisp;
    int rc = wisp_ghost_route(w, target_rank, target_disp, &iwin, &grank, &gdisp);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Fetch_and_op(origin_addr, result_addr, datatype, grank, gdisp, op, iwin);
    return wisp_ghost_win_error(w, rc);
}
