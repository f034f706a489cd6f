/*
 * A shim for tests: another allocator's malloc and free, loaded ahead of
 * libwisp, that pass every call on to the next one (wisp's, or glibc's).
 * What matters is only that they come first: then wisp's shared heap
 * serves MPI_Alloc_mem alone, and WISP_VERBOSE=1 says so.
 */
#include "next_malloc.h"

__attribute__((visibility("default"))) void *malloc(size_t size)
{
    return shim_next_malloc(size);
}

__attribute__((visibility("default"))) void free(void *p)
{
    static void (*next)(void *);
    if (shim_early(p))
        return; /* never given back */
    if (!next)
        next = (void (*)(void *))dlsym(RTLD_NEXT, "free");
    next(p);
}
