/* MPI_Waitall: requests of wisp and of the MPI, mixed. */
#include "p2p/p2p.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Waitall(int count, MPI_Request array_of_requests[],
                          MPI_Status array_of_statuses[])
{
    return wisp_p2p_waitall(count, array_of_requests, array_of_statuses, false, NULL, true);
}
