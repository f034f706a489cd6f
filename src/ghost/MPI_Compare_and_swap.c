/* MPI_Compare_and_swap: to the ghost that owns the target element (redirect.c). */
#include "ghost/win.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Compare_and_swap(const void *origin_addr, const void *compare_addr,
                                   void *result_addr, MPI_Datatype datatype, int target_rank,
                                   MPI_Aint target_disp, MPI_Win win)
{
    struct wisp_ghost_op o = {.kind = WISP_GHOST_CAS,
                              .origin = origin_addr,
                              .compare = compare_addr,
                              .result = result_addr,
                              .ttype = datatype,
                              .target = target_rank,
                              .disp = target_disp,
                              .tcount = 1};
    return wisp_ghost_rma(win, &o);
}
