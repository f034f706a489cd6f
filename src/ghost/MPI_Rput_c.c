/* MPI_Rput_c (large counts): to the ghost of the target's node (redirect.c). */
#include "ghost/win.h"
#include "wrap/impls.h"

#ifdef WISP_HAVE_MPI_Rput_c
int wisp_impl_MPI_Rput_c(const void *origin_addr, MPI_Count origin_count,
                         MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                         MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win,
                         MPI_Request *request)
{
    struct wisp_ghost_win *w = wisp_ghost_win_find(win);
    if (!w)
        return PMPI_Rput_c(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                           target_count, target_datatype, win, request);
    MPI_Win iwin;
    int grank;
    MPI_Aint gdisp;
    int rc = wisp_ghost_route(w, target_rank, target_disp, &iwin, &grank, &gdisp);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Rput_c(origin_addr, origin_count, origin_datatype, grank, gdisp, target_count,
                         target_datatype, iwin, request);
    return wisp_ghost_win_error(w, rc);
}
#endif
