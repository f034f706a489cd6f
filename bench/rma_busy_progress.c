/*
 * rma_busy_progress.c - the origin's time while the target computes, over a
 * growing computation (issue 4; seed 000, section 4.7.2, Figs. 4.12-4.13),
 * in passive and in active target mode.
 *
 * Ranks 0 (the origin) and 1 (the target) share a window from
 * MPI_Win_allocate over the two of them; other ranks sleep (natively they
 * stand in for wisp's ghosts). For each busy time B the target computes
 * outside MPI for B ms while the origin does, and times:
 *
 *   passive  (lock_all held throughout) 10 x (MPI_Accumulate of one double
 *            + MPI_Win_flush): natively MPICH applies an accumulate only
 *            when the target calls into MPI, so this takes B; with ghosts
 *            a few microseconds;
 *   fence    MPI_Win_fence(NOPRECEDE), ACTIVE_OPS accumulates of
 *            ACTIVE_COUNT doubles, MPI_Win_fence(NOSUCCEED), the target
 *            fence, compute, fence: both sides wait for the target's second
 *            fence, so at least B; natively the accumulates are applied
 *            only after B, with ghosts during B (Fig. 4.13(b));
 *   pscw     MPI_Win_start, the accumulates, MPI_Win_complete; the target
 *            post, compute, wait: MPI_Win_complete need not wait for the
 *            target, but natively it waits for the accumulates, so for B.
 *
 * Usage: rma_busy_progress passive|fence|pscw [REPS]   (default 3; the
 * median of REPS measurements per busy time is printed)
 *
 * Rank 0 prints, for bench/run.py and bench/plot.py (x axis: B):
 *   metric <mode>_busy_<B>ms <ms> ms lower     B = 0, 1, 2, 4, ..., 256
 * where <mode> is acc_flush10 (passive), fence_acc_fence or
 * start_acc_complete. At the end the target checks that every element
 * holds the number of accumulates issued (exit 1 otherwise).
 */
#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "bench_check.h"
#include "bench_rma.h"

#define PASSIVE_PAIRS 10
#define ACTIVE_OPS    64
#define ACTIVE_COUNT  256 /* doubles per accumulate in the active modes */
#define MAX_REPS      32
#define WIN_BYTES     (ACTIVE_COUNT * 8)

static const int busy_ms[] = {0, 1, 2, 4, 8, 16, 32, 64, 128, 256};
enum { NBUSY = sizeof busy_ms / sizeof busy_ms[0] };
enum mode { PASSIVE, FENCE, PSCW };
static const char *metric_name[] = {"acc_flush10", "fence_acc_fence", "start_acc_complete"};

static int rank;
static MPI_Comm pair; /* ranks 0 and 1 */
static MPI_Win win;
static MPI_Group origin_group, target_group;
static double ones[ACTIVE_COUNT];

/* The origin's side of one measurement; returns the number of accumulates. */
static long origin_side(enum mode m)
{
    if (m == PASSIVE) {
        for (int i = 0; i < PASSIVE_PAIRS; i++) {
            MPI_Accumulate(ones, 1, MPI_DOUBLE, 1, 0, 1, MPI_DOUBLE, MPI_SUM, win);
            MPI_Win_flush(1, win);
        }
        return PASSIVE_PAIRS;
    }
    if (m == FENCE)
        MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    else
        MPI_Win_start(target_group, 0, win);
    for (int i = 0; i < ACTIVE_OPS; i++)
        MPI_Accumulate(ones, ACTIVE_COUNT, MPI_DOUBLE, 1, 0, ACTIVE_COUNT, MPI_DOUBLE, MPI_SUM,
                       win);
    if (m == FENCE)
        MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    else
        MPI_Win_complete(win);
    return ACTIVE_OPS;
}

static void target_side(enum mode m, double seconds)
{
    if (m == FENCE)
        MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    else if (m == PSCW)
        MPI_Win_post(origin_group, 0, win);
    bench_compute_for(seconds);
    if (m == FENCE)
        MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    else if (m == PSCW)
        MPI_Win_wait(win);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *prog = "rma_busy_progress";
    enum mode m = PASSIVE;
    if (argc < 2 ||
        (strcmp(argv[1], "passive") && strcmp(argv[1], "fence") && strcmp(argv[1], "pscw"))) {
        if (rank == 0)
            fprintf(stderr, "usage: %s passive|fence|pscw [REPS]\n", prog);
        MPI_Finalize();
        return 2;
    }
    m = !strcmp(argv[1], "fence") ? FENCE : !strcmp(argv[1], "pscw") ? PSCW : PASSIVE;
    int reps = argc > 2 ? bench_count_arg(prog, argv[2], MAX_REPS) : 3;
    pair = bench_first_ranks(prog, 2);
    bool active = pair != MPI_COMM_NULL;
    for (int i = 0; i < ACTIVE_COUNT; i++)
        ones[i] = 1.0;

    double *mem = NULL;
    if (active) {
        MPI_Win_allocate(WIN_BYTES, sizeof(double), MPI_INFO_NULL, pair, &mem, &win);
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
        for (int i = 0; i < ACTIVE_COUNT; i++)
            mem[i] = 0.0;
        MPI_Win_unlock(rank, win);
        MPI_Group g;
        MPI_Comm_group(pair, &g);
        int zero = 0, one = 1;
        MPI_Group_incl(g, 1, &zero, &origin_group);
        MPI_Group_incl(g, 1, &one, &target_group);
        MPI_Group_free(&g);
    }
    bench_barrier(active);
    if (active && m == PASSIVE)
        MPI_Win_lock_all(0, win);
    long issued = 0;
    if (active) { /* warm-up: connections, lock acquisition, the ghosts' first wake-up */
        if (rank == 0)
            issued += origin_side(m);
        else
            target_side(m, 0.0);
    }

    double times[NBUSY][MAX_REPS];
    for (int b = 0; b < NBUSY; b++) {
        for (int r = 0; r < reps; r++) {
            bench_barrier(active);
            if (rank == 0) {
                double t0 = bench_now();
                issued += origin_side(m);
                times[b][r] = bench_now() - t0;
            } else if (rank == 1) {
                target_side(m, busy_ms[b] * 1e-3);
            }
        }
    }
    bench_barrier(active);
    if (active && m == PASSIVE)
        MPI_Win_unlock_all(win);

    /* The check: every element the accumulates cover holds their number. */
    int bad = 0;
    if (active) {
        MPI_Bcast(&issued, 1, MPI_LONG, 0, pair);
        if (rank == 1) {
            int n = m == PASSIVE ? 1 : ACTIVE_COUNT;
            MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
            for (int i = 0; i < n; i++)
                if (mem[i] != (double)issued) {
                    if (!bad)
                        fprintf(stderr,
                                "%s: data check failed: element %d of the target holds %.0f, "
                                "%ld accumulates were issued\n",
                                prog, i, mem[i], issued);
                    bad = 1;
                }
            MPI_Win_unlock(1, win);
        }
    }
    int any_bad = 0;
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0 && !any_bad)
        for (int b = 0; b < NBUSY; b++)
            printf("metric %s_busy_%dms %.4f ms lower\n", metric_name[m], busy_ms[b],
                   bench_median(times[b], reps) * 1e3);
    if (active) {
        MPI_Group_free(&origin_group);
        MPI_Group_free(&target_group);
        MPI_Win_free(&win);
        MPI_Comm_free(&pair);
    }
    MPI_Finalize();
    return any_bad;
}
