/* MPI_Isendrecv_c: as MPI_Isendrecv. */
#include "p2p/p2p.h"
#include "wrap/impls.h"

#include <limits.h>

#ifdef WISP_HAVE_MPI_Isendrecv_c /* MPI-4: not in every MPI */
int wisp_impl_MPI_Isendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              int dest, int sendtag, void *recvbuf, MPI_Count recvcount,
                              MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                              MPI_Request *request)
{
    if (!wisp_p2p_serves(comm) || sendcount > INT_MAX || recvcount > INT_MAX)
        return PMPI_Isendrecv_c(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                                recvtype, source, recvtag, comm, request);
    return wisp_p2p_isendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                              recvtype, source, recvtag, comm, request);
}
#endif
