/* MPI_Ssend_init: a persistent send; each MPI_Start picks wisp or the MPI. */
#include "p2p/p2p.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                             MPI_Comm comm, MPI_Request *request)
{
    return wisp_p2p_send_init(buf, count, datatype, dest, tag, comm, WISP_P2P_SYNC, request);
}
