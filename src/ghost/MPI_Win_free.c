/* MPI_Win_free: a served window's internal windows and memory go too (win.c). */
#include "ghost/win.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Win_free(MPI_Win *win)
{
    struct wisp_ghost_win *w = wisp_ghost_win_find(*win);
    if (!w)
        return PMPI_Win_free(win);
    int rc = wisp_ghost_win_free(w);
    if (rc == MPI_SUCCESS)
        *win = MPI_WIN_NULL;
    return rc;
}
