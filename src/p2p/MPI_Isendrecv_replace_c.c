/* MPI_Isendrecv_replace_c: as MPI_Isendrecv_replace. */
#include "p2p/p2p.h"
#include "wrap/impls.h"

#include <limits.h>

#ifdef WISP_HAVE_MPI_Isendrecv_replace_c /* MPI-4: not in every MPI */
int wisp_impl_MPI_Isendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                                      int sendtag, int source, int recvtag, MPI_Comm comm,
                                      MPI_Request *request)
{
    if (!wisp_p2p_serves(comm) || count < 0 || count > INT_MAX)
        return PMPI_Isendrecv_replace_c(buf, count, datatype, dest, sendtag, source, recvtag, comm,
                                        request);
    return wisp_p2p_isendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm,
                                      request);
}
#endif
