/* MPI_Win_create: served by the ghosts when every process's memory lies in
 * wisp's shared heap, which the ghosts map at the same address; otherwise
 * the MPI's own window, and WISP_VERBOSE=1 says so (win.c). */
#include "ghost/board.h"
#include "ghost/win.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                             MPI_Win *win)
{
    if (!wisp_ghost_node.board)
        return PMPI_Win_create(base, size, disp_unit, info, comm, win);
    return wisp_ghost_win_create(base, size, disp_unit, info, comm, win);
}
