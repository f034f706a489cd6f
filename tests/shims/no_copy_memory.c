/*
 * A shim for tests, loaded before libwisp (LD_PRELOAD of a program linked
 * with -lwisp): malloc fails for sizes just above NO_MEMORY_ABOVE bytes (up
 * to 64 KiB more), as when memory runs out; every other call goes on to the
 * next malloc (wisp's). A receiver that copies aside a waiting message of
 * NO_MEMORY_ABOVE bytes asks for a little more than that (the copy's
 * header), while the program's own buffers of that size are allocated.
 */
#include <errno.h>
#include <stdlib.h>

#include "next_malloc.h"

enum { SLACK = 64 << 10 };

__attribute__((visibility("default"))) void *malloc(size_t size)
{
    static size_t above = (size_t)-1;
    if (above == (size_t)-1) { /* getenv and strtoull allocate nothing */
        const char *v = getenv("NO_MEMORY_ABOVE");
        above = v ? strtoull(v, NULL, 10) : 0;
    }
    if (above && size > above && size <= above + SLACK) {
        errno = ENOMEM;
        return NULL;
    }
    return shim_next_malloc(size);
}
