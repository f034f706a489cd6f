/* MPI_Testsome: requests of wisp and of the MPI, mixed. */
#include "p2p/p2p.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount,
                           int array_of_indices[], MPI_Status array_of_statuses[])
{
    return wisp_p2p_waitsome(incount, array_of_requests, outcount, array_of_indices,
                             array_of_statuses, true);
}
