/*
 * A shim for tests: another allocator's malloc and free, loaded ahead of
 * libwisp, that pass every call on to the next one (wisp's, or glibc's).
 * What matters is only that they come first: then wisp's shared heap
 * serves MPI_Alloc_mem alone, and WISP_VERBOSE=1 says so.
 */
#include <dlfcn.h>
#include <stdbool.h>
#include <stddef.h>

static _Alignas(16) char early[4096]; /* dlsym's own needs while malloc is looked up */
static size_t used;

__attribute__((visibility("default"))) void *malloc(size_t size)
{
    static void *(*next)(size_t);
    static _Thread_local bool resolving;
    if (!next) {
        if (resolving) {
            size = (size + 15) & ~(size_t)15;
            if (used + size > sizeof early)
                return NULL;
            used += size;
            return early + used - size;
        }
        resolving = true;
        next = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
        resolving = false;
    }
    return next(size);
}

__attribute__((visibility("default"))) void free(void *p)
{
    static void (*next)(void *);
    if ((char *)p >= early && (char *)p < early + sizeof early)
        return; /* never given back */
    if (!next)
        next = (void (*)(void *))dlsym(RTLD_NEXT, "free");
    next(p);
}
