/*
 * Leaves shared-memory files named by wisp's convention,
 * /dev/shm/wisp-<WISP_JOB>+*, then rank 1 dies by SIGKILL, as a crashing or
 * killed process would: no exit handler of the rank can clean up.
 * tests/cleanup_after_kill.sh checks that wisprun removes the files.
 */
#include <fcntl.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *job = getenv("WISP_JOB");
    if (!job) {
        fprintf(stderr, "leftover: WISP_JOB is not set; run under wisprun\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char name[256];
    snprintf(name, sizeof name, "/wisp-%s+leftover-%d", job, rank);
    int fd = shm_open(name, O_CREAT | O_RDWR, 0600);
    if (fd < 0 || ftruncate(fd, 4096)) {
        perror("leftover: shm_open");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Barrier(MPI_COMM_WORLD); /* every rank has made its file */
    if (rank == 1)
        raise(SIGKILL);
    MPI_Barrier(MPI_COMM_WORLD); /* never completes: the launcher ends the job */
    MPI_Finalize();
    return 0;
}
