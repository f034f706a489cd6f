/* MPI_Win_shared_query: for a served MPI_Win_allocate_shared window, the
 * processes' memory in the node's segment, laid out contiguously as the
 * MPI lays it out; other windows are the MPI's (an MPI_Win_allocate window
 * gets the MPI's answer for it). */
#include "ghost/win.h"
#include "wrap/impls.h"

#if defined(WISP_HAVE_MPI_Win_shared_query)
int wisp_impl_MPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit,
                                   void *baseptr)
{
    struct wisp_ghost_win *w = wisp_ghost_win_find(win);
    if (!w || w->flavor != MPI_WIN_FLAVOR_SHARED ||
        (rank != MPI_PROC_NULL && (rank < 0 || rank >= w->size)))
        return PMPI_Win_shared_query(win, rank, size, disp_unit, baseptr);
    if (rank == MPI_PROC_NULL) { /* the lowest rank with memory */
        rank = 0;
        while (rank < w->size - 1 && w->t[rank].size == 0)
            rank++;
    }
    const struct wisp_ghost_target *t = &w->t[rank];
    *size = t->size;
    *disp_unit = t->disp_unit;
    *(void **)baseptr = w->seg.base + t->off;
    return MPI_SUCCESS;
}
#endif
