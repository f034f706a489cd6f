/* MPI_Comm_create_group: a new communicator gets a context of the engine (collective). */
#include "p2p/p2p.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    int rc = PMPI_Comm_create_group(comm, group, tag, newcomm);
    return rc == MPI_SUCCESS ? wisp_p2p_comm_created(*newcomm) : rc;
}
