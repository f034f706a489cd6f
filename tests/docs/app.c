/*
 * The program the documentation's command blocks call ./app
 * (tools/docs_blocks.py builds it with the MPI a block is for): a ring of
 * sends and receives and an allreduce, as a newcomer would try first.
 * Prints "app: <np> processes: ok" from rank 0; exits non-zero otherwise.
 * Its arguments are ignored (the docs write `./app args`).
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, token = -1, sum = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    if (rank == 0) {
        token = 0;
        MPI_Send(&token, 1, MPI_INT, next, 0, MPI_COMM_WORLD);
        MPI_Recv(&token, 1, MPI_INT, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(&token, 1, MPI_INT, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        token++;
        MPI_Send(&token, 1, MPI_INT, next, 0, MPI_COMM_WORLD);
    }
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int ok = sum == size * (size - 1) / 2 && (rank != 0 || token == size - 1);
    MPI_Finalize();
    if (rank == 0)
        printf("app: %d processes: %s\n", size, ok ? "ok" : "FAILED");
    return !ok;
}
