/* MPI_Imrecv: a message matched by wisp's probe, or the MPI's. */
#include "p2p/p2p.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
                         MPI_Request *request)
{
    return wisp_p2p_imrecv(buf, count, datatype, message, request);
}
