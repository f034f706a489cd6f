/* MPI_Get: from the ghost that serves the target (redirect.c). */
#include "ghost/win.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                      int target_rank, MPI_Aint target_disp, int target_count,
                      MPI_Datatype target_datatype, MPI_Win win)
{
    struct wisp_ghost_op o = {.kind = WISP_GHOST_GET,
                              .origin = origin_addr,
                              .ocount = origin_count,
                              .otype = origin_datatype,
                              .target = target_rank,
                              .disp = target_disp,
                              .tcount = target_count,
                              .ttype = target_datatype};
    return wisp_ghost_rma(win, &o);
}
