/* MPI_Type_free: the engine forgets what it knew of freed types (handles are reused). */
#include "p2p/p2p.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Type_free(MPI_Datatype *datatype)
{
    wisp_p2p_lock();
    wisp_p2p_type_forget();
    wisp_p2p_unlock();
    return PMPI_Type_free(datatype);
}
