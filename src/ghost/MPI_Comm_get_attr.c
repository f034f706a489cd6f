/* MPI_Comm_get_attr: world-only attributes of the application's world (see
 * ghost/world_attr.c), everything else as the underlying MPI. */
#include "ghost/world_attr.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag)
{
    return wisp_ghost_world_attr(PMPI_Comm_get_attr, comm, comm_keyval, attribute_val, flag);
}
