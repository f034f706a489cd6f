/* MPI_Raccumulate: to the ghost bound to the target (redirect.c). */
#include "ghost/win.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Raccumulate(const void *origin_addr, int origin_count,
                              MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                              int target_count, MPI_Datatype target_datatype, MPI_Op op,
                              MPI_Win win, MPI_Request *request)
{
    struct wisp_ghost_win *w = wisp_ghost_win_find(win);
    if (!w)
        return PMPI_Raccumulate(origin_addr, origin_count, origin_datatype, target_rank,
                                target_disp, target_count, target_datatype, op, win, request);
    MPI_Win iwin;
    int grank;
    MPI_Aint gdisp;
    int rc = wisp_ghost_route(w, target_rank, target_disp, &iwin, &grank, &gdisp);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Raccumulate(origin_addr, origin_count, origin_datatype, grank, gdisp,
                              target_count, target_datatype, op, iwin, request);
    return wisp_ghost_win_error(w, rc);
}
