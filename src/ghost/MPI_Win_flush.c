/* MPI_Win_flush on a served window: the target's ghosts in the internal
 * window of this origin's passive epoch (redirect.c). */
#include "ghost/win.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Win_flush(int rank, MPI_Win win)
{
    return wisp_ghost_flush(win, rank, false);
}
