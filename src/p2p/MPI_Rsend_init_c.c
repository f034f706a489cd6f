/* MPI_Rsend_init_c: a persistent send; each MPI_Start picks wisp or the MPI. */
#include "p2p/p2p.h"
#include "wrap/impls.h"

#include <limits.h>

#ifdef WISP_HAVE_MPI_Rsend_init_c /* MPI-4: not in every MPI */
int wisp_impl_MPI_Rsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                               int tag, MPI_Comm comm, MPI_Request *request)
{
    if (count > INT_MAX) /* beyond what wisp carries */
        return PMPI_Rsend_init_c(buf, count, datatype, dest, tag, comm, request);
    return wisp_p2p_send_init(buf, count, datatype, dest, tag, comm, WISP_P2P_READY, request);
}
#endif
