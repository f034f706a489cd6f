/* MPI_Mrecv: a message matched by wisp's probe, or the MPI's. */
#include "p2p/p2p.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
                        MPI_Status *status)
{
    return wisp_p2p_mrecv(buf, count, datatype, message, status);
}
