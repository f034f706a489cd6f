/* MPI_Comm_split_type: a new communicator gets a context of the engine (collective). */
#include "p2p/p2p.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                                  MPI_Comm *newcomm)
{
    int rc = PMPI_Comm_split_type(comm, split_type, key, info, newcomm);
    return rc == MPI_SUCCESS ? wisp_p2p_comm_created(*newcomm) : rc;
}
