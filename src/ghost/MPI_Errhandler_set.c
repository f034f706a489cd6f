/* MPI_Errhandler_set (removed in MPI-3, still in MPICH): as
 * MPI_Comm_set_errhandler. */
#include "wrap/impls.h"

int wisp_impl_MPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler)
{
    return wisp_impl_MPI_Comm_set_errhandler(comm, errhandler);
}
