/*
 * Latency and bandwidth for the performance model of seed 001 (ch. 2.1.2),
 * measured at start like IMB's multi-mode PingPing: the processes pair up,
 * r with r + P/2, and both of a pair send to each other at once, as in a
 * halo exchange. Nodes hold consecutive ranks (wisp's virtual nodes too), so
 * with more than one node the pairs cross nodes, as in the seed's
 * measurement. The slowest pair counts; with an odd count the last process
 * waits at the barrier.
 */
#ifndef WISP_APP_PINGPING_H
#define WISP_APP_PINGPING_H

#include "app_common.h"

/* Seconds per exchange of `bytes` each way; the median of 5 chunks of `reps`. */
static inline double pingping_time(MPI_Comm comm, size_t bytes, int reps)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int half = size / 2, peer = rank < half ? rank + half : rank - half;
    if (rank == 2 * half) /* the odd one out */
        peer = size;
    char *out = calloc(bytes ? bytes : 1, 1), *in = calloc(bytes ? bytes : 1, 1);
    double chunks[5];
    for (int c = -1; c < 5; c++) { /* chunk -1: warm-up */
        MPI_Barrier(comm);
        double t0 = bench_now();
        for (int r = 0; r < reps && peer < size; r++) {
            MPI_Request req[2];
            MPI_Status st[2];
            MPI_Irecv(in, (int)bytes, MPI_BYTE, peer, 7, comm, &req[0]);
            MPI_Isend(out, (int)bytes, MPI_BYTE, peer, 7, comm, &req[1]);
            MPI_Waitall(2, req, st);
        }
        if (c >= 0)
            chunks[c] = (bench_now() - t0) / reps;
    }
    free(out);
    free(in);
    return app_max(comm, bench_median(chunks, 5));
}

/* Latency (s) from 8-byte exchanges and bandwidth (bytes/s, one direction)
 * from exchanges of `bytes`; 0 and infinity on one process. */
static inline void pingping_measure(MPI_Comm comm, size_t bytes, double *latency, double *bandwidth)
{
    int size;
    MPI_Comm_size(comm, &size);
    if (size < 2) {
        *latency = 0.0;
        *bandwidth = INFINITY;
        return;
    }
    *latency = pingping_time(comm, 8, 200);
    double t = pingping_time(comm, bytes, 20);
    /* The transfer alone; a transfer faster than the latency counts as one latency. */
    *bandwidth = (double)bytes / (t > 2.0 * *latency ? t - *latency : t);
}

#endif
