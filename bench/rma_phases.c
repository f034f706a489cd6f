/*
 * rma_phases.c - alternating compute-heavy and communication-heavy phases
 * of one-sided work (issue 28; seed 000, section 5.4, Fig. 5.10): the time
 * of each kind of phase, to compare where asynchronous progress goes.
 *
 * Every rank works on a window from MPI_Win_allocate, in lock_all epochs
 * (MPI_MODE_NOCHECK: nobody locks exclusively), against the next rank (its
 * peer). A phase is STEPS steps; a step is a
 * lock_all epoch of iterations followed by MPI_Win_fence(NOSUCCEED), the
 * collective point where a Global Arrays program would synchronize (and
 * where wisp's processes exchange what their profiles say):
 *
 *   compute  get 4 KiB from the peer + flush, compute 0-2 ms (uneven, by
 *            rank and iteration: the peer computes when the operations
 *            arrive, so natively they wait for it), accumulate 4 KiB into
 *            the peer + flush;
 *   comm     64 gets (get) or accumulates (acc) of one double to the peer,
 *            then a flush: everyone is inside MPI.
 *
 * With the argument `hint`, each phase begins with MPI_Win_set_info
 * (async_config=on before a compute phase, off before a communication
 * phase): the user-guided choice. Without it the set_info carries no key
 * and only passes a safe point.
 *
 * Results are exact: the gets check the peer's pattern, and each rank's
 * accumulated sums are checked against the count of accumulates it got.
 *
 * Usage: rma_phases get|acc [hint] [PHASES [STEPS [STEP_MS]]]
 *   (default 6 phases of 8 steps; a step is STEP_MS = 30 compute
 *   iterations, or 4 x STEP_MS communication iterations)
 * Rank 0 prints, for bench/run.py and bench/apps/report.py:
 *   metric compute_phase_ms <ms> ms lower   (median over compute phases)
 *   metric comm_phase_ms <ms> ms lower      (median over communication phases)
 *   metric total_ms <ms> ms lower
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_check.h"
#include "bench_rma.h"

enum { N = 512, MAX_PHASES = 64, COMM_OPS = 64 };

static int rank, size, peer, steps;
static double *mem; /* [0, N): a pattern the others read; [N, 2N): accumulated into */
static MPI_Win win;
static long acc_sent[N]; /* accumulates of 1.0 this rank sent per element */
static int bad;

static double pattern(int owner, int i)
{
    return owner * 100000.0 + i;
}

static void compute_iteration(int it)
{
    static double in[N], ones[N];
    MPI_Get(in, N, MPI_DOUBLE, peer, 0, N, MPI_DOUBLE, win);
    MPI_Win_flush(peer, win);
    bad += in[0] != pattern(peer, 0) || in[N - 1] != pattern(peer, N - 1);
    bench_compute_for(0.25e-3 * ((it * 37 + rank * 11) % 9)); /* uneven, 1 ms on average */
    for (int i = 0; i < N; i++) {
        ones[i] = 1.0;
        acc_sent[i]++;
    }
    MPI_Accumulate(ones, N, MPI_DOUBLE, peer, N, N, MPI_DOUBLE, MPI_SUM, win);
    MPI_Win_flush(peer, win);
}

static void comm_iteration(int acc, int it)
{
    static double got[COMM_OPS];
    double one = 1.0;
    for (int k = 0; k < COMM_OPS; k++) {
        int i = (it * COMM_OPS + k) % N;
        if (acc) {
            MPI_Accumulate(&one, 1, MPI_DOUBLE, peer, N + i, 1, MPI_DOUBLE, MPI_SUM, win);
            acc_sent[i]++;
        } else {
            MPI_Get(&got[k], 1, MPI_DOUBLE, peer, i, 1, MPI_DOUBLE, win);
        }
    }
    MPI_Win_flush(peer, win);
    for (int k = 0; !acc && k < COMM_OPS; k++)
        bad += got[k] != pattern(peer, (it * COMM_OPS + k) % N);
}

static void set_hint(const char *value)
{
    MPI_Info info;
    MPI_Info_create(&info);
    if (value)
        MPI_Info_set(info, "async_config", value);
    MPI_Win_set_info(win, info);
    MPI_Info_free(&info);
}

/* One phase of `steps` steps of `iterations`; returns its time (the slowest rank's). */
static double phase(int computing, int acc, int hint, int iterations)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = bench_now();
    set_hint(hint ? (computing ? "on" : "off") : NULL);
    static int comm_it, compute_it;
    for (int s = 0; s < steps; s++) {
        MPI_Win_lock_all(MPI_MODE_NOCHECK, win); /* nobody locks exclusively */
        for (int it = 0; it < iterations; it++)
            if (computing)
                compute_iteration(compute_it++);
            else
                comm_iteration(acc, comm_it++);
        MPI_Win_unlock_all(win);
        MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    }
    double t = bench_now() - t0;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return t;
}

static int count_arg(const char *prog, int argc, char **argv, int *at, int fallback, int max)
{
    return *at < argc ? bench_count_arg(prog, argv[(*at)++], max) : fallback;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *prog = "rma_phases";
    int acc = argc > 1 && strcmp(argv[1], "acc") == 0;
    if (argc < 2 || (!acc && strcmp(argv[1], "get") != 0) || size < 2) {
        if (rank == 0)
            fprintf(stderr,
                    "usage: %s get|acc [hint] [PHASES [STEPS [STEP_MS]]], 2 processes or more\n",
                    prog);
        MPI_Finalize();
        return 2;
    }
    int at = 2, hint = at < argc && strcmp(argv[at], "hint") == 0;
    at += hint;
    int phases = count_arg(prog, argc, argv, &at, 6, MAX_PHASES);
    steps = count_arg(prog, argc, argv, &at, 8, 1000);
    int step_ms = count_arg(prog, argc, argv, &at, 30, 10000);
    peer = (rank + 1) % size;

    MPI_Win_allocate(2 * N * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                     &win);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
    for (int i = 0; i < N; i++) {
        mem[i] = pattern(rank, i);
        mem[N + i] = 0.0;
    }
    MPI_Win_unlock(rank, win);
    MPI_Barrier(MPI_COMM_WORLD);

    /* Iterations per step, the same in every mode: a compute iteration
     * takes about 1 ms, a communication iteration natively 0.1-0.3 ms. */
    int compute_its = step_ms, comm_its = 4 * step_ms;

    double times[2][MAX_PHASES], total = 0;
    int n[2] = {0, 0};
    for (int p = 0; p < phases; p++) {
        int computing = p % 2 == 0;
        double t = phase(computing, acc, hint, computing ? compute_its : comm_its);
        times[computing][n[computing]++] = t;
        total += t;
    }

    /* Every accumulate arrived, once. */
    long *got = malloc(sizeof *got * N);
    MPI_Sendrecv(acc_sent, N, MPI_LONG, peer, 0, got, N, MPI_LONG, (rank + size - 1) % size, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
    for (int i = 0; i < N; i++)
        bad += mem[N + i] != (double)got[i];
    MPI_Win_unlock(rank, win);
    free(got);
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        if (bad) {
            fprintf(stderr, "%s: %d wrong results\n", prog, bad);
        } else {
            printf("metric compute_phase_ms %.3f ms lower\n", bench_median(times[1], n[1]) * 1e3);
            printf("metric comm_phase_ms %.3f ms lower\n", bench_median(times[0], n[0]) * 1e3);
            printf("metric total_ms %.3f ms lower\n", total * 1e3);
        }
    }
    MPI_Win_free(&win);
    MPI_Finalize();
    return bad != 0;
}
