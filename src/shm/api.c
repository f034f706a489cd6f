/* The public query of include/wisp.h about the shared heap. */
#include "wisp.h"

#include "shm/heap.h"

int wisp_heap_contains(const void *p)
{
    return wisp_shm_heap_contains(p);
}
