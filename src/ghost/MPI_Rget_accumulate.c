/* MPI_Rget_accumulate: to the ghost that owns the target elements (redirect.c). */
#include "ghost/win.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Rget_accumulate(const void *origin_addr, int origin_count,
                                  MPI_Datatype origin_datatype, void *result_addr, int result_count,
                                  MPI_Datatype result_datatype, int target_rank,
                                  MPI_Aint target_disp, int target_count,
                                  MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                                  MPI_Request *request)
{
    struct wisp_ghost_op o = {.kind = WISP_GHOST_GET_ACC,
                              .origin = origin_addr,
                              .ocount = origin_count,
                              .otype = origin_datatype,
                              .result = result_addr,
                              .rcount = result_count,
                              .rtype = result_datatype,
                              .target = target_rank,
                              .disp = target_disp,
                              .tcount = target_count,
                              .ttype = target_datatype,
                              .op = op,
                              .request = request};
    return wisp_ghost_rma(win, &o);
}
