/* MPI_Irsend_c: to a local peer through wisp, else the MPI. */
#include "p2p/p2p.h"
#include "wrap/impls.h"

#include <limits.h>

#ifdef WISP_HAVE_MPI_Irsend_c /* MPI-4: not in every MPI */
int wisp_impl_MPI_Irsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                           int tag, MPI_Comm comm, MPI_Request *request)
{
    if (count > INT_MAX) /* beyond what wisp carries */
        return PMPI_Irsend_c(buf, count, datatype, dest, tag, comm, request);
    return wisp_p2p_isend(buf, count, datatype, dest, tag, comm, WISP_P2P_READY, request);
}
#endif
