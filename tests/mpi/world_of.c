/*
 * Says its place in the world ("world R of N") and the sum of the ranks
 * (an allreduce over the world), for the launch checks (tests/launch_word.sh).
 * A plain MPI program: not linked with libwisp.
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, sum = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("world %d of %d, rank sum %d\n", rank, size, sum);
    MPI_Finalize();
    return sum == size * (size - 1) / 2 ? 0 : 1;
}
