/*
 * A preloaded shim for tests: the first FIXED_RANDOM_CALLS (default 2)
 * calls of getrandom for 8 bytes in a process fill them with 0x57, so
 * that wisp's first names in /dev/shm are known in advance
 * (/dev/shm/wisp-<job>+<use>-5757575757575757) and a test can take them
 * first, as another user of the node who guessed them would.
 */
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

static atomic_int calls;

__attribute__((visibility("default"))) ssize_t getrandom(void *buf, size_t len, unsigned flags)
{
    static ssize_t (*real)(void *, size_t, unsigned);
    const char *n = getenv("FIXED_RANDOM_CALLS");
    if (len == 8 && atomic_fetch_add(&calls, 1) < (n ? atoi(n) : 2)) {
        memset(buf, 0x57, len);
        return (ssize_t)len;
    }
    if (!real)
        real = (ssize_t(*)(void *, size_t, unsigned))dlsym(RTLD_NEXT, "getrandom");
    return real(buf, len, flags);
}
