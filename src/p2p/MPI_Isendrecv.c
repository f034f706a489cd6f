/* MPI_Isendrecv: on a served communicator, a receive and a send that each
 * go through wisp or the MPI under one request (the MPI's own would miss
 * the local peer that matches in wisp). */
#include "p2p/p2p.h"
#include "wrap/impls.h"

#ifdef WISP_HAVE_MPI_Isendrecv /* MPI-4: not in every MPI */
int wisp_impl_MPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                            int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                            int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
    if (!wisp_p2p_serves(comm))
        return PMPI_Isendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                              recvtype, source, recvtag, comm, request);
    return wisp_p2p_isendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                              recvtype, source, recvtag, comm, request);
}
#endif
