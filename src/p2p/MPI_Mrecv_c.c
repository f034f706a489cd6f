/* MPI_Mrecv_c: a message matched by wisp's probe, or the MPI's. */
#include "p2p/p2p.h"
#include "wrap/impls.h"

#include <limits.h>

#ifdef WISP_HAVE_MPI_Mrecv_c /* MPI-4: not in every MPI */
int wisp_impl_MPI_Mrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                          MPI_Status *status)
{
    if (count > INT_MAX) /* beyond what wisp carries */
        return PMPI_Mrecv_c(buf, count, datatype, message, status);
    return wisp_p2p_mrecv(buf, count, datatype, message, status);
}
#endif
