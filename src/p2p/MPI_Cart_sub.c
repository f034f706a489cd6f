/* MPI_Cart_sub: a new communicator gets a context of the engine (collective). */
#include "p2p/p2p.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    int rc = PMPI_Cart_sub(comm, remain_dims, newcomm);
    return rc == MPI_SUCCESS ? wisp_p2p_comm_created(*newcomm) : rc;
}
