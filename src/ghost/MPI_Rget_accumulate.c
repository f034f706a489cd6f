/* MPI_Rget_accumulate: to the ghost bound to the target (redirect.c); element
 * by element where the MPI needs it (getacc_split.c). */
#include "ghost/win.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Rget_accumulate(const void *origin_addr, int origin_count,
                                  MPI_Datatype origin_datatype, void *result_addr, int result_count,
                                  MPI_Datatype result_datatype, int target_rank,
                                  MPI_Aint target_disp, int target_count,
                                  MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                                  MPI_Request *request)
{
    struct wisp_ghost_win *w = wisp_ghost_win_find(win);
    if (!w)
        return PMPI_Rget_accumulate(origin_addr, origin_count, origin_datatype, result_addr,
                                    result_count, result_datatype, target_rank, target_disp,
                                    target_count, target_datatype, op, win, request);
    MPI_Win iwin;
    int grank;
    MPI_Aint gdisp;
    int rc = wisp_ghost_route(w, target_rank, target_disp, &iwin, &grank, &gdisp);
    if (rc == MPI_SUCCESS && grank != MPI_PROC_NULL &&
        wisp_ghost_getacc_split_needed(origin_datatype, result_datatype, target_datatype, op)) {
        /* Complete the elements locally; the request is that of an empty operation. */
        rc = wisp_ghost_getacc_split(origin_addr, origin_count, origin_datatype, result_addr,
                                     result_count, result_datatype, grank, gdisp, target_count,
                                     target_datatype, op, iwin);
        if (rc == MPI_SUCCESS)
            rc = PMPI_Win_flush_local(grank, iwin);
        if (rc == MPI_SUCCESS)
            rc = PMPI_Rget(result_addr, 0, MPI_BYTE, MPI_PROC_NULL, 0, 0, MPI_BYTE, iwin, request);
    } else if (rc == MPI_SUCCESS)
        rc = PMPI_Rget_accumulate(origin_addr, origin_count, origin_datatype, result_addr,
                                  result_count, result_datatype, grank, gdisp, target_count,
                                  target_datatype, op, iwin, request);
    return wisp_ghost_win_error(w, rc);
}
