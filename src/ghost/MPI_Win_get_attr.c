/* MPI_Win_get_attr: a served window is an MPI_Win_create window over the
 * application's memory, so its creation flavor is the one the application
 * asked for, and its base is the memory wisp returned or was given (MPICH reports the
 * base of an MPI_Win_create window rounded down to 8 bytes); every other
 * attribute is the MPI's. */
#include "ghost/win.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag)
{
    static int flavors[] = {MPI_WIN_FLAVOR_ALLOCATE, MPI_WIN_FLAVOR_SHARED, MPI_WIN_FLAVOR_CREATE};
    struct wisp_ghost_win *w = wisp_ghost_win_find(win);
    if (w && win_keyval == MPI_WIN_BASE)
        *(void **)attribute_val = w->base;
    else if (w && win_keyval == MPI_WIN_CREATE_FLAVOR)
        *(int **)attribute_val = &flavors[w->flavor == MPI_WIN_FLAVOR_SHARED   ? 1
                                          : w->flavor == MPI_WIN_FLAVOR_CREATE ? 2
                                                                               : 0];
    else
        return PMPI_Win_get_attr(win, win_keyval, attribute_val, flag);
    *flag = 1;
    return MPI_SUCCESS;
}
