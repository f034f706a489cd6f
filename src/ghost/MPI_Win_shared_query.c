/* MPI_Win_shared_query: for a served MPI_Win_allocate_shared window, the
 * processes' memory in the node's segment, laid out contiguously as the
 * MPI lays it out; other windows are the MPI's (redirect.c). */
#include "ghost/win.h"
#include "wrap/impls.h"

#if defined(WISP_HAVE_MPI_Win_shared_query)
int wisp_impl_MPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit,
                                   void *baseptr)
{
    MPI_Aint unit;
    if (!wisp_ghost_shared_query(win, rank, size, &unit, baseptr))
        return PMPI_Win_shared_query(win, rank, size, disp_unit, baseptr);
    *disp_unit = (int)unit;
    return MPI_SUCCESS;
}
#endif
