/* MPI_Startall: wisp's persistent requests, or the MPI's. */
#include "p2p/p2p.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Startall(int count, MPI_Request array_of_requests[])
{
    for (int i = 0; i < count; i++) {
        int rc = wisp_p2p_start(&array_of_requests[i]);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}
