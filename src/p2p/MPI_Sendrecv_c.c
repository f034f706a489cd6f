/* MPI_Sendrecv_c: both halves through wisp or the MPI, each on its own. */
#include "p2p/p2p.h"
#include "wrap/impls.h"

#include <limits.h>

#ifdef WISP_HAVE_MPI_Sendrecv_c /* MPI-4: not in every MPI */
int wisp_impl_MPI_Sendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                             int dest, int sendtag, void *recvbuf, MPI_Count recvcount,
                             MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                             MPI_Status *status)
{
    if (sendcount > INT_MAX || recvcount > INT_MAX) /* beyond what wisp carries */
        return PMPI_Sendrecv_c(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                               recvtype, source, recvtag, comm, status);
    return wisp_p2p_sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                             recvtype, source, recvtag, comm, status);
}
#endif
