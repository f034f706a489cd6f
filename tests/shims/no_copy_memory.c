/*
 * A shim for tests, loaded before libwisp (LD_PRELOAD of a program linked
 * with -lwisp): malloc fails for sizes just above NO_MEMORY_ABOVE bytes (up
 * to 64 KiB more), as when memory runs out; every other call goes on to the
 * next malloc (wisp's). A receiver that copies aside a waiting message of
 * NO_MEMORY_ABOVE bytes asks for a little more than that (the copy's
 * header), while the program's own buffers of that size are allocated.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

enum { SLACK = 64 << 10 };

__attribute__((visibility("default"))) void *malloc(size_t size)
{
    static void *(*next)(size_t);
    static size_t above;
    static _Thread_local bool resolving;
    static _Alignas(16) char early[4096]; /* for dlsym's own needs, never freed */
    static size_t used;
    if (!next) {
        if (resolving) {
            size = (size + 15) & ~(size_t)15;
            if (used + size > sizeof early)
                return NULL;
            used += size;
            return early + used - size;
        }
        resolving = true;
        const char *v = getenv("NO_MEMORY_ABOVE");
        above = v ? strtoull(v, NULL, 10) : 0;
        next = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
        resolving = false;
    }
    if (above && size > above && size <= above + SLACK) {
        errno = ENOMEM;
        return NULL;
    }
    return next(size);
}
