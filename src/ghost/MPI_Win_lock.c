/* MPI_Win_lock: on a served window, a lock on the target's ghost (epoch.c). */
#include "ghost/win.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
    struct wisp_ghost_win *w = wisp_ghost_win_find(win);
    return w ? wisp_ghost_lock(w, lock_type, rank, assert)
             : PMPI_Win_lock(lock_type, rank, assert, win);
}
