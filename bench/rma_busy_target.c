/*
 * rma_busy_target.c - one-sided progress while the target computes (issue 4;
 * seed 000, section 4.7.2, Figs. 4.12-4.13).
 *
 * Rank 0 (the origin) holds a lock_all epoch on a window from
 * MPI_Win_allocate and does 10 x (MPI_Accumulate of one double + MPI_Win_flush)
 * to the last rank (the target) while the target computes outside MPI for
 * BUSY ms (a loop on the clock): natively, MPICH applies an accumulate only
 * when the target calls into MPI, so the origin waits for the whole
 * computation; with wisp's ghosts, a ghost applies it. Also measured:
 *
 *   - acc_flush_idle_us: one accumulate+flush while the target waits in
 *     MPI (in a barrier): the median of IDLE_CHUNKS chunks of IDLE_PAIRS
 *     pairs, after PAIRS untimed ones (the first operation after a pause
 *     waits for a sleeping ghost: that is in acc_flush10_busy0ms_ms);
 *   - compute_ms: a fixed computation on the origin and the target while a
 *     window exists but nobody communicates (what an idle ghost costs the
 *     application on an oversubscribed node).
 *
 * Processes other than the origin and the target are idle: they wait in
 * MPI_Ibarrier + MPI_Test + nanosleep, so they take no processor. Run it
 * with 3 processes natively and with WISP_GHOSTS=1 under wisp (the third
 * process is then the ghost): both sides launch the same processes.
 *
 * Usage: rma_busy_target [REPS]   (default 5 timed repetitions per busy time)
 *
 * Rank 0 prints, for bench/run.py:
 *   metric acc_flush10_busy<B>ms_ms <ms> ms lower      B = 0, 10, 100, 300
 *   metric acc_flush10_busy<B>ms_pct <percent of B> % lower   (B > 0)
 *   metric acc_flush_idle_us <us> us lower
 *   metric compute_ms <ms> ms lower
 * The accumulated total is checked at the end (exit 1 on a mismatch).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_check.h"

#define PAIRS       10
#define IDLE_PAIRS  20 /* per chunk */
#define IDLE_CHUNKS 21
#define MAX_REPS    64
#define COMPUTE_OPS 40000000L

static const int busy_ms[] = {0, 10, 100, 300};
enum { NBUSY = sizeof busy_ms / sizeof busy_ms[0] };

static int rank, size, origin, target;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void compute_for(double seconds)
{
    double end = now() + seconds;
    volatile double x = 1.0;
    while (now() < end)
        for (int i = 0; i < 1000; i++)
            x = x * 1.0000001 + 1e-9;
}

static double compute_fixed(void)
{
    volatile double x = 1.0;
    double t0 = now();
    for (long i = 0; i < COMPUTE_OPS; i++)
        x = x * 1.0000001 + 1e-9;
    return now() - t0;
}

/* A barrier in which the origin and the target wait inside MPI (so that a
 * native MPI makes progress there) and idle processes sleep. */
static void barrier(void)
{
    MPI_Request req;
    MPI_Ibarrier(MPI_COMM_WORLD, &req);
    if (rank == origin || rank == target) {
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        return;
    }
    int done = 0;
    struct timespec nap = {0, 1000000}; /* 1 ms: costs the others nothing */
    for (MPI_Test(&req, &done, MPI_STATUS_IGNORE); !done; MPI_Test(&req, &done, MPI_STATUS_IGNORE))
        nanosleep(&nap, NULL);
}

static double pairs(int n, MPI_Win win, long *issued)
{
    double one = 1.0, t0 = now();
    for (int i = 0; i < n; i++) {
        MPI_Accumulate(&one, 1, MPI_DOUBLE, target, 0, 1, MPI_DOUBLE, MPI_SUM, win);
        MPI_Win_flush(target, win);
    }
    *issued += n;
    return now() - t0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int reps = argc > 1 ? atoi(argv[1]) : 5;
    if (size < 2 || reps < 1 || reps > MAX_REPS) {
        if (rank == 0)
            fprintf(stderr, "rma_busy_target: needs 2 or more processes and 1..%d reps\n",
                    MAX_REPS);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    origin = 0;
    target = size - 1;

    double *mem;
    MPI_Win win;
    MPI_Win_allocate(4096, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
    mem[0] = 0.0;
    MPI_Win_unlock(rank, win);
    barrier();
    MPI_Win_lock_all(0, win);
    long issued = 0;
    if (rank == origin) /* warm-up: connections, lock acquisition */
        pairs(PAIRS, win, &issued);
    barrier();

    double per_busy[NBUSY][MAX_REPS];
    for (int b = 0; b < NBUSY; b++) {
        for (int r = 0; r < reps; r++) {
            barrier();
            if (rank == origin) {
                if (busy_ms[b])
                    compute_for(0.001); /* the target is in its computation by then */
                per_busy[b][r] = pairs(PAIRS, win, &issued);
            } else if (rank == target) {
                compute_for(busy_ms[b] * 1e-3);
            }
            barrier();
        }
    }
    double idle[IDLE_CHUNKS];
    barrier();
    if (rank == origin) {
        pairs(PAIRS, win, &issued);
        for (int c = 0; c < IDLE_CHUNKS; c++)
            idle[c] = pairs(IDLE_PAIRS, win, &issued);
    }
    barrier();

    /* A computation while the window exists and nobody communicates. */
    double compute[MAX_REPS] = {0.0};
    for (int r = 0; r < reps; r++) {
        barrier();
        double mine = rank == origin || rank == target ? compute_fixed() : 0.0;
        MPI_Reduce(&mine, &compute[r], 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    }
    MPI_Win_unlock_all(win);
    barrier();

    long total = 0;
    MPI_Reduce(&issued, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    double got = 0.0;
    if (rank == target) {
        MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
        got = mem[0];
        MPI_Win_unlock(rank, win);
    }
    MPI_Bcast(&got, 1, MPI_DOUBLE, target, MPI_COMM_WORLD);
    if (rank == 0) {
        if (got != (double)total) {
            fprintf(stderr,
                    "rma_busy_target: data check failed: the target holds %.0f, %ld "
                    "accumulates were issued\n",
                    got, total);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        for (int b = 0; b < NBUSY; b++) {
            double ms = bench_median(per_busy[b], reps) * 1e3;
            printf("metric acc_flush10_busy%dms_ms %.4f ms lower\n", busy_ms[b], ms);
            if (busy_ms[b])
                printf("metric acc_flush10_busy%dms_pct %.3f %% lower\n", busy_ms[b],
                       100.0 * ms / busy_ms[b]);
        }
        printf("metric acc_flush_idle_us %.3f us lower\n",
               bench_median(idle, IDLE_CHUNKS) / IDLE_PAIRS * 1e6);
        printf("metric compute_ms %.3f ms lower\n", bench_median(compute, reps) * 1e3);
    }
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
