/*
 * A program with a known number of MPI calls, for the WISP_STATS report
 * (tests/stats_report.sh): 1 MPI_Comm_rank + 17 MPI_Barrier + 5 MPI_Allreduce
 * + 1 MPI_Sendrecv between MPI_Init and MPI_Finalize, which are not counted.
 * The Sendrecv exchanges 8 bytes between ranks 0 and 1 of two: one
 * immediate message each way through shared memory under wisp.
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, sum;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 17; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < 5; i++)
        MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    double out = rank, in = -1;
    MPI_Sendrecv(&out, 1, MPI_DOUBLE, 1 - rank, 0, &in, 1, MPI_DOUBLE, 1 - rank, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
