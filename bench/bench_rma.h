/*
 * What the one-sided benchmarks share (rma_busy_progress, rma_cost,
 * rma_load_balance, rma_gcu): a clock, a computation that lasts a given
 * time outside MPI, and a barrier in which the processes that take no part
 * in a measurement sleep instead of spinning. Natively those processes
 * stand in for the ghosts that wisp carves out of the same launch (run.py
 * launches both sides with the same process count), so they must not take
 * a processor from the ones measured.
 */
#ifndef WISP_BENCH_RMA_H
#define WISP_BENCH_RMA_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline double bench_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Computes outside MPI (a loop on the clock) for `seconds`, to within a
 * fraction of a microsecond: the clock is read every 50 steps (a 1000-step
 * loop overshot by up to 3 us, as much as an eager message's overhead). */
static inline void bench_compute_for(double seconds)
{
    double end = bench_now() + seconds;
    volatile double x = 1.0;
    while (bench_now() < end)
        for (int i = 0; i < 50; i++)
            x = x * 1.0000001 + 1e-9;
}

/* A barrier over MPI_COMM_WORLD: `waits` true waits inside MPI (a native MPI
 * makes progress there), false sleeps between tests (1 ms naps). */
static inline void bench_barrier(int waits)
{
    MPI_Request req;
    MPI_Ibarrier(MPI_COMM_WORLD, &req);
    if (waits) {
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        return;
    }
    int done = 0;
    struct timespec nap = {0, 1000000};
    for (MPI_Test(&req, &done, MPI_STATUS_IGNORE); !done; MPI_Test(&req, &done, MPI_STATUS_IGNORE))
        nanosleep(&nap, NULL);
}

/* A communicator of the first `n` ranks of MPI_COMM_WORLD (MPI_COMM_NULL in
 * the others); exits with status 2 and a message when there are fewer. */
static inline MPI_Comm bench_first_ranks(const char *prog, int n)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < n) {
        if (rank == 0)
            fprintf(stderr, "%s: needs at least %d processes, got %d\n", prog, n, size);
        MPI_Finalize();
        exit(2);
    }
    MPI_Comm comm;
    MPI_Comm_split(MPI_COMM_WORLD, rank < n ? 0 : MPI_UNDEFINED, rank, &comm);
    return comm;
}

/* Parses a positive count argument; exits with status 2 on a bad one. */
static inline int bench_count_arg(const char *prog, const char *text, int max)
{
    char *end = NULL;
    long v = strtol(text, &end, 10);
    if (end == text || *end != '\0' || v < 1 || v > max) {
        int rank;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (rank == 0)
            fprintf(stderr, "%s: '%s' is not a count from 1 to %d\n", prog, text, max);
        MPI_Finalize();
        exit(2);
    }
    return (int)v;
}

#endif
