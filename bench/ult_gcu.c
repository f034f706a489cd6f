/*
 * ult_gcu.c - get-compute-accumulate with user-level threads (seed 003,
 * Listing 2 and Fig. 6): how much of the run time ULTs hide by computing
 * while other ULTs wait for their one-sided operations.
 *
 * Rank 0 (the origin) runs TASKS tasks; rank 1 (the target) holds two
 * windows, `get` and `acc`, and waits in MPI_Barrier, inside the MPI, so
 * that it answers at once. A task gets a block of BLOCK ints from `get`
 * (MPI_Get + MPI_Win_flush), computes on it (adds 1 to each element, then
 * computes for `work` microseconds) and adds the result to the same block
 * of `acc` (MPI_Accumulate + MPI_Win_flush), inside one MPI_Win_lock_all
 * epoch per window. With N ULTs each takes every N-th task, with its own
 * buffer; a ULT waiting in a flush yields to the others (under wisp; with
 * WISP_VNODE_SIZE=1 the target is on another virtual node). Natively
 * (no wisp) the tasks run one after the other (bench/ult_bench.h).
 *
 * Metrics: time_<N>ult_ms for N = 1, 2, 4, 8, 16 (median of REPS), and
 * hidden_<N>ult_pct = 1 - time_N / time_1 (seed 003: 26, 39, 44 and 45% for
 * 2 to 16 ULTs), and comm_pct: the share of time_1 spent in the gets,
 * accumulates and flushes, the most that can be hidden. `work` defaults to
 * that communication time per task measured at the start (so comm_pct is
 * about 50%).
 *
 * Check: after every run the target's `acc` blocks must hold exactly the
 * sum of the contributions (each task adds get + 1 once).
 *
 * Usage: ult_gcu [work_us]   (2 processes; WISP_VNODE_SIZE=1 under wisp)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_check.h" /* bench_median */
#include "bench_rma.h"   /* bench_now, bench_compute_for */
#include "ult_bench.h"

#define BLOCK  1024 /* ints: 4 KiB per operation, as the seed's */
#define BLOCKS 64   /* in each window */
#define TASKS  1024
#define REPS   3
#define MAXN   16

static const int counts[] = {1, 2, 4, 8, 16};
enum { NCOUNTS = sizeof counts / sizeof counts[0] };

static MPI_Win wget, wacc;
static double work_s;

struct ult_arg {
    int first, step;
    double comm_s;
    int buf[BLOCK];
};

static int get_value(int block, int i)
{
    return (block * 31 + i) % 1000;
}

static void tasks(void *p)
{
    struct ult_arg *a = p;
    for (int t = a->first; t < TASKS; t += a->step) {
        MPI_Aint disp = (MPI_Aint)(t % BLOCKS) * BLOCK;
        double t0 = bench_now();
        MPI_Get(a->buf, BLOCK, MPI_INT, 1, disp, BLOCK, MPI_INT, wget);
        MPI_Win_flush(1, wget);
        a->comm_s += bench_now() - t0;
        for (int i = 0; i < BLOCK; i++)
            a->buf[i] += 1;
        bench_compute_for(work_s);
        t0 = bench_now();
        MPI_Accumulate(a->buf, BLOCK, MPI_INT, 1, disp, BLOCK, MPI_INT, MPI_SUM, wacc);
        MPI_Win_flush(1, wacc);
        a->comm_s += bench_now() - t0;
    }
}

/* One run with n ULTs on the origin; returns its time (every rank), the
 * origin's communication time in *comm_s, and 1 in *bad on a wrong sum. */
static double run(int rank, int n, int *acc, double *comm_s, int *bad)
{
    static struct ult_arg args[MAXN];
    if (rank == 1) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, wacc);
        memset(acc, 0, sizeof(int) * BLOCK * BLOCKS);
        MPI_Win_unlock(1, wacc);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t = 0.0;
    if (rank == 0) {
        double t0 = bench_now();
        MPI_Win_lock_all(0, wget);
        MPI_Win_lock_all(0, wacc);
        wisp_ult_t u[MAXN];
        for (int k = 0; k < n; k++) {
            args[k].first = k;
            args[k].step = n;
            args[k].comm_s = 0.0;
            ult_bench_fork(tasks, &args[k], &u[k]);
        }
        *comm_s = 0.0;
        for (int k = 0; k < n; k++) {
            ult_bench_join(u[k]);
            *comm_s += args[k].comm_s;
        }
        MPI_Win_unlock_all(wacc);
        MPI_Win_unlock_all(wget);
        t = bench_now() - t0;
    }
    MPI_Barrier(MPI_COMM_WORLD); /* the target waits here, inside the MPI */
    if (rank == 1) {
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, wacc);
        for (int b = 0; b < BLOCKS; b++)
            for (int i = 0; i < BLOCK; i++)
                *bad |= acc[b * BLOCK + i] != TASKS / BLOCKS * (get_value(b, i) + 1);
        MPI_Win_unlock(1, wacc);
    }
    MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Bcast(comm_s, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return t;
}

int main(int argc, char **argv)
{
    ult_bench_init(&argc, &argv, "ult_gcu");
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double work_us = -1.0;
    char *end = NULL;
    if (argc == 2)
        work_us = strtod(argv[1], &end);
    if (size != 2 || argc > 2 || (argc == 2 && (*end || work_us < 0.0 || work_us > 1e6))) {
        if (rank == 0)
            fprintf(stderr, "usage: ult_gcu [work_us from 0 to 1e6], on 2 processes\n");
        MPI_Finalize();
        return 2;
    }
    int *get, *acc;
    MPI_Aint bytes = (MPI_Aint)sizeof(int) * BLOCK * BLOCKS;
    MPI_Win_allocate(bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &get, &wget);
    MPI_Win_allocate(bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &acc, &wacc);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, wget);
    for (int b = 0; b < BLOCKS; b++)
        for (int i = 0; i < BLOCK; i++)
            get[b * BLOCK + i] = get_value(b, i);
    MPI_Win_unlock(rank, wget);

    /* The communication time per task, without work, sets the default work. */
    int bad = 0;
    double comm_s = 0.0, v[REPS], cv[REPS];
    run(rank, 1, acc, &comm_s, &bad);
    for (int r = 0; r < REPS; r++)
        run(rank, 1, acc, &cv[r], &bad);
    double comm_task_s = bench_median(cv, REPS) / TASKS;
    work_s = work_us >= 0.0 ? work_us * 1e-6 : comm_task_s;

    double time[NCOUNTS], comm1 = 0.0;
    for (int c = 0; c < NCOUNTS; c++) {
        run(rank, counts[c], acc, &comm_s, &bad); /* warm-up */
        for (int r = 0; r < REPS; r++) {
            v[r] = run(rank, counts[c], acc, &comm_s, &bad);
            cv[r] = comm_s;
        }
        time[c] = bench_median(v, REPS);
        if (c == 0)
            comm1 = bench_median(cv, REPS);
    }
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0 && bad)
        fprintf(stderr, "ult_gcu: the accumulated blocks are wrong\n");
    if (rank == 0 && !bad) {
        printf("# ult_gcu: %d tasks of %d B, work %.1f us per task (communication alone %.1f "
               "us), median of %d%s\n",
               TASKS, BLOCK * (int)sizeof(int), work_s * 1e6, comm_task_s * 1e6, REPS,
               ult_bench_have() ? "" : " (no wisp: tasks one after the other)");
        for (int c = 0; c < NCOUNTS; c++)
            printf("metric time_%dult_ms %.3f ms lower\n", counts[c], time[c] * 1e3);
        for (int c = 1; c < NCOUNTS; c++)
            printf("metric hidden_%dult_pct %.2f %% higher\n", counts[c],
                   100.0 * (1.0 - time[c] / time[0]));
        printf("metric comm_pct %.2f %% lower\n", 100.0 * comm1 / time[0]);
    }
    MPI_Win_free(&wacc);
    MPI_Win_free(&wget);
    MPI_Finalize();
    return bad;
}
