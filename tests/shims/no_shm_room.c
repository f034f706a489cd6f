/*
 * A preloaded shim for tests: /dev/shm has no room for the files in which
 * wisp hands a message back to its sender (src/p2p/handback.c):
 * posix_fallocate of a file whose shm_open name holds "+back-" fails with
 * ENOSPC, as on a full tmpfs. With NO_SHM_ROOM=read instead, the file is
 * made but its sender cannot open it (EACCES). Every other file is left
 * alone.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static _Atomic int back_fd = -1; /* a hand-back file just opened */

__attribute__((visibility("default"))) int shm_open(const char *name, int oflag, mode_t mode)
{
    static int (*real)(const char *, int, mode_t);
    if (!real)
        real = (int (*)(const char *, int, mode_t))dlsym(RTLD_NEXT, "shm_open");
    const char *how = getenv("NO_SHM_ROOM");
    bool read = how && !strcmp(how, "read");
    if (read && strstr(name, "+back-") && !(oflag & O_CREAT)) {
        errno = EACCES;
        return -1;
    }
    int fd = real(name, oflag, mode);
    if (!read && fd >= 0 && strstr(name, "+back-"))
        atomic_store(&back_fd, fd);
    return fd;
}

__attribute__((visibility("default"))) int posix_fallocate(int fd, off_t offset, off_t len)
{
    static int (*real)(int, off_t, off_t);
    if (!real)
        real = (int (*)(int, off_t, off_t))dlsym(RTLD_NEXT, "posix_fallocate");
    int back = fd;
    /* Once: the descriptor's number may name another file later. */
    if (fd >= 0 && atomic_compare_exchange_strong(&back_fd, &back, -1))
        return ENOSPC; /* posix_fallocate returns the error, errno untouched */
    return real(fd, offset, len);
}
