/*
 * rma_gcu.c - the get-compute-update kernel of NWChem with a shared task
 * counter (issue 4; seed 000, section 4.8, Fig. 4.18): time to solution.
 *
 * C += A x B for NB x NB matrices of BS x BS blocks, distributed round-robin
 * by block over every rank, each matrix in a window from MPI_Win_allocate.
 * A task (i, j, k) gets block A(i,k) and block B(k,j) (MPI_Get + flush),
 * multiplies them, spends an uneven extra time computing (0 to 2 ms, by
 * task number: the irregular work of CCSD(T)), and adds the product to
 * C(i,j) (MPI_Accumulate + flush_local). The next task comes from a counter
 * on rank 0 (MPI_Fetch_and_op + flush, NWChem's NXTASK). Every rank works:
 * natively all launched processes, under wisp all but the ghosts (Casper's
 * comparison: the same cores, one of them a ghost). Natively, the counter
 * and the accumulates wait for their target to call into MPI, which it does
 * only between tasks; ghosts answer at once.
 *
 * The matrices hold small integers, so every product and sum is exact in
 * double precision whatever the order of the accumulates: each rank checks
 * its blocks of C exactly against the product it computes itself, and
 * that the tasks handed out were NB^3, each exactly once.
 *
 * Usage: rma_gcu [REPS [compute|comm]]   (default 3 solutions, the median
 * is printed; `compute`, the default, is the compute-heavy phase above;
 * `comm` leaves the extra computation out, so that the gets, accumulates
 * and counter fetches dominate: the communication-heavy phase)
 *
 * Rank 0 prints, for bench/run.py:
 *   metric time_to_solution_ms <ms> ms lower
 *   metric nxtask_us <us> us lower        (mean time of one counter fetch)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_check.h"
#include "bench_rma.h"

#define NB       6  /* blocks per dimension */
#define BS       48 /* elements per block dimension */
#define TASKS    (NB * NB * NB)
#define MAX_REPS 16
#define BLOCK    (BS * BS)

static int rank, size;
static MPI_Win wa, wb, wc, wcount;
static double *ma, *mb, *mc;
static long *counter;
static double extra_s = 0.25e-3; /* extra computation per unit of a task's cost (0: comm phase) */

static double a_at(int row, int col)
{
    return (double)((row * 7 + col * 3) % 5 - 2);
}

static double b_at(int row, int col)
{
    return (double)((row * 2 + col * 5) % 7 - 3);
}

static int owner(int bi, int bj)
{
    return (bi * NB + bj) % size;
}

static MPI_Aint slot(int bi, int bj) /* displacement of block (bi,bj) at its owner */
{
    return (MPI_Aint)((bi * NB + bj) / size) * BLOCK;
}

static int local_blocks(void)
{
    return (NB * NB + size - 1) / size;
}

/* Fills this rank's blocks of A and B, zeroes its blocks of C. */
static void init_matrices(void)
{
    MPI_Win ws[3] = {wa, wb, wc};
    for (int w = 0; w < 3; w++)
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, ws[w]);
    for (int bi = 0; bi < NB; bi++)
        for (int bj = 0; bj < NB; bj++) {
            if (owner(bi, bj) != rank)
                continue;
            double *a = ma + slot(bi, bj), *b = mb + slot(bi, bj), *c = mc + slot(bi, bj);
            for (int r = 0; r < BS; r++)
                for (int s = 0; s < BS; s++) {
                    a[r * BS + s] = a_at(bi * BS + r, bj * BS + s);
                    b[r * BS + s] = b_at(bi * BS + r, bj * BS + s);
                    c[r * BS + s] = 0.0;
                }
        }
    for (int w = 0; w < 3; w++)
        MPI_Win_unlock(rank, ws[w]);
}

static void multiply(const double *a, const double *b, double *c)
{
    memset(c, 0, sizeof(double) * BLOCK);
    for (int r = 0; r < BS; r++)
        for (int k = 0; k < BS; k++) {
            double x = a[r * BS + k];
            for (int s = 0; s < BS; s++)
                c[r * BS + s] += x * b[k * BS + s];
        }
}

/* One solution; returns its time, adds this rank's tasks and fetch time. */
static double solve(long *tasks_done, double *fetch_s, long *fetches)
{
    static double a[BLOCK], b[BLOCK], c[BLOCK];
    long one = 1, task;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = bench_now();
    MPI_Win_lock_all(0, wa);
    MPI_Win_lock_all(0, wb);
    MPI_Win_lock_all(0, wc);
    MPI_Win_lock_all(0, wcount);
    for (;;) {
        double f0 = bench_now();
        MPI_Fetch_and_op(&one, &task, MPI_LONG, 0, 0, MPI_SUM, wcount);
        MPI_Win_flush(0, wcount);
        *fetch_s += bench_now() - f0;
        (*fetches)++;
        if (task >= TASKS)
            break;
        int i = (int)(task / (NB * NB)), j = (int)(task / NB % NB), k = (int)(task % NB);
        MPI_Get(a, BLOCK, MPI_DOUBLE, owner(i, k), slot(i, k), BLOCK, MPI_DOUBLE, wa);
        MPI_Get(b, BLOCK, MPI_DOUBLE, owner(k, j), slot(k, j), BLOCK, MPI_DOUBLE, wb);
        MPI_Win_flush(owner(i, k), wa);
        MPI_Win_flush(owner(k, j), wb);
        multiply(a, b, c);
        if (extra_s > 0.0)
            bench_compute_for(extra_s * (double)((task * 37) % 9));
        MPI_Accumulate(c, BLOCK, MPI_DOUBLE, owner(i, j), slot(i, j), BLOCK, MPI_DOUBLE, MPI_SUM,
                       wc);
        MPI_Win_flush_local(owner(i, j), wc);
        (*tasks_done)++;
    }
    MPI_Win_unlock_all(wcount);
    MPI_Win_unlock_all(wc);
    MPI_Win_unlock_all(wb);
    MPI_Win_unlock_all(wa);
    MPI_Barrier(MPI_COMM_WORLD); /* every accumulate has completed at its target */
    double t = bench_now() - t0;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return t;
}

/* This rank's blocks of C against the product computed here; returns the
 * number of wrong elements. */
static int check_c(void)
{
    int bad = 0;
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, wc);
    for (int bi = 0; bi < NB; bi++)
        for (int bj = 0; bj < NB; bj++) {
            if (owner(bi, bj) != rank)
                continue;
            const double *c = mc + slot(bi, bj);
            for (int r = 0; r < BS; r++)
                for (int s = 0; s < BS; s++) {
                    double want = 0.0;
                    for (int k = 0; k < NB * BS; k++)
                        want += a_at(bi * BS + r, k) * b_at(k, bj * BS + s);
                    bad += c[r * BS + s] != want;
                }
        }
    MPI_Win_unlock(rank, wc);
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *prog = "rma_gcu";
    int reps = argc > 1 ? bench_count_arg(prog, argv[1], MAX_REPS) : 3;
    if (argc > 2 && strcmp(argv[2], "comm") == 0)
        extra_s = 0.0;
    else if (argc > 2 && strcmp(argv[2], "compute") != 0) {
        if (rank == 0)
            fprintf(stderr, "%s: '%s' is not compute or comm\n", prog, argv[2]);
        MPI_Finalize();
        return 2;
    }
    /* Whole pages: MPICH 4.0.2 (ch4/ucx) targets the start of the page that holds a smaller
     * MPI_Win_allocate window (fixed by pmodels/mpich PR 6140). */
    MPI_Aint bytes =
        ((MPI_Aint)local_blocks() * BLOCK * (MPI_Aint)sizeof(double) + 4095) / 4096 * 4096;
    MPI_Win_allocate(bytes, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &ma, &wa);
    MPI_Win_allocate(bytes, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &mb, &wb);
    MPI_Win_allocate(bytes, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &mc, &wc);
    MPI_Win_allocate(4096, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &counter, &wcount);

    double times[MAX_REPS], fetch_s = 0.0;
    long fetches = 0;
    int bad = 0;
    for (int r = 0; r < reps && !bad; r++) {
        init_matrices();
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, wcount);
        counter[0] = 0;
        MPI_Win_unlock(rank, wcount);
        long done = 0;
        times[r] = solve(&done, &fetch_s, &fetches);
        /* Every task exactly once: NB^3 in all, and each rank's last fetch
         * (the one that found none left) counted once more. */
        long all_done = 0, final = -1;
        MPI_Allreduce(&done, &all_done, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        if (rank == 0) {
            MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, wcount);
            final = counter[0];
            MPI_Win_unlock(0, wcount);
        }
        MPI_Bcast(&final, 1, MPI_LONG, 0, MPI_COMM_WORLD);
        int mine = check_c();
        if (all_done != TASKS || final != TASKS + size)
            mine++;
        if (mine)
            fprintf(stderr,
                    "%s: data check failed on rank %d: %d wrong elements of C or counts "
                    "(tasks done %ld, counter %ld; expected %d and %d)\n",
                    prog, rank, mine, all_done, final, TASKS, TASKS + size);
        MPI_Allreduce(&mine, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    }
    double fetch_all = 0.0;
    long fetches_all = 0;
    MPI_Reduce(&fetch_s, &fetch_all, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&fetches, &fetches_all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0 && !bad) {
        printf("metric time_to_solution_ms %.3f ms lower\n", bench_median(times, reps) * 1e3);
        printf("metric nxtask_us %.3f us lower\n", fetch_all / (double)fetches_all * 1e6);
    }
    MPI_Win_free(&wcount);
    MPI_Win_free(&wc);
    MPI_Win_free(&wb);
    MPI_Win_free(&wa);
    MPI_Finalize();
    return bad;
}
