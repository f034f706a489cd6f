/* MPI_Request_get_status: requests of wisp and of the MPI, mixed. */
#include "p2p/p2p.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    return wisp_p2p_request_get_status(request, flag, status);
}
