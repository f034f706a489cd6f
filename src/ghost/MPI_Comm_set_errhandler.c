/* MPI_Comm_set_errhandler: a handler set on the application's world is set
 * on the real MPI_COMM_WORLD too, which the MPI uses for errors that belong
 * to no communicator (an MPI_COMM_NULL argument, say). */
#include "wrap/impls.h"

int wisp_impl_MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    int rc = PMPI_Comm_set_errhandler(comm, errhandler);
    if (rc == MPI_SUCCESS && comm == wisp_wrap_user_world && comm != MPI_COMM_WORLD)
        rc = PMPI_Comm_set_errhandler(MPI_COMM_WORLD, errhandler);
    return rc;
}
