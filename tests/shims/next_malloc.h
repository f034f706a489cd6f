/*
 * For shims that define malloc ahead of the next one (wisp's, or glibc's):
 * that one, looked up with dlsym(RTLD_NEXT) at the first call. dlsym may
 * itself call malloc meanwhile; those few bytes come from a static buffer
 * and are never given back (shim_early says whether a block is one).
 */
#ifndef WISP_TESTS_SHIMS_NEXT_MALLOC_H
#define WISP_TESTS_SHIMS_NEXT_MALLOC_H

#include <dlfcn.h>
#include <stdbool.h>
#include <stddef.h>

static _Alignas(16) char shim_early_buffer[4096];
static size_t shim_early_used;

static inline bool shim_early(const void *p)
{
    return (const char *)p >= shim_early_buffer &&
           (const char *)p < shim_early_buffer + sizeof shim_early_buffer;
}

static inline void *shim_next_malloc(size_t size)
{
    static void *(*next)(size_t);
    static _Thread_local bool resolving;
    if (!next) {
        if (resolving) {
            size = (size + 15) & ~(size_t)15;
            if (shim_early_used + size > sizeof shim_early_buffer)
                return NULL;
            shim_early_used += size;
            return shim_early_buffer + shim_early_used - size;
        }
        resolving = true;
        next = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
        resolving = false;
    }
    return next(size);
}

#endif
