/* MPI_Wait: requests of wisp and of the MPI, mixed. */
#include "p2p/p2p.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    return wisp_p2p_wait1(request, status, false, NULL);
}
