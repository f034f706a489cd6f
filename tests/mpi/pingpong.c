/*
 * Two processes send a message back and forth ROUNDS times (argv[1], 500 by
 * default) with MPI_Send and MPI_Recv (1 KiB, then 64 KiB) and check every
 * byte: the program of the tool-order and Slurm checks (tests/tool_order.sh,
 * tests/slurm/run.sh). Not linked with libwisp.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { SMALL = 1024, BIG = 64 * 1024 };

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, bad = 0, rounds = argc > 1 ? atoi(argv[1]) : 500;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    unsigned char *buf = malloc(BIG);
    for (int n = SMALL; rank < 2 && size >= 2 && n <= BIG; n += BIG - SMALL)
        for (int r = 0; r < rounds; r++) {
            int me_first = (r + rank) % 2 == 0;
            if (me_first) {
                for (int i = 0; i < n; i++)
                    buf[i] = (unsigned char)(r + i);
                MPI_Send(buf, n, MPI_BYTE, 1 - rank, r, MPI_COMM_WORLD);
            } else {
                MPI_Recv(buf, n, MPI_BYTE, 1 - rank, r, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                for (int i = 0; i < n; i++)
                    bad += buf[i] != (unsigned char)(r + i);
            }
        }
    int all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("pingpong: %s, %d round trips of 1 and 64 KiB\n", all ? "BAD DATA" : "ok", rounds);
    free(buf);
    MPI_Finalize();
    return all != 0;
}
