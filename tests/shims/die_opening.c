/*
 * A preloaded shim for tests: the process dies (SIGKILL) as it opens a
 * file of wisp's in /dev/shm that another process created, one whose name
 * holds "+<DIE_OPENING>-" (heap, p2p, ghost, win): in MPI_Init, after the
 * node's leader made the file and before it could remove its name
 * (src/shm/segment.c). tests/die_waiting.sh checks that the job ends and
 * that the file goes too.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

__attribute__((visibility("default"))) int shm_open(const char *name, int oflag, mode_t mode)
{
    static int (*real)(const char *, int, mode_t);
    if (!real)
        real = (int (*)(const char *, int, mode_t))dlsym(RTLD_NEXT, "shm_open");
    const char *use = getenv("DIE_OPENING");
    char part[64];
    if (use && !(oflag & O_CREAT) && snprintf(part, sizeof part, "+%s-", use) < (int)sizeof part &&
        strstr(name, part)) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        fprintf(stderr, "die_waiting: killed opening %s at %lld.%09ld\n", name,
                (long long)ts.tv_sec, ts.tv_nsec);
        raise(SIGKILL);
    }
    return real(name, oflag, mode);
}
