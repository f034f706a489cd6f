/* MPI_Comm_free: the engine lets go of the communicator first. */
#include "p2p/p2p.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Comm_free(MPI_Comm *comm)
{
    wisp_p2p_comm_freeing(*comm);
    return PMPI_Comm_free(comm);
}
