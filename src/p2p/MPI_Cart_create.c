/* MPI_Cart_create: a new communicator gets a context of the engine (collective). */
#include "p2p/p2p.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                              int reorder, MPI_Comm *comm_cart)
{
    int rc = PMPI_Cart_create(comm_old, ndims, dims, periods, reorder, comm_cart);
    return rc == MPI_SUCCESS ? wisp_p2p_comm_created(*comm_cart) : rc;
}
