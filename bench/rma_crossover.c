/*
 * rma_crossover.c - where asynchronous progress stops paying (issue 28;
 * seed 000, section 5.2, Fig. 5.7): one-sided epochs of a growing number
 * of operations against a target that computes between its own epochs.
 *
 * Every rank, in turn: computes COMPUTE_US outside MPI, then one lock_all
 * epoch of OPS operations of SIZE bytes (gets or accumulates of doubles)
 * to the next rank, flushed. Natively an operation waits until its target
 * next calls MPI; a ghost serves it at once but adds a hop per operation,
 * which more operations per epoch (or larger ones) make the larger part.
 * For each OPS of 1, 4, 16, 64, 256, the mean time of one epoch (without
 * the computation), the slowest rank's.
 *
 * Results are exact: gets check the target's pattern, accumulated sums the
 * count each rank was sent.
 *
 * Usage: rma_crossover get|acc [SIZE [EPOCHS [COMPUTE_US]]]
 *   (default 8 bytes, 200 epochs per point, 500 us of computation)
 * Rank 0 prints, for bench/apps/report.py:
 *   metric <kind>_epoch_<ops>ops <us> us lower
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_rma.h"

enum { MAX_OPS = 256, MAX_SIZE = 1 << 20 };

static int rank, size, peer, acc, count; /* count: doubles per operation */
static double *mem, *buf;
static long *sent; /* accumulates of 1.0 sent per element */
static MPI_Win win;
static int bad;

static double pattern(int owner, int i)
{
    return owner * 1e6 + i;
}

/* One epoch of `ops` operations; returns its time. */
static double epoch(int ops)
{
    double t0 = bench_now();
    MPI_Win_lock_all(0, win);
    for (int k = 0; k < ops; k++) {
        MPI_Aint at = (MPI_Aint)k * count;
        if (acc)
            MPI_Accumulate(buf, count, MPI_DOUBLE, peer, at, count, MPI_DOUBLE, MPI_SUM, win);
        else
            MPI_Get(buf + at, count, MPI_DOUBLE, peer, at, count, MPI_DOUBLE, win);
    }
    MPI_Win_flush(peer, win);
    MPI_Win_unlock_all(win);
    double t = bench_now() - t0;
    for (int k = 0; k < ops; k++) {
        MPI_Aint at = (MPI_Aint)k * count;
        if (acc)
            for (int i = 0; i < count; i++)
                sent[at + i]++;
        else
            bad += buf[at] != pattern(peer, (int)at) ||
                   buf[at + count - 1] != pattern(peer, (int)at + count - 1);
    }
    return t;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *prog = "rma_crossover";
    acc = argc > 1 && strcmp(argv[1], "acc") == 0;
    if (argc < 2 || (!acc && strcmp(argv[1], "get") != 0) || size < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: %s get|acc [SIZE [EPOCHS [COMPUTE_US]]], 2 processes or more\n",
                    prog);
        MPI_Finalize();
        return 2;
    }
    int bytes = argc > 2 ? bench_count_arg(prog, argv[2], MAX_SIZE) : 8;
    int epochs = argc > 3 ? bench_count_arg(prog, argv[3], 100000) : 200;
    int compute_us = argc > 4 ? bench_count_arg(prog, argv[4], 1000000) : 500;
    count = bytes < 8 ? 1 : bytes / 8;
    peer = (rank + 1) % size;
    size_t n = (size_t)MAX_OPS * (size_t)count;
    MPI_Win_allocate((MPI_Aint)(n * sizeof(double)), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD,
                     &mem, &win);
    buf = malloc(n * sizeof *buf);
    sent = calloc(n, sizeof *sent);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
    for (size_t i = 0; i < n; i++)
        mem[i] = acc ? 0.0 : pattern(rank, (int)i);
    MPI_Win_unlock(rank, win);
    for (size_t i = 0; i < n; i++)
        buf[i] = 1.0;
    MPI_Barrier(MPI_COMM_WORLD);

    static const int points[] = {1, 4, 16, 64, MAX_OPS};
    double mean[5];
    for (int p = 0; p < 5; p++) {
        double total = 0;
        MPI_Barrier(MPI_COMM_WORLD);
        for (int e = 0; e < epochs; e++) {
            /* Uneven, by rank and epoch, so that the target computes when
             * the operations arrive. */
            bench_compute_for(compute_us * 1e-6 * (0.5 + (double)((e * 7 + rank * 3) % 5) / 4));
            total += epoch(points[p]);
        }
        mean[p] = total / epochs;
        MPI_Allreduce(MPI_IN_PLACE, &mean[p], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }

    /* Every accumulate arrived, once. */
    MPI_Barrier(MPI_COMM_WORLD);
    if (acc) {
        long *got = malloc(n * sizeof *got);
        MPI_Sendrecv(sent, (int)n, MPI_LONG, peer, 0, got, (int)n, MPI_LONG,
                     (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
        for (size_t i = 0; i < n; i++)
            bad += mem[i] != (double)got[i];
        MPI_Win_unlock(rank, win);
        free(got);
    }
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        if (bad)
            fprintf(stderr, "%s: %d wrong results\n", prog, bad);
        else
            for (int p = 0; p < 5; p++)
                printf("metric %s_epoch_%dops %.3f us lower\n", acc ? "acc" : "get", points[p],
                       mean[p] * 1e6);
    }
    free(buf);
    free(sent);
    MPI_Win_free(&win);
    MPI_Finalize();
    return bad != 0;
}
