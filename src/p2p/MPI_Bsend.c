/* MPI_Bsend: to a local peer through wisp, else the MPI. */
#include "p2p/p2p.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                        MPI_Comm comm)
{
    return wisp_p2p_send(buf, count, datatype, dest, tag, comm, WISP_P2P_BUFFERED);
}
