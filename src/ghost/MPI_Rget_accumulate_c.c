/* MPI_Rget_accumulate_c (large counts): to the ghost that owns the target elements (redirect.c). */
#include "ghost/win.h"
#include "wrap/impls.h"

#ifdef WISP_HAVE_MPI_Rget_accumulate_c
int wisp_impl_MPI_Rget_accumulate_c(const void *origin_addr, MPI_Count origin_count,
                                    MPI_Datatype origin_datatype, void *result_addr,
                                    MPI_Count result_count, MPI_Datatype result_datatype,
                                    int target_rank, MPI_Aint target_disp, MPI_Count target_count,
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
                              .request = request,
                              .large = true};
    return wisp_ghost_rma(win, &o);
}
#endif
