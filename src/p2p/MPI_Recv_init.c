/* MPI_Recv_init: a persistent receive; each MPI_Start picks wisp or the MPI. */
#include "p2p/p2p.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                            MPI_Comm comm, MPI_Request *request)
{
    return wisp_p2p_recv_init(buf, count, datatype, source, tag, comm, request);
}
