/* MPI_Start: wisp's persistent requests, or the MPI's. */
#include "p2p/p2p.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Start(MPI_Request *request)
{
    return wisp_p2p_start(request);
}
