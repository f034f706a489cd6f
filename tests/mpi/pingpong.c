/*
 * Two processes send a message back and forth ROUNDS times with MPI_Send
 * and MPI_Recv (1 KiB, then 64 KiB) and check every byte: the program the
 * tool-order checks run (tests/tool_order.sh). Not linked with libwisp.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { ROUNDS = 500, SMALL = 1024, BIG = 64 * 1024 };

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    unsigned char *buf = malloc(BIG);
    for (int n = SMALL; rank < 2 && size >= 2 && n <= BIG; n += BIG - SMALL)
        for (int r = 0; r < ROUNDS; r++) {
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
        printf("pingpong: %s, %d round trips of 1 and 64 KiB\n", all ? "BAD DATA" : "ok", ROUNDS);
    free(buf);
    MPI_Finalize();
    return all != 0;
}
