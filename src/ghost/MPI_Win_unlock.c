/* MPI_Win_unlock: on a served window, see MPI_Win_lock.c (epoch.c). */
#include "ghost/win.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Win_unlock(int rank, MPI_Win win)
{
    struct wisp_ghost_win *w = wisp_ghost_win_find(win);
    return w ? wisp_ghost_unlock(w, rank) : PMPI_Win_unlock(rank, win);
}
