/* MPI_Win_shared_query_c: as MPI_Win_shared_query (redirect.c). */
#include "ghost/win.h"
#include "wrap/impls.h"

#if defined(WISP_HAVE_MPI_Win_shared_query_c)
int wisp_impl_MPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit,
                                     void *baseptr)
{
    if (!wisp_ghost_shared_query(win, rank, size, disp_unit, baseptr))
        return PMPI_Win_shared_query_c(win, rank, size, disp_unit, baseptr);
    return MPI_SUCCESS;
}
#endif
