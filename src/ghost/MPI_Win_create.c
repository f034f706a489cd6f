/* MPI_Win_create: memory the application allocated itself is not mapped by
 * the ghosts, so the window is the MPI's own; WISP_VERBOSE=1 says so. */
#include "core/log.h"
#include "ghost/board.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                             MPI_Win *win)
{
    int rank = -1;
    if (wisp_ghost_node.board && comm != MPI_COMM_NULL &&
        PMPI_Comm_rank(comm, &rank) == MPI_SUCCESS && rank == 0)
        wisp_log(1, "MPI_Win_create: not served by ghosts (memory the application allocated); "
                    "the MPI's own window, without asynchronous progress");
    return PMPI_Win_create(base, size, disp_unit, info, comm, win);
}
