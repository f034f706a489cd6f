/*
 * A preloaded shim for tests: shm_open of wisp's point-to-point segment
 * fails in the world rank named by NO_P2P_SEGMENT_RANK, so that node
 * runs without the engine while the others have it.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static int world_rank(void)
{
    const char *r = getenv("PMI_RANK");
    if (!r)
        r = getenv("OMPI_COMM_WORLD_RANK");
    return r ? atoi(r) : -1;
}

__attribute__((visibility("default"))) int shm_open(const char *name, int oflag, mode_t mode)
{
    static int (*real)(const char *, int, mode_t);
    if (!real)
        real = (int (*)(const char *, int, mode_t))dlsym(RTLD_NEXT, "shm_open");
    const char *fail = getenv("NO_P2P_SEGMENT_RANK");
    if (fail && strstr(name, "+p2p-") && world_rank() == atoi(fail)) {
        errno = EACCES;
        return -1;
    }
    return real(name, oflag, mode);
}
