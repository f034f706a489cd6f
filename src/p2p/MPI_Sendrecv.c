/* MPI_Sendrecv: both halves through wisp or the MPI, each on its own. */
#include "p2p/p2p.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                           int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                           int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    return wisp_p2p_sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                             recvtype, source, recvtag, comm, status);
}
