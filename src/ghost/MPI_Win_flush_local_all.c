/* MPI_Win_flush_local_all on a served window: every internal window that
 * carries this origin's passive epoch (redirect.c). */
#include "ghost/win.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Win_flush_local_all(MPI_Win win)
{
    struct wisp_ghost_win *w = wisp_ghost_win_find(win);
    return w ? wisp_ghost_flush_all(w, true) : PMPI_Win_flush_local_all(win);
}
