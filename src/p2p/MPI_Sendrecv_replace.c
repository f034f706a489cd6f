/* MPI_Sendrecv_replace: both halves through wisp or the MPI, each on its own. */
#include "p2p/p2p.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest,
                                   int sendtag, int source, int recvtag, MPI_Comm comm,
                                   MPI_Status *status)
{
    return wisp_p2p_sendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm,
                                     status);
}
