/*
 * rma_load_balance.c - one heavily loaded target and the ghosts that serve
 * it (issue 4; seed 000, section 4.7.3, Figs. 4.15-4.16).
 *
 * The first ACTIVE ranks (default 4) share a window; other ranks sleep
 * (natively they stand in for wisp's ghosts: run it with ACTIVE + 2
 * processes and WISP_GHOSTS=2, and under wisp the active ranks are one
 * node's application processes with its 2 ghosts). In every epoch each
 * active rank, in a lock_all epoch, sends operations to every other active
 * rank, but rank 0 receives many more than the others:
 *
 *   put_heavy_<K>ops      every other rank puts K doubles to rank 0, one put
 *                         each; 1 put of one double to each other rank
 *                         (Fig. 4.16(a));
 *   acc_put_heavy_<K>ops  K x (accumulate + put) of one double to rank 0;
 *                         1 of each to the others (Fig. 4.16(b));
 *   acc_put_size_<S>B     one accumulate and one put of S bytes to rank 0;
 *                         of 8 bytes to the others (Fig. 4.16(c)).
 *
 * With static rank binding every operation on rank 0 goes to one ghost;
 * the dynamic bindings (WISP_GHOST_LOAD=random|op|byte) spread the puts
 * over both, and keep the accumulates on one. The time of an epoch is the
 * slowest rank's, from before lock_all to after unlock_all; the median of
 * REPS epochs is printed.
 *
 * Usage: rma_load_balance [ACTIVE [REPS]]   (defaults 4 and 5)
 *
 * Rank 0 prints `metric <name> <ms> ms lower` lines for bench/run.py and
 * bench/plot.py (x axes: K operations, S bytes). After each point every
 * target checks the values put in the last epoch and every accumulated
 * count exactly (exit 1 on a mismatch).
 */
#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_check.h"
#include "bench_rma.h"

#define MAX_ACTIVE 16
#define MAX_REPS   32
#define SPAN       4096 /* doubles per origin in each area: 32 KiB */

enum pattern { PUT_HEAVY, ACC_PUT_HEAVY, SIZE, PATTERNS };
static const char *pattern_name[] = {"put_heavy", "acc_put_heavy", "acc_put_size"};
static const int heavy_ops[] = {1, 4, 16, 64, 256};
static const int heavy_bytes[] = {8, 64, 512, 4096, 32768};
enum { POINTS = 5 };

static int rank, nactive;
static MPI_Comm active;
static MPI_Win win;
static double *mem;      /* put area: SPAN per origin; then the accumulate area */
static double *acc_want; /* what this rank's accumulate area must hold */
static double ones[SPAN], src[SPAN];

struct plan {
    int nput, put_len; /* nput puts of put_len doubles, put j at j * put_len */
    int nacc, acc_len; /* nacc accumulates of acc_len ones, all at 0 */
};

/* What `origin` sends to `target` in an epoch of pattern p, point x. */
static struct plan plan(enum pattern p, int x, int origin, int target)
{
    struct plan pl = {0, 1, 0, 1};
    if (origin == target)
        return pl;
    bool heavy = target == 0;
    pl.nput = heavy && p != SIZE ? heavy_ops[x] : 1;
    pl.put_len = heavy && p == SIZE ? heavy_bytes[x] / 8 : 1;
    pl.nacc = p == PUT_HEAVY ? 0 : heavy && p == ACC_PUT_HEAVY ? heavy_ops[x] : 1;
    pl.acc_len = pl.put_len;
    return pl;
}

static double value(int p, int x, int rep, int origin, int i)
{
    return 1.0 + i + SPAN * (origin + MAX_ACTIVE * (rep + MAX_REPS * (x + POINTS * p)));
}

static size_t put_at(int origin)
{
    return (size_t)origin * SPAN;
}

static size_t acc_at(int origin)
{
    return (size_t)(nactive + origin) * SPAN;
}

static double epoch(enum pattern p, int x, int rep)
{
    MPI_Barrier(active);
    double t0 = bench_now();
    MPI_Win_lock_all(0, win);
    for (int k = 1; k < nactive; k++) {
        int t = (rank + k) % nactive;
        struct plan pl = plan(p, x, rank, t);
        int n = pl.nput * pl.put_len;
        for (int i = 0; i < n; i++)
            src[i] = value(p, x, rep, rank, i);
        for (int j = 0; j < pl.nput || j < pl.nacc; j++) {
            if (j < pl.nacc)
                MPI_Accumulate(ones, pl.acc_len, MPI_DOUBLE, t, (MPI_Aint)acc_at(rank), pl.acc_len,
                               MPI_DOUBLE, MPI_SUM, win);
            if (j < pl.nput)
                MPI_Put(src + (size_t)j * pl.put_len, pl.put_len, MPI_DOUBLE, t,
                        (MPI_Aint)(put_at(rank) + (size_t)j * pl.put_len), pl.put_len, MPI_DOUBLE,
                        win);
        }
        /* The next target's values go to the same source buffer. */
        MPI_Win_flush_local(t, win);
    }
    MPI_Win_unlock_all(win);
    double t = bench_now() - t0;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, active);
    for (int o = 0; o < nactive; o++) {
        struct plan pl = plan(p, x, o, rank);
        for (int i = 0; i < pl.acc_len; i++)
            acc_want[(size_t)o * SPAN + i] += pl.nacc;
    }
    return t;
}

/* This rank's window after point x of pattern p, whose last epoch was `rep`. */
static int check(enum pattern p, int x, int rep)
{
    int bad = 0;
    MPI_Barrier(active);
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
    for (int o = 0; o < nactive; o++) {
        struct plan pl = plan(p, x, o, rank);
        for (int i = 0; i < pl.nput * pl.put_len; i++)
            bad += mem[put_at(o) + i] != value(p, x, rep, o, i);
        for (int i = 0; i < SPAN; i++)
            bad += mem[acc_at(o) + i] != acc_want[(size_t)o * SPAN + i];
    }
    MPI_Win_unlock(rank, win);
    if (bad)
        fprintf(stderr,
                "rma_load_balance: data check failed on rank %d after %s point %d: %d "
                "wrong values\n",
                rank, pattern_name[p], x, bad);
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *prog = "rma_load_balance";
    nactive = argc > 1 ? bench_count_arg(prog, argv[1], MAX_ACTIVE) : 4;
    int reps = argc > 2 ? bench_count_arg(prog, argv[2], MAX_REPS) : 5;
    if (nactive < 2) {
        if (rank == 0)
            fprintf(stderr, "%s: needs at least 2 active processes\n", prog);
        MPI_Finalize();
        return 2;
    }
    active = bench_first_ranks(prog, nactive);
    int bad = 0;
    double times[PATTERNS][POINTS];
    if (active != MPI_COMM_NULL) {
        for (int i = 0; i < SPAN; i++)
            ones[i] = 1.0;
        size_t n = 2 * (size_t)nactive * SPAN;
        acc_want = calloc((size_t)nactive * SPAN, sizeof *acc_want);
        if (!acc_want)
            MPI_Abort(MPI_COMM_WORLD, 1);
        MPI_Win_allocate((MPI_Aint)(n * sizeof(double)), sizeof(double), MPI_INFO_NULL, active,
                         &mem, &win);
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
        for (size_t i = 0; i < n; i++)
            mem[i] = 0.0;
        MPI_Win_unlock(rank, win);
        epoch(ACC_PUT_HEAVY, 0, 0); /* warm-up: connections, the ghosts' first wake-up */
        for (int p = 0; p < PATTERNS && !bad; p++)
            for (int x = 0; x < POINTS && !bad; x++) {
                double t[MAX_REPS];
                for (int r = 0; r < reps; r++)
                    t[r] = epoch((enum pattern)p, x, r);
                times[p][x] = bench_median(t, reps);
                int mine = check((enum pattern)p, x, reps - 1);
                MPI_Allreduce(&mine, &bad, 1, MPI_INT, MPI_MAX, active);
            }
    }
    bench_barrier(active != MPI_COMM_NULL);
    int any_bad = 0;
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0 && !any_bad)
        for (int p = 0; p < PATTERNS; p++)
            for (int x = 0; x < POINTS; x++) {
                if (p == SIZE)
                    printf("metric %s_%dB %.4f ms lower\n", pattern_name[p], heavy_bytes[x],
                           times[p][x] * 1e3);
                else
                    printf("metric %s_%dops %.4f ms lower\n", pattern_name[p], heavy_ops[x],
                           times[p][x] * 1e3);
            }
    if (active != MPI_COMM_NULL) {
        MPI_Win_free(&win);
        free(acc_want);
        MPI_Comm_free(&active);
    }
    MPI_Finalize();
    return any_bad;
}
