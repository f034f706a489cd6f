/* MPI_Ssend_c: to a local peer through wisp, else the MPI. */
#include "p2p/p2p.h"
#include "wrap/impls.h"

#include <limits.h>

#ifdef WISP_HAVE_MPI_Ssend_c /* MPI-4: not in every MPI */
int wisp_impl_MPI_Ssend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                          int tag, MPI_Comm comm)
{
    if (count > INT_MAX) /* beyond what wisp carries */
        return PMPI_Ssend_c(buf, count, datatype, dest, tag, comm);
    return wisp_p2p_send(buf, count, datatype, dest, tag, comm, WISP_P2P_SYNC);
}
#endif
