/* MPI_Testall: requests of wisp and of the MPI, mixed. */
#include "p2p/p2p.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Testall(int count, MPI_Request array_of_requests[], int *flag,
                          MPI_Status array_of_statuses[])
{
    return wisp_p2p_waitall(count, array_of_requests, array_of_statuses, true, flag, true);
}
