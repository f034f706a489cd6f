/* MPI_Win_create_dynamic: memory attached later cannot be mapped by the
 * ghosts, so the window is the MPI's own; WISP_VERBOSE=1 says so. */
#include "core/log.h"
#include "ghost/board.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    int rank = -1;
    if (wisp_ghost_node.board && comm != MPI_COMM_NULL &&
        PMPI_Comm_rank(comm, &rank) == MPI_SUCCESS && rank == 0)
        wisp_log(1, "MPI_Win_create_dynamic: not served by ghosts; the MPI's own window, without "
                    "asynchronous progress");
    return PMPI_Win_create_dynamic(info, comm, win);
}
