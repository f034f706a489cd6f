/* MPI_Irecv_c: from a local peer (or any) through wisp, else the MPI. */
#include "p2p/p2p.h"
#include "wrap/impls.h"

#include <limits.h>

#ifdef WISP_HAVE_MPI_Irecv_c /* MPI-4: not in every MPI */
int wisp_impl_MPI_Irecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                          MPI_Comm comm, MPI_Request *request)
{
    if (count > INT_MAX) /* beyond what wisp carries */
        return PMPI_Irecv_c(buf, count, datatype, source, tag, comm, request);
    return wisp_p2p_irecv(buf, count, datatype, source, tag, comm, request);
}
#endif
