/* MPI_Request_free: requests of wisp and of the MPI, mixed. */
#include "p2p/p2p.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Request_free(MPI_Request *request)
{
    return wisp_p2p_request_free(request);
}
