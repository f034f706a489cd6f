/* MPI_Get_accumulate: to the ghost bound to the target (redirect.c); element
 * by element where the MPI needs it (getacc_split.c). */
#include "ghost/win.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Get_accumulate(const void *origin_addr, int origin_count,
                                 MPI_Datatype origin_datatype, void *result_addr, int result_count,
                                 MPI_Datatype result_datatype, int target_rank,
                                 MPI_Aint target_disp, int target_count,
                                 MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    struct wisp_ghost_win *w = wisp_ghost_win_find(win);
    if (!w)
        return PMPI_Get_accumulate(origin_addr, origin_count, origin_datatype, result_addr,
                                   result_count, result_datatype, target_rank, target_disp,
                                   target_count, target_datatype, op, win);
    MPI_Win iwin;
    int grank;
    MPI_Aint gdisp;
    int rc = wisp_ghost_route(w, target_rank, target_disp, &iwin, &grank, &gdisp);
    if (rc == MPI_SUCCESS && grank != MPI_PROC_NULL &&
        wisp_ghost_getacc_split_needed(origin_datatype, result_datatype, target_datatype, op))
        rc = wisp_ghost_getacc_split(origin_addr, origin_count, origin_datatype, result_addr,
                                     result_count, result_datatype, grank, gdisp, target_count,
                                     target_datatype, op, iwin);
    else if (rc == MPI_SUCCESS)
        rc = PMPI_Get_accumulate(origin_addr, origin_count, origin_datatype, result_addr,
                                 result_count, result_datatype, grank, gdisp, target_count,
                                 target_datatype, op, iwin);
    return wisp_ghost_win_error(w, rc);
}
