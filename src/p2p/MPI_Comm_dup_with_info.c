/* MPI_Comm_dup_with_info: a new communicator gets a context of the engine (collective). */
#include "p2p/p2p.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    int rc = PMPI_Comm_dup_with_info(comm, info, newcomm);
    return rc == MPI_SUCCESS ? wisp_p2p_comm_created(*newcomm) : rc;
}
