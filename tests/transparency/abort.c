/*
 * abort: MPI_Abort with a specific error code.
 *
 * Rank 1 (rank 0 when running alone) calls MPI_Abort(MPI_COMM_WORLD, 7)
 * without printing anything; the other ranks block in a receive from it
 * that is never satisfied.  This test is judged only by the exit status of
 * the launcher (registered EXIT_CODE_ONLY): the status mpiexec reports for
 * an aborted job is library specific, so the runner compares the status of
 * the native run with that of the run under wisp, and nothing is printed.
 * Designed for 1..3 processes.
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int aborter = size > 1 ? 1 : 0;
    if (rank == aborter) {
        MPI_Abort(MPI_COMM_WORLD, 7);
    } else {
        int never;
        MPI_Recv(&never, 1, MPI_INT, aborter, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    /* Not reached. */
    MPI_Finalize();
    return 0;
}
