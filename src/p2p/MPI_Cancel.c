/* MPI_Cancel: requests of wisp and of the MPI, mixed. */
#include "p2p/p2p.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Cancel(MPI_Request *request)
{
    return wisp_p2p_cancel(request);
}
