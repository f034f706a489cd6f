/* MPI_Win_allocate_shared: with ghosts, memory they map and serve (win.c). */
#include "ghost/win.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                                      void *baseptr, MPI_Win *win)
{
    return wisp_ghost_win_allocate(size, disp_unit, info, comm, baseptr, win,
                                   MPI_WIN_FLAVOR_SHARED);
}
