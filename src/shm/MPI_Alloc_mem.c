/* MPI_Alloc_mem: memory from the shared heap whenever it serves, so that
 * windows and buffers allocated this way can be reached by every process of
 * the node; otherwise (and for sizes MPI rejects) the underlying MPI's. */
#include "shm/heap.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    if (size >= 0) {
        void *p = wisp_shm_heap_alloc((size_t)size, 64, false); /* a cache line: MPI types align */
        if (p) {
            *(void **)baseptr = p;
            return MPI_SUCCESS;
        }
    }
    return PMPI_Alloc_mem(size, info, baseptr);
}
