/* MPI_Recv_init_c: a persistent receive; each MPI_Start picks wisp or the MPI. */
#include "p2p/p2p.h"
#include "wrap/impls.h"

#include <limits.h>

#ifdef WISP_HAVE_MPI_Recv_init_c /* MPI-4: not in every MPI */
int wisp_impl_MPI_Recv_init_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source,
                              int tag, MPI_Comm comm, MPI_Request *request)
{
    if (count > INT_MAX) /* beyond what wisp carries */
        return PMPI_Recv_init_c(buf, count, datatype, source, tag, comm, request);
    return wisp_p2p_recv_init(buf, count, datatype, source, tag, comm, request);
}
#endif
