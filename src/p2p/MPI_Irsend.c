/* MPI_Irsend: to a local peer through wisp, else the MPI. */
#include "p2p/p2p.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                         MPI_Comm comm, MPI_Request *request)
{
    return wisp_p2p_isend(buf, count, datatype, dest, tag, comm, WISP_P2P_READY, request);
}
