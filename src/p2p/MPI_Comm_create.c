/* MPI_Comm_create: a new communicator gets a context of the engine (collective). */
#include "p2p/p2p.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    int rc = PMPI_Comm_create(comm, group, newcomm);
    return rc == MPI_SUCCESS ? wisp_p2p_comm_created(*newcomm) : rc;
}
