/*
 * rma_origin_work.c - where the origin's time goes in the one-sided
 * operations of ult_gcu (a 4 KiB MPI_Get and MPI_Accumulate, each followed
 * by MPI_Win_flush): in the call that issues the operation, and in the
 * flush that waits for it. ULTs can hide only the waiting, not the
 * origin's own work inside the MPI; this separates the two.
 *
 * Rank 0 works in a MPI_Win_lock_all epoch on rank 1's window; rank 1 waits
 * in MPI_Barrier, inside the MPI, so that it answers at once. Per
 * operation, `back to back`: issue, then flush at once (the flush waits for
 * the answer); `after a gap`: issue, compute GAP_US, then flush (the answer
 * has long arrived: the flush's time is the origin's own work of taking
 * it). Medians of ITERS operations.
 *
 *   get_issue_us, get_flush_us              back to back
 *   get_issue_gap_us, get_flush_gap_us      with the gap
 *   acc_issue_us, acc_flush_us, acc_issue_gap_us, acc_flush_gap_us
 *
 * Check: the accumulated window must hold exactly ITERS * 2 ones per
 * element, and every get reads the values rank 1 wrote.
 *
 * Usage: rma_origin_work   (2 processes; WISP_VNODE_SIZE=1 under wisp)
 */
#include <mpi.h>
#include <stdio.h>

#include "bench_check.h" /* bench_median */
#include "bench_rma.h"   /* bench_now, bench_compute_for */

#define BLOCK  1024 /* ints: 4 KiB, as in ult_gcu */
#define ITERS  400
#define GAP_US 20.0

static int buf[BLOCK];
static double issue[ITERS], flush[ITERS];

/* ITERS operations of one kind; medians into *issue_us and *flush_us. */
static int measure(MPI_Win win, int acc, double gap_s, double *issue_us, double *flush_us)
{
    int bad = 0;
    for (int i = 0; i < ITERS; i++) {
        for (int k = 0; k < BLOCK; k++)
            buf[k] = acc ? 1 : -1;
        double t0 = bench_now();
        if (acc)
            MPI_Accumulate(buf, BLOCK, MPI_INT, 1, 0, BLOCK, MPI_INT, MPI_SUM, win);
        else
            MPI_Get(buf, BLOCK, MPI_INT, 1, 0, BLOCK, MPI_INT, win);
        double t1 = bench_now();
        if (gap_s > 0.0)
            bench_compute_for(gap_s);
        double t2 = bench_now();
        MPI_Win_flush(1, win);
        double t3 = bench_now();
        issue[i] = t1 - t0;
        flush[i] = t3 - t2;
        if (!acc)
            for (int k = 0; k < BLOCK; k++)
                bad |= buf[k] != k;
    }
    *issue_us = 1e6 * bench_median(issue, ITERS);
    *flush_us = 1e6 * bench_median(flush, ITERS);
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2 || argc > 1) {
        if (rank == 0)
            fprintf(stderr, "usage: rma_origin_work, on 2 processes\n");
        MPI_Finalize();
        return 2;
    }
    int *get, *acc;
    MPI_Win wget, wacc;
    MPI_Aint bytes = (MPI_Aint)sizeof(int) * BLOCK;
    MPI_Win_allocate(bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &get, &wget);
    MPI_Win_allocate(bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &acc, &wacc);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, wget);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, wacc);
    for (int k = 0; k < BLOCK; k++) {
        get[k] = k;
        acc[k] = 0;
    }
    MPI_Win_unlock(rank, wacc);
    MPI_Win_unlock(rank, wget);
    MPI_Barrier(MPI_COMM_WORLD);

    static const char *names[] = {"get", "acc"};
    double fig[2][4];
    int bad = 0;
    if (rank == 0) {
        MPI_Win_lock_all(0, wget);
        MPI_Win_lock_all(0, wacc);
        for (int op = 0; op < 2; op++) {
            MPI_Win w = op ? wacc : wget;
            bad |= measure(w, op, 0.0, &fig[op][0], &fig[op][1]);
            bad |= measure(w, op, GAP_US * 1e-6, &fig[op][2], &fig[op][3]);
        }
        MPI_Win_unlock_all(wacc);
        MPI_Win_unlock_all(wget);
    }
    MPI_Barrier(MPI_COMM_WORLD); /* rank 1 answers from inside the MPI here */
    if (rank == 1) {
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, wacc);
        for (int k = 0; k < BLOCK; k++)
            bad |= acc[k] != 2 * ITERS;
        MPI_Win_unlock(1, wacc);
    }
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0 && bad)
        fprintf(stderr, "rma_origin_work: wrong values got or accumulated\n");
    if (rank == 0 && !bad) {
        printf("# rma_origin_work: %d B per operation, gap %.0f us, median of %d\n",
               BLOCK * (int)sizeof(int), GAP_US, ITERS);
        for (int op = 0; op < 2; op++) {
            printf("metric %s_issue_us %.3f us lower\n", names[op], fig[op][0]);
            printf("metric %s_flush_us %.3f us lower\n", names[op], fig[op][1]);
            printf("metric %s_issue_gap_us %.3f us lower\n", names[op], fig[op][2]);
            printf("metric %s_flush_gap_us %.3f us lower\n", names[op], fig[op][3]);
        }
    }
    MPI_Win_free(&wacc);
    MPI_Win_free(&wget);
    MPI_Finalize();
    return bad;
}
