/*
 * rma_cost.c - what the ghosts' correctness rules cost (issue 4; seed 000,
 * section 4.7.1, Fig. 4.11): window allocation, fence and PSCW in passive
 * mode, the self lock, and operations split across segments, each as a
 * time per call.
 *
 * Ranks 0 and 1 take part (windows over the two of them); other ranks
 * sleep (natively they stand in for wisp's ghosts). Each measurement runs
 * CHUNKS timed chunks after a barrier; the median chunk gives the time per
 * call, the slower of the two ranks where both take part.
 *
 *   win_allocate_free_us     MPI_Win_allocate of 4 KiB + MPI_Win_free, no info
 *   win_allocate_free_nolock_us   the same with epochs_used = fence,pscw,lockall
 *                            (no lock windows: Casper's epoch_type hint)
 *   fence_us                 MPI_Win_fence(0) on both
 *   fence_acc_fence_us       rank 0 fence(NOPRECEDE), accumulate of one
 *                            double, fence(NOSUCCEED); rank 1 the two fences
 *   pscw_acc_us              rank 0 start, accumulate, complete; rank 1 post, wait
 *   self_lock_us             rank 0 lock(exclusive, itself), put of one
 *                            double to itself, unlock
 *   self_lock_nocheck_us     the same with MPI_MODE_NOCHECK
 *   self_lock_nolls_us       the same on a window with no_local_load_store
 *   acc_flush_<n>B           rank 0, in a lock_all epoch, accumulate of n
 *                            bytes of doubles (1 KiB to 8 KiB) to rank 1 +
 *                            flush. Rank 1's window is 8 KiB and rank 0's
 *                            empty, so with segment binding
 *                            (WISP_GHOST_BINDING=segment) and g ghosts the
 *                            node's memory is in g segments and an
 *                            accumulate spans up to g of them.
 *
 * Usage: rma_cost [ITERS]   (default 400 calls per measurement, a fortieth
 * of that, at least 5, for window allocation)
 *
 * Rank 0 prints `metric <name> <us> us lower` lines for bench/run.py. The
 * accumulated and put values are checked exactly at the end (exit 1 on a
 * mismatch).
 */
#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>

#include "bench_check.h"
#include "bench_rma.h"

#define CHUNKS      5
#define SEG_DOUBLES 1024 /* rank 1's window for the split operations: 8 KiB */

static int rank;
static MPI_Comm pair;
static MPI_Group peer_group; /* the other rank of the pair */
static MPI_Win win, nocheck_win, nolls_win, seg_win;
static double *mem, *nocheck_mem, *nolls_mem, *seg_mem;
static double ones[SEG_DOUBLES];
static MPI_Info nolock_info;
static int seg_count; /* doubles per split accumulate */
static long fence_accs, pscw_accs, seg_accs[SEG_DOUBLES + 1];
static double put_value, self_last[3]; /* the last value put in win, nocheck_win, nolls_win */

enum { FENCE_SLOT, PSCW_SLOT, SELF_SLOT };

static void allocate_free(void)
{
    double *m;
    MPI_Win w;
    MPI_Win_allocate(4096, sizeof(double), MPI_INFO_NULL, pair, &m, &w);
    MPI_Win_free(&w);
}

static void allocate_free_nolock(void)
{
    double *m;
    MPI_Win w;
    MPI_Win_allocate(4096, sizeof(double), nolock_info, pair, &m, &w);
    MPI_Win_free(&w);
}

static void fence(void)
{
    MPI_Win_fence(0, win);
}

static void fence_acc_fence(void)
{
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    if (rank == 0) {
        MPI_Accumulate(ones, 1, MPI_DOUBLE, 1, FENCE_SLOT, 1, MPI_DOUBLE, MPI_SUM, win);
        fence_accs++;
    }
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
}

static void pscw_acc(void)
{
    if (rank == 0) {
        MPI_Win_start(peer_group, 0, win);
        MPI_Accumulate(ones, 1, MPI_DOUBLE, 1, PSCW_SLOT, 1, MPI_DOUBLE, MPI_SUM, win);
        pscw_accs++;
        MPI_Win_complete(win);
    } else {
        MPI_Win_post(peer_group, 0, win);
        MPI_Win_wait(win);
    }
}

static void self_lock_on(int which, MPI_Win w, int assert)
{
    if (rank != 0)
        return;
    put_value += 1.0;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, assert, w);
    MPI_Put(&put_value, 1, MPI_DOUBLE, 0, SELF_SLOT, 1, MPI_DOUBLE, w);
    MPI_Win_unlock(0, w);
    self_last[which] = put_value;
}

static void self_lock(void)
{
    self_lock_on(0, win, 0);
}

static void self_lock_nocheck(void)
{
    self_lock_on(1, nocheck_win, MPI_MODE_NOCHECK);
}

static void self_lock_nolls(void)
{
    self_lock_on(2, nolls_win, 0);
}

static void acc_flush(void)
{
    if (rank != 0)
        return;
    MPI_Accumulate(ones, seg_count, MPI_DOUBLE, 1, 0, seg_count, MPI_DOUBLE, MPI_SUM, seg_win);
    MPI_Win_flush(1, seg_win);
    seg_accs[seg_count]++;
}

/* Median over CHUNKS chunks of the time per call, in microseconds; `both`:
 * the slower rank's time, else rank 0's. */
static double per_call_us(void (*step)(void), int iters, bool both)
{
    int per_chunk = iters / CHUNKS > 0 ? iters / CHUNKS : 1;
    double chunk[CHUNKS];
    step(); /* warm-up */
    for (int c = 0; c < CHUNKS; c++) {
        MPI_Barrier(pair);
        double t0 = bench_now();
        for (int i = 0; i < per_chunk; i++)
            step();
        double t = (bench_now() - t0) / per_chunk * 1e6;
        if (both)
            MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, pair);
        chunk[c] = t;
    }
    return bench_median(chunk, CHUNKS);
}

static void set_local(MPI_Win w, double *m, int n)
{
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, w);
    for (int i = 0; i < n; i++)
        m[i] = 0.0;
    MPI_Win_unlock(rank, w);
}

/* Exact checks of everything the measurements stored; returns the number of errors. */
static int check(void)
{
    int bad = 0;
    long theirs[SEG_DOUBLES + 3];
    long mine[SEG_DOUBLES + 3];
    for (int n = 0; n <= SEG_DOUBLES; n++)
        mine[n] = seg_accs[n];
    mine[SEG_DOUBLES + 1] = fence_accs;
    mine[SEG_DOUBLES + 2] = pscw_accs;
    MPI_Bcast(rank == 0 ? mine : theirs, SEG_DOUBLES + 3, MPI_LONG, 0, pair);
    if (rank == 1) {
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
        bad += mem[FENCE_SLOT] != (double)theirs[SEG_DOUBLES + 1];
        bad += mem[PSCW_SLOT] != (double)theirs[SEG_DOUBLES + 2];
        MPI_Win_unlock(1, win);
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, seg_win);
        long covering = 0; /* accumulates that reached element i */
        for (int n = SEG_DOUBLES, i = SEG_DOUBLES - 1; i >= 0; i--) {
            for (; n > i; n--)
                covering += theirs[n];
            bad += seg_mem[i] != (double)covering;
        }
        MPI_Win_unlock(1, seg_win);
    } else {
        /* Each self-lock measurement left its last value in its window. */
        MPI_Win ws[3] = {win, nocheck_win, nolls_win};
        double *ms[3] = {mem, nocheck_mem, nolls_mem};
        for (int k = 0; k < 3; k++) {
            MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, ws[k]);
            bad += ms[k][SELF_SLOT] != self_last[k];
            MPI_Win_unlock(0, ws[k]);
        }
    }
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *prog = "rma_cost";
    int iters = argc > 1 ? bench_count_arg(prog, argv[1], 10000000) : 400;
    pair = bench_first_ranks(prog, 2);
    if (pair == MPI_COMM_NULL) {
        bench_barrier(false);
        int any_bad = 0, zero = 0;
        MPI_Allreduce(&zero, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        MPI_Finalize();
        return any_bad;
    }
    for (int i = 0; i < SEG_DOUBLES; i++)
        ones[i] = 1.0;
    MPI_Group g;
    MPI_Comm_group(pair, &g);
    int peer = 1 - rank;
    MPI_Group_incl(g, 1, &peer, &peer_group);
    MPI_Group_free(&g);
    MPI_Info_create(&nolock_info);
    MPI_Info_set(nolock_info, "epochs_used", "fence,pscw,lockall");
    MPI_Info nolls_info;
    MPI_Info_create(&nolls_info);
    MPI_Info_set(nolls_info, "no_local_load_store", "true");

    MPI_Win_allocate(4096, sizeof(double), MPI_INFO_NULL, pair, &mem, &win);
    MPI_Win_allocate(4096, sizeof(double), MPI_INFO_NULL, pair, &nocheck_mem, &nocheck_win);
    MPI_Win_allocate(4096, sizeof(double), nolls_info, pair, &nolls_mem, &nolls_win);
    MPI_Win_allocate(rank == 1 ? SEG_DOUBLES * sizeof(double) : 0, sizeof(double), MPI_INFO_NULL,
                     pair, &seg_mem, &seg_win);
    MPI_Info_free(&nolls_info);
    set_local(win, mem, 8);
    set_local(nocheck_win, nocheck_mem, 8);
    if (rank == 1)
        set_local(seg_win, seg_mem, SEG_DOUBLES);
    MPI_Barrier(pair);

    int few = iters / 40 > CHUNKS ? iters / 40 : CHUNKS; /* creations are slow with ghosts */
    double alloc = per_call_us(allocate_free, few, true);
    double alloc_nolock = per_call_us(allocate_free_nolock, few, true);
    double fence_t = per_call_us(fence, iters, true);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    double fence_acc = per_call_us(fence_acc_fence, iters, true);
    double pscw = per_call_us(pscw_acc, iters, true);
    double self = per_call_us(self_lock, iters, false);
    double self_nocheck = per_call_us(self_lock_nocheck, iters, false);
    double self_nolls = per_call_us(self_lock_nolls, iters, false);
    static const int seg_bytes[] = {1024, 2048, 4096, 8192};
    double seg[4];
    MPI_Win_lock_all(0, seg_win);
    for (int s = 0; s < 4; s++) {
        seg_count = seg_bytes[s] / (int)sizeof(double);
        seg[s] = per_call_us(acc_flush, iters, false);
    }
    MPI_Win_unlock_all(seg_win);
    MPI_Barrier(pair);

    int bad = check();
    if (bad)
        fprintf(stderr, "%s: data check failed on rank %d: %d wrong values\n", prog, rank, bad);
    bench_barrier(true);
    int any_bad = 0;
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0 && !any_bad) {
        printf("metric win_allocate_free_us %.3f us lower\n", alloc);
        printf("metric win_allocate_free_nolock_us %.3f us lower\n", alloc_nolock);
        printf("metric fence_us %.3f us lower\n", fence_t);
        printf("metric fence_acc_fence_us %.3f us lower\n", fence_acc);
        printf("metric pscw_acc_us %.3f us lower\n", pscw);
        printf("metric self_lock_us %.3f us lower\n", self);
        printf("metric self_lock_nocheck_us %.3f us lower\n", self_nocheck);
        printf("metric self_lock_nolls_us %.3f us lower\n", self_nolls);
        for (int s = 0; s < 4; s++)
            printf("metric acc_flush_%dB %.3f us lower\n", seg_bytes[s], seg[s]);
    }
    MPI_Win_free(&seg_win);
    MPI_Win_free(&nolls_win);
    MPI_Win_free(&nocheck_win);
    MPI_Win_free(&win);
    MPI_Info_free(&nolock_info);
    MPI_Group_free(&peer_group);
    MPI_Comm_free(&pair);
    MPI_Finalize();
    return any_bad;
}
