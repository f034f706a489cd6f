/* MPI_Iprobe: wisp's queue for local senders, the MPI for remote ones. */
#include "p2p/p2p.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    return wisp_p2p_iprobe(source, tag, comm, flag, status);
}
