/* MPI_Free_mem: back to the shared heap, or to the underlying MPI for what
 * it allocated. */
#include "shm/heap.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Free_mem(void *base)
{
    if (!wisp_shm_heap_contains(base))
        return PMPI_Free_mem(base);
    wisp_shm_heap_free(base);
    return MPI_SUCCESS;
}
