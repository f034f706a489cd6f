/* Node-wide files in /dev/shm (see segment.h). */
#include "shm/segment.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "core/alive.h"
#include "core/config.h"
#include "core/log.h"

/* Names tried before giving up: each taken one was a fresh random name that
 * someone else holds, already unlikely once. */
enum { NAME_TRIES = 8 };

bool wisp_shm_all_agree(bool mine, MPI_Comm node)
{
    int ok = mine, all = 0;
    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, node);
    return all;
}

bool wisp_shm_segment_commit(int fd, size_t offset, size_t size, const char *use)
{
    int err = size ? posix_fallocate(fd, (off_t)offset, (off_t)size) : 0;
    if (err) {
        errno = err;
        wisp_log(1, "cannot commit %zu bytes of the %s segment in /dev/shm: %m", size, use);
    }
    return !err;
}

/* 64 bits from the kernel's generator; from the clock and the pid, mixed,
 * where it has none (before Linux 3.17): guessable then, but a taken name is
 * still replaced. */
static uint64_t random_bits(void)
{
    uint64_t r;
    if (getrandom(&r, sizeof r, GRND_NONBLOCK) == (ssize_t)sizeof r)
        return r;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    r = (uint64_t)ts.tv_nsec ^ (uint64_t)ts.tv_sec << 30 ^ (uint64_t)getpid() << 40;
    r ^= r >> 33; /* splitmix64's finalizer */
    r *= 0xff51afd7ed558ccdull;
    r ^= r >> 33;
    return r;
}

/* False when the name does not fit. */
static bool fresh_name(char *name, size_t size, const char *use, int index)
{
    const char *job = wisp_config.JOB;
    int n = snprintf(name, size, "/wisp%s%s+%s-%016llx", job ? "-" : "", job ? job : "", use,
                     (unsigned long long)random_bits());
    if (n > 0 && (size_t)n < size && index >= 0)
        n += snprintf(name + n, size - (size_t)n, "-%d", index);
    return n > 0 && (size_t)n < size;
}

int wisp_shm_create(char *name, size_t name_size, const char *use, int index)
{
    for (int tries = 0; tries < NAME_TRIES; tries++) {
        if (!fresh_name(name, name_size, use, index))
            return -1;
        int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
        if (fd >= 0 || errno != EEXIST)
            return fd;
        wisp_log(1, "%s in /dev/shm is taken by another: trying another name", name);
    }
    errno = EEXIST;
    return -1;
}

/* The leader's file of `size` bytes under a fresh name, in `name`. -1 when
 * none could be made. */
static int create(char *name, size_t name_size, const char *use, size_t size)
{
    int fd = wisp_shm_create(name, name_size, use, -1);
    if (fd >= 0 && ftruncate(fd, (off_t)size)) {
        close(fd);
        shm_unlink(name);
        fd = -1;
    }
    if (fd < 0)
        wisp_log(2, "shm_open(%s) of %zu bytes: %m", name, size);
    return fd;
}

int wisp_shm_segment_open(MPI_Comm node, const char *use, size_t size)
{
    int rank, fd = -1;
    char name[128] = "";
    PMPI_Comm_rank(node, &rank);
    if (rank == 0 && (fd = create(name, sizeof name, use, size)) < 0)
        name[0] = '\0'; /* the others learn that there is no file */
    if (rank == 0 && fd >= 0)
        wisp_core_alive_hold(name); /* until unlinked, if a process of the node dies meanwhile */
    PMPI_Bcast(name, sizeof name, MPI_CHAR, 0, node);
    if (!name[0])
        return -1;
    if (rank != 0) /* and if the leader dies before it unlinks the file */
        wisp_core_alive_hold(name);
    if (rank != 0 && (fd = shm_open(name, O_RDWR, 0)) < 0)
        wisp_log(2, "shm_open(%s): %m", name);
    bool opened = wisp_shm_all_agree(fd >= 0, node);
    if (rank == 0 && fd >= 0)
        shm_unlink(name);
    wisp_core_alive_let_go(name);
    if (!opened && fd >= 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}
