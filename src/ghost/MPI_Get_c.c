/* MPI_Get_c (large counts): from the ghost that serves the target (redirect.c). */
#include "ghost/win.h"
#include "wrap/impls.h"

#ifdef WISP_HAVE_MPI_Get_c
int wisp_impl_MPI_Get_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                        int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                        MPI_Datatype target_datatype, MPI_Win win)
{
    struct wisp_ghost_op o = {.kind = WISP_GHOST_GET,
                              .origin = origin_addr,
                              .ocount = origin_count,
                              .otype = origin_datatype,
                              .target = target_rank,
                              .disp = target_disp,
                              .tcount = target_count,
                              .ttype = target_datatype,
                              .large = true};
    return wisp_ghost_rma(win, &o);
}
#endif
