/*
 * The time per call of a collective benchmark (bench/icoll.c,
 * bench/neighbor.c): a warm-up that doubles the calls of a chunk until one
 * takes TARGET_S / TRIALS (rank 0's count for all), then TRIALS chunks,
 * each after a barrier; a chunk's time per call is the largest over the
 * ranks, the figure the median chunk.
 */
#ifndef WISP_BENCH_CHUNKS_H
#define WISP_BENCH_CHUNKS_H

#include <mpi.h>
#include <stdlib.h>

#define BENCH_CHUNKS_TARGET_S 0.2
#define BENCH_CHUNKS_TRIALS   7

static int bench_chunks_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Seconds per call of `call(arg)` on `comm` (collective over it). */
static double bench_chunks(void (*call)(void *), void *arg, MPI_Comm comm)
{
    int calls = 1;
    for (;;) {
        double t0 = MPI_Wtime();
        for (int i = 0; i < calls; i++)
            call(arg);
        int more = MPI_Wtime() - t0 < BENCH_CHUNKS_TARGET_S / BENCH_CHUNKS_TRIALS;
        MPI_Bcast(&more, 1, MPI_INT, 0, comm);
        if (!more)
            break;
        calls *= 2;
    }
    double chunks[BENCH_CHUNKS_TRIALS];
    for (int c = 0; c < BENCH_CHUNKS_TRIALS; c++) {
        MPI_Barrier(comm);
        double t0 = MPI_Wtime();
        for (int i = 0; i < calls; i++)
            call(arg);
        double t = (MPI_Wtime() - t0) / calls;
        MPI_Allreduce(&t, &chunks[c], 1, MPI_DOUBLE, MPI_MAX, comm);
    }
    qsort(chunks, BENCH_CHUNKS_TRIALS, sizeof chunks[0], bench_chunks_cmp);
    return chunks[BENCH_CHUNKS_TRIALS / 2];
}

#endif
