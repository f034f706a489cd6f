/*
 * MPI_Alloc_mem and MPI_Free_mem: memory from the shared heap whenever it
 * serves, so that windows and buffers allocated this way can be reached by
 * every process of the node; otherwise (and for sizes MPI rejects) the
 * underlying MPI's, which also frees what it allocated.
 */
#include "shm/heap.h"

int wisp_shm_alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
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

int wisp_shm_free_mem(void *base)
{
    if (!wisp_shm_heap_contains(base))
        return PMPI_Free_mem(base);
    wisp_shm_heap_free(base);
    return MPI_SUCCESS;
}
