/* Node-wide files in /dev/shm (see segment.h). */
#include "shm/segment.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/config.h"
#include "core/log.h"

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

int wisp_shm_segment_open(MPI_Comm node, const char *use, size_t size)
{
    int rank, fd = -1;
    char name[128];
    PMPI_Comm_rank(node, &rank);
    if (rank == 0) /* the leader's pid keeps apart nodes and jobs without WISP_JOB */
        snprintf(name, sizeof name, "/wisp-%s-%s-%d", wisp_config.JOB ? wisp_config.JOB : "pid",
                 use, (int)getpid());
    PMPI_Bcast(name, sizeof name, MPI_CHAR, 0, node);
    if (rank == 0) {
        fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
        if (fd >= 0 && ftruncate(fd, (off_t)size)) {
            close(fd);
            shm_unlink(name);
            fd = -1;
        }
        if (fd < 0)
            wisp_log(2, "shm_open(%s) of %zu bytes: %m", name, size);
    }
    if (!wisp_shm_all_agree(fd >= 0 || rank != 0, node))
        return -1;
    if (rank != 0 && (fd = shm_open(name, O_RDWR, 0)) < 0)
        wisp_log(2, "shm_open(%s): %m", name);
    bool opened = wisp_shm_all_agree(fd >= 0, node);
    if (rank == 0)
        shm_unlink(name);
    if (!opened && fd >= 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}
