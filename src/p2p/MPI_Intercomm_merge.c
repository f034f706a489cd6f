/* MPI_Intercomm_merge: a new communicator gets a context of the engine (collective). */
#include "p2p/p2p.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
    int rc = PMPI_Intercomm_merge(intercomm, high, newintracomm);
    return rc == MPI_SUCCESS ? wisp_p2p_comm_created(*newintracomm) : rc;
}
