/* MPI_Irecv: from a local peer (or any) through wisp, else the MPI. */
#include "p2p/p2p.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                        MPI_Comm comm, MPI_Request *request)
{
    return wisp_p2p_irecv(buf, count, datatype, source, tag, comm, request);
}
