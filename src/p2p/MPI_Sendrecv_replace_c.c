/* MPI_Sendrecv_replace_c: both halves through wisp or the MPI, each on its own. */
#include "p2p/p2p.h"
#include "wrap/impls.h"

#include <limits.h>

#ifdef WISP_HAVE_MPI_Sendrecv_replace_c /* MPI-4: not in every MPI */
int wisp_impl_MPI_Sendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                                     int sendtag, int source, int recvtag, MPI_Comm comm,
                                     MPI_Status *status)
{
    if (count > INT_MAX) /* beyond what wisp carries */
        return PMPI_Sendrecv_replace_c(buf, count, datatype, dest, sendtag, source, recvtag, comm,
                                       status);
    return wisp_p2p_sendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm,
                                     status);
}
#endif
