/* MPI_Probe: wisp's queue for local senders, the MPI for remote ones. */
#include "p2p/p2p.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    return wisp_p2p_probe(source, tag, comm, status);
}
