/* MPI_Recv: from a local peer (or any) through wisp, else the MPI. */
#include "p2p/p2p.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                       MPI_Comm comm, MPI_Status *status)
{
    return wisp_p2p_recv(buf, count, datatype, source, tag, comm, status);
}
