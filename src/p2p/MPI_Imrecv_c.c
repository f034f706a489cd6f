/* MPI_Imrecv_c: a message matched by wisp's probe, or the MPI's. */
#include "p2p/p2p.h"
#include "wrap/impls.h"

#include <limits.h>

#ifdef WISP_HAVE_MPI_Imrecv_c /* MPI-4: not in every MPI */
int wisp_impl_MPI_Imrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                           MPI_Request *request)
{
    if (count > INT_MAX) /* beyond what wisp carries */
        return PMPI_Imrecv_c(buf, count, datatype, message, request);
    return wisp_p2p_imrecv(buf, count, datatype, message, request);
}
#endif
