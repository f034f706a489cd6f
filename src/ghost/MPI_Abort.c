/* MPI_Abort: aborting the application's world aborts the real one, so the
 * job ends (ghosts included) with the error code, as without ghosts. */
#include "wrap/impls.h"

int wisp_impl_MPI_Abort(MPI_Comm comm, int errorcode)
{
    return PMPI_Abort(comm == wisp_wrap_user_world ? MPI_COMM_WORLD : comm, errorcode);
}
