/* MPI_Recv_c: from a local peer (or any) through wisp, else the MPI. */
#include "p2p/p2p.h"
#include "wrap/impls.h"

#include <limits.h>

#ifdef WISP_HAVE_MPI_Recv_c /* MPI-4: not in every MPI */
int wisp_impl_MPI_Recv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                         MPI_Comm comm, MPI_Status *status)
{
    if (count > INT_MAX) /* beyond what wisp carries */
        return PMPI_Recv_c(buf, count, datatype, source, tag, comm, status);
    return wisp_p2p_recv(buf, count, datatype, source, tag, comm, status);
}
#endif
