/* MPI_Fetch_and_op: to the ghost that owns the target element (redirect.c). */
#include "ghost/win.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype,
                               int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win)
{
    struct wisp_ghost_op o = {.kind = WISP_GHOST_FOP,
                              .origin = origin_addr,
                              .result = result_addr,
                              .ttype = datatype,
                              .target = target_rank,
                              .disp = target_disp,
                              .tcount = 1,
                              .op = op};
    return wisp_ghost_rma(win, &o);
}
