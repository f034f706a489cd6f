/*
 * link_check.c - what the MPI sees of the link between two processes: the
 * latency of a 1-byte ping-pong (half the median round trip of 11 chunks
 * of 100) and the bandwidth of a stream of 1 MiB messages (the median of 5
 * streams of 32 MiB, each acknowledged). Meant for one process per host on
 * the two-host bed (tools/hosts.sh link sets the link's rate;
 * docs/benchmarks.md), where it checks that a cap took effect.
 *
 * Every message is checked (first, middle and last byte of each 1 MiB
 * message); a wrong one fails the run.
 *
 *   link_check [MIB]   MIB: the stream's size (default 32)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_check.h" /* bench_median */

enum { ROUND_TRIPS = 100, CHUNKS = 11, STREAMS = 5, MESSAGE = 1 << 20, TAG = 5 };

static unsigned char mark(int message, size_t at)
{
    return (unsigned char)(message * 31 + (int)(at % 251) + 1);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int mib = argc > 1 ? atoi(argv[1]) : 32;
    if (size != 2 || mib < 1 || mib > 4096) {
        if (rank == 0)
            fprintf(stderr, "usage: link_check [MIB 1-4096]    (run with 2 processes)\n");
        MPI_Finalize();
        return 2;
    }
    int peer = 1 - rank, bad = 0;
    char byte = 1;
    double rtt[CHUNKS], gbit[STREAMS];
    for (int c = 0; c < CHUNKS; c++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < ROUND_TRIPS; i++) {
            if (rank == 0) {
                MPI_Send(&byte, 1, MPI_CHAR, peer, TAG, MPI_COMM_WORLD);
                MPI_Recv(&byte, 1, MPI_CHAR, peer, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(&byte, 1, MPI_CHAR, peer, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                byte++;
                MPI_Send(&byte, 1, MPI_CHAR, peer, TAG, MPI_COMM_WORLD);
            }
        }
        rtt[c] = (MPI_Wtime() - t0) / ROUND_TRIPS;
    }
    bad |= rank == 0 && byte != (char)(1 + CHUNKS * ROUND_TRIPS);

    unsigned char *buf = malloc(MESSAGE);
    if (!buf)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int s = 0; s < STREAMS; s++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int m = 0; m < mib; m++) {
            size_t at[3] = {0, MESSAGE / 2, MESSAGE - 1};
            if (rank == 0) {
                for (int k = 0; k < 3; k++)
                    buf[at[k]] = mark(m, at[k]);
                MPI_Send(buf, MESSAGE, MPI_BYTE, peer, TAG, MPI_COMM_WORLD);
            } else {
                MPI_Status st;
                int n = 0;
                MPI_Recv(buf, MESSAGE, MPI_BYTE, peer, TAG, MPI_COMM_WORLD, &st);
                MPI_Get_count(&st, MPI_BYTE, &n);
                bad |= n != MESSAGE;
                for (int k = 0; k < 3; k++)
                    bad |= buf[at[k]] != mark(m, at[k]);
            }
        }
        if (rank == 1)
            MPI_Send(&byte, 0, MPI_CHAR, peer, TAG, MPI_COMM_WORLD);
        else
            MPI_Recv(&byte, 0, MPI_CHAR, peer, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        gbit[s] = (double)mib * MESSAGE * 8 / (MPI_Wtime() - t0) / 1e9;
    }
    free(buf);

    int any_bad = 0;
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("# link_check: 1 B ping-pong, %d x 1 MiB streams of %d MiB\n", STREAMS, mib);
        printf("metric latency_1B %.2f us lower\n", bench_median(rtt, CHUNKS) / 2 * 1e6);
        printf("metric bandwidth %.3f Gbit/s higher\n", bench_median(gbit, STREAMS));
        printf("link_check: %s\n", any_bad ? "FAILED (wrong data)" : "ok");
    }
    MPI_Finalize();
    return any_bad;
}
