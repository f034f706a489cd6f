/* MPI_Win_allocate_shared_c (large displacement unit): as MPI_Win_allocate_shared. */
#include <limits.h>

#include "ghost/win.h"
#include "wrap/impls.h"

#ifdef WISP_HAVE_MPI_Win_allocate_shared_c
int wisp_impl_MPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                                        MPI_Comm comm, void *baseptr, MPI_Win *win)
{
    if (disp_unit > INT_MAX)
        return PMPI_Win_allocate_shared_c(size, disp_unit, info, comm, baseptr, win);
    return wisp_ghost_win_allocate(size, (int)disp_unit, info, comm, baseptr, win,
                                   MPI_WIN_FLAVOR_SHARED);
}
#endif
