/* MPI_Isendrecv_replace: on a served communicator, a receive into the
 * buffer and a send of a packed copy of it, under one request. */
#include "p2p/p2p.h"
#include "wrap/impls.h"

#ifdef WISP_HAVE_MPI_Isendrecv_replace /* MPI-4: not in every MPI */
int wisp_impl_MPI_Isendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest,
                                    int sendtag, int source, int recvtag, MPI_Comm comm,
                                    MPI_Request *request)
{
    if (!wisp_p2p_serves(comm) || count < 0)
        return PMPI_Isendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm,
                                      request);
    return wisp_p2p_isendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm,
                                      request);
}
#endif
