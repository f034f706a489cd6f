/* MPI_Testany: requests of wisp and of the MPI, mixed. */
#include "p2p/p2p.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag,
                          MPI_Status *status)
{
    return wisp_p2p_waitany(count, array_of_requests, index, status, true, flag);
}
