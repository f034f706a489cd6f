/* MPI_Win_sync on a served window: a memory barrier through `global`, which
 * is always in a passive epoch, and the application's window. */
#include <stdatomic.h>

#include "ghost/win.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Win_sync(MPI_Win win)
{
    struct wisp_ghost_win *w = wisp_ghost_win_find(win);
    if (!w)
        return PMPI_Win_sync(win);
    atomic_thread_fence(memory_order_seq_cst);
    return wisp_ghost_win_error(w, PMPI_Win_sync(w->global));
}
