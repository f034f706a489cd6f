/* MPI_Attr_get (deprecated): as MPI_Comm_get_attr. */
#include "ghost/world_attr.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    return wisp_ghost_world_attr(PMPI_Attr_get, comm, keyval, attribute_val, flag);
}
