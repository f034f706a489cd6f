/* MPI_Compare_and_swap: to the ghost bound to the target (redirect.c). */
#include "ghost/win.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Compare_and_swap(const void *origin_addr, const void *compare_addr,
                                   void *result_addr, MPI_Datatype datatype, int target_rank,
                                   MPI_Aint target_disp, MPI_Win win)
{
    struct wisp_ghost_win *w = wisp_ghost_win_find(win);
    if (!w)
        return PMPI_Compare_and_swap(origin_addr, compare_addr, result_addr, datatype, target_rank,
                                     target_disp, win);
    MPI_Win iwin;
    int grank;
    MPI_Aint gdisp;
    int rc = wisp_ghost_route(w, target_rank, target_disp, &iwin, &grank, &gdisp);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Compare_and_swap(origin_addr, compare_addr, result_addr, datatype, grank, gdisp,
                                   iwin);
    return wisp_ghost_win_error(w, rc);
}
