/* The last rank leaves by _exit(0) right after MPI_Finalize, as wisp's ghost
 * does (src/ghost/serve.c: the application's atexit handlers must not run
 * in it), while the others wait a second before they end. MPICH 4.0.2 and
 * Open MPI end the job normally. MPICH 5.0.2 sends PMI's finalize at exit,
 * not in MPI_Finalize, so Hydra sees the _exit as an abnormal end and kills
 * the job with SIGKILL (tests/quirks.sh expects that natively; under wisp
 * with a ghost, about 1 job in 6 loses a rank so, whichever process's exit
 * comes first). */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Finalize();
    if (rank == size - 1) {
        fflush(NULL);
        _exit(0);
    }
    sleep(1);
    printf("quirk_exit_after_finalize: rank %d ended after the _exit of rank %d\n", rank, size - 1);
    return 0;
}
