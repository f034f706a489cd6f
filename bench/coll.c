/*
 * coll.c - time per call of MPI_Barrier, MPI_Bcast, MPI_Reduce and
 * MPI_Allreduce on MPI_COMM_WORLD at 8 B, 64 KiB and 1 MiB (doubles, MPI_SUM;
 * root 0), and of MPI_Gather(v), MPI_Scatter(v) and MPI_Allgather(v) with
 * blocks of those sizes per process (the v-forms with the same blocks),
 * of MPI_Alltoall(v, w) with blocks of those sizes per pair of processes,
 * of MPI_Reduce_scatter(_block) with that much per process and of MPI_Scan
 * and MPI_Exscan with that much (doubles, MPI_SUM), in the style of the
 * OSU collective benchmarks, from malloc (so in wisp's shared heap when
 * wisp is preloaded, as an unmodified program's buffers are), in three
 * modes:
 *
 *   hot    the same buffers call after call (cache-hot): <name>_<size>B;
 *   vary   a ring of buffer sets, twice the last-level cache together
 *          (sysconf, else 32 MiB), each filled with its own values and
 *          stamped with the call's number before the call: every call
 *          moves other data from memory that is not in the cache, as an
 *          application's do: <name>_<size>B_vary;
 *   first  the first FIRST_CALLS calls on a communicator just made with
 *          MPI_Comm_dup (its set-up included: under wisp's default
 *          WISP_COLL_AFTER=1 the first goes to the MPI and the second sets
 *          up the area), FIRST_TRIALS communicators, the median of their
 *          sums: <name>_<size>B_first (us for the FIRST_CALLS calls).
 *
 * For each collective and size a warm-up runs 1, 2, 4, ... calls until one
 * pass lasts CALIB_S (every rank agrees on the count through rank 0's); then
 * TRIALS chunks of about TARGET_S / TRIALS each, each after a barrier. A
 * chunk's time per call is the largest over the ranks (a root that returns
 * early does not flatter a broadcast); the figure is the median chunk.
 * Every result is checked once after the timing (exit 1 if wrong).
 *
 * Usage: coll [NAME ...] [hot|vary|first ...] [8 65536 1048576 ...]    (the
 * collectives to time, by their metric's name: default all; the modes:
 * default all three; sizes in bytes: default those three)
 * Rank 0 prints lines that bench/run.py reads:
 *   metric <collective>_<size>B[_vary|_first] <microseconds> us lower
 *   (barrier: barrier, barrier_first)
 */
#include <mpi.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CALIB_S      0.02
#define TARGET_S     0.25
#define TRIALS       7
#define FIRST_CALLS  2
#define FIRST_TRIALS 15
#define LLC_DEFAULT  (32L << 20)
#define RING_MAX     4096

static int me, np;
static MPI_Comm comm; /* where the timed calls go: the world, or a fresh dup */
/* The buffers of the call to come: the only set (hot), or the ring's next. */
static double *in, *out, *all; /* all: a block per process */
static int *counts, *displs;
static double *all2;        /* another block per process: an all-to-all's */
static int *bytes_displs;   /* MPI_Alltoallw's */
static MPI_Datatype *types; /* MPI_Alltoallw's */

/* The buffer sets: `ring` of them, each kind's `stride` bytes apart (whole
 * pages, so that sets share no line); the hot mode uses the first. */
static char *in0, *out0, *all0, *all20;
static size_t stride, stride_all;
static long ring = 1, next;
static bool varying;

static void use_set(long k)
{
    in = (double *)(in0 + (size_t)k * stride);
    out = (double *)(out0 + (size_t)k * stride);
    all = (double *)(all0 + (size_t)k * stride_all);
    all2 = (double *)(all20 + (size_t)k * stride_all);
}

/* The vary mode: the next set, stamped with the call's number where the
 * collectives read (so that no call sees the bytes of the one before). */
static void next_set(void)
{
    next = next + 1 < ring ? next + 1 : 0;
    use_set(next);
    static double stamp;
    stamp += 1.0;
    in[0] = stamp;
    all[0] = stamp;
}

enum coll {
    BARRIER,
    BCAST,
    REDUCE,
    ALLREDUCE,
    GATHER,
    GATHERV,
    SCATTER,
    SCATTERV,
    ALLGATHER,
    ALLGATHERV,
    ALLTOALL,
    ALLTOALLV,
    ALLTOALLW,
    REDUCE_SCATTER_BLOCK,
    REDUCE_SCATTER,
    SCAN,
    EXSCAN,
    NCOLL
};
static const char *names[] = {"barrier",        "bcast",
                              "reduce",         "allreduce",
                              "gather",         "gatherv",
                              "scatter",        "scatterv",
                              "allgather",      "allgatherv",
                              "alltoall",       "alltoallv",
                              "alltoallw",      "reduce_scatter_block",
                              "reduce_scatter", "scan",
                              "exscan"};

static void move(enum coll c, int count)
{
    for (int m = 0; m < np; m++) {
        counts[m] = count;
        displs[m] = m * count;
    }
    switch (c) {
    case GATHER:
        MPI_Gather(in, count, MPI_DOUBLE, all, count, MPI_DOUBLE, 0, comm);
        break;
    case GATHERV:
        MPI_Gatherv(in, count, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0, comm);
        break;
    case SCATTER:
        MPI_Scatter(all, count, MPI_DOUBLE, out, count, MPI_DOUBLE, 0, comm);
        break;
    case SCATTERV:
        MPI_Scatterv(all, counts, displs, MPI_DOUBLE, out, count, MPI_DOUBLE, 0, comm);
        break;
    case ALLGATHER:
        MPI_Allgather(in, count, MPI_DOUBLE, all, count, MPI_DOUBLE, comm);
        break;
    case ALLGATHERV:
        MPI_Allgatherv(in, count, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, comm);
        break;
    default:
        break;
    }
}

/* The all-to-alls, reduce-scatters and scans: `all` to `all2`, `all` to
 * `out`, `in` to `out`. */
static void exchange(enum coll c, int count)
{
    for (int m = 0; m < np; m++) {
        counts[m] = count;
        displs[m] = m * count;
        bytes_displs[m] = m * count * (int)sizeof(double);
        types[m] = MPI_DOUBLE;
    }
    switch (c) {
    case ALLTOALL:
        MPI_Alltoall(all, count, MPI_DOUBLE, all2, count, MPI_DOUBLE, comm);
        break;
    case ALLTOALLV:
        MPI_Alltoallv(all, counts, displs, MPI_DOUBLE, all2, counts, displs, MPI_DOUBLE, comm);
        break;
    case ALLTOALLW:
        MPI_Alltoallw(all, counts, bytes_displs, types, all2, counts, bytes_displs, types, comm);
        break;
    case REDUCE_SCATTER_BLOCK:
        MPI_Reduce_scatter_block(all, out, count, MPI_DOUBLE, MPI_SUM, comm);
        break;
    case REDUCE_SCATTER:
        MPI_Reduce_scatter(all, out, counts, MPI_DOUBLE, MPI_SUM, comm);
        break;
    case SCAN:
        MPI_Scan(in, out, count, MPI_DOUBLE, MPI_SUM, comm);
        break;
    case EXSCAN:
        MPI_Exscan(in, out, count, MPI_DOUBLE, MPI_SUM, comm);
        break;
    default:
        break;
    }
}

static void call(enum coll c, int count)
{
    switch (c) {
    case BARRIER:
        MPI_Barrier(comm);
        break;
    case BCAST:
        MPI_Bcast(in, count, MPI_DOUBLE, 0, comm);
        break;
    case REDUCE:
        MPI_Reduce(in, out, count, MPI_DOUBLE, MPI_SUM, 0, comm);
        break;
    case ALLREDUCE:
        MPI_Allreduce(in, out, count, MPI_DOUBLE, MPI_SUM, comm);
        break;
    default:
        if (c >= ALLTOALL)
            exchange(c, count);
        else
            move(c, count);
        break;
    }
}

/* Seconds per call over `iters` calls, the largest over the ranks. */
static double chunk(enum coll c, int count, long iters)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long i = 0; i < iters; i++) {
        if (varying)
            next_set();
        call(c, count);
    }
    double mine = (MPI_Wtime() - t0) / (double)iters, worst;
    MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return worst;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double measure(enum coll c, int count)
{
    long iters = 1;
    for (;;) {
        double t = chunk(c, count, iters) * (double)iters;
        MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        if (t >= CALIB_S || iters > (1L << 30))
            break;
        iters *= 2;
    }
    long per = (long)((double)iters * TARGET_S / TRIALS / CALIB_S);
    if (per < 1)
        per = 1;
    double trial[TRIALS];
    for (int k = 0; k < TRIALS; k++)
        trial[k] = chunk(c, count, per);
    qsort(trial, TRIALS, sizeof trial[0], by_value);
    return trial[TRIALS / 2];
}

/* The first FIRST_CALLS calls on a fresh duplicate of the world, FIRST_TRIALS
 * times: the median of their sums (the largest over the ranks). */
static double first(enum coll c, int count)
{
    double trial[FIRST_TRIALS];
    for (int k = 0; k < FIRST_TRIALS; k++) {
        MPI_Comm_dup(MPI_COMM_WORLD, &comm);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < FIRST_CALLS; i++)
            call(c, count);
        double mine = MPI_Wtime() - t0;
        MPI_Allreduce(&mine, &trial[k], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        MPI_Comm_free(&comm);
    }
    comm = MPI_COMM_WORLD;
    qsort(trial, FIRST_TRIALS, sizeof trial[0], by_value);
    return trial[FIRST_TRIALS / 2];
}

/* The last-level cache's bytes (the largest level sysconf knows). */
static long llc_bytes(void)
{
    long bytes = -1;
#ifdef _SC_LEVEL3_CACHE_SIZE
    bytes = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (bytes <= 0)
        bytes = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
    return bytes > 0 ? bytes : LLC_DEFAULT;
}

/* The buffer sets for blocks of up to `largest` bytes: one, or (vary) a
 * ring twice the last-level cache; every page touched, each set filled
 * with its own values. */
static void alloc_sets(long largest, bool vary)
{
    size_t page = 4096;
    stride = ((size_t)largest + page - 1) / page * page;
    stride_all = stride * (size_t)np;
    size_t per_set = 2 * stride + 2 * stride_all;
    if (vary) {
        ring = (long)((2 * (size_t)llc_bytes() + per_set - 1) / per_set);
        ring = ring < 2 ? 2 : ring > RING_MAX ? RING_MAX : ring;
    }
    in0 = malloc(stride * (size_t)ring);
    out0 = malloc(stride * (size_t)ring);
    all0 = malloc(stride_all * (size_t)ring);
    all20 = malloc(stride_all * (size_t)ring);
    if (!in0 || !out0 || !all0 || !all20) {
        fprintf(stderr, "coll: no memory for %ld buffer sets of %zu bytes\n", ring, per_set);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (long k = 0; k < ring; k++) {
        unsigned char v = (unsigned char)(k * 7 + me);
        memset(in0 + (size_t)k * stride, v, stride);
        memset(out0 + (size_t)k * stride, 0, stride);
        memset(all0 + (size_t)k * stride_all, v, stride_all);
        memset(all20 + (size_t)k * stride_all, 0, stride_all);
    }
    use_set(0);
}

/* The results of one call of each, checked. */
static int check(int count)
{
    int bad = 0;
    for (int i = 0; i < count; i++)
        in[i] = me == 0 ? (double)(i % 1000) : -1.0;
    MPI_Bcast(in, count, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    for (int i = 0; i < count; i++)
        bad |= in[i] != (double)(i % 1000);
    for (int i = 0; i < count; i++)
        in[i] = (double)(me + i % 7);
    MPI_Allreduce(in, out, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < count; i++)
        bad |= out[i] != (double)np * (i % 7) + (double)np * (np - 1) / 2;
    MPI_Reduce(in, out, count, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    for (int i = 0; i < count && me == 0; i++)
        bad |= out[i] != (double)np * (i % 7) + (double)np * (np - 1) / 2;
    for (enum coll c = GATHER; c <= ALLGATHERV; c++) {
        bool root = me == 0 || c >= ALLGATHER;
        for (long i = 0; i < (long)np * count; i++)
            all[i] = c == SCATTER || c == SCATTERV ? (double)(i % 1000) : -1.0;
        move(c, count);
        for (long i = 0; i < (long)np * count && root && c != SCATTER && c != SCATTERV; i++)
            bad |= all[i] != (double)(i / count + (i % count) % 7);
        for (int i = 0; i < count && (c == SCATTER || c == SCATTERV); i++)
            bad |= out[i] != (double)(((long)me * count + i) % 1000);
    }
    return bad;
}

/* The results of one call of each of exchange()'s, checked. */
static int check_exchange(int count)
{
    int bad = 0;
    long n = (long)np * count;
    for (enum coll c = ALLTOALL; c <= ALLTOALLW; c++) {
        for (long i = 0; i < n; i++) {
            all[i] = (double)(me * 1000 + (i / count) * 10 + i % count % 7);
            all2[i] = -1.0;
        }
        exchange(c, count);
        for (long i = 0; i < n; i++)
            bad |= all2[i] != (double)((i / count) * 1000 + me * 10 + i % count % 7);
    }
    for (enum coll c = REDUCE_SCATTER_BLOCK; c <= REDUCE_SCATTER; c++) {
        for (long i = 0; i < n; i++)
            all[i] = (double)(me + i % 7);
        exchange(c, count);
        for (long i = 0; i < count; i++)
            bad |= out[i] != (double)np * ((me * count + i) % 7) + (double)np * (np - 1) / 2;
    }
    for (int i = 0; i < count; i++)
        in[i] = (double)(me + i % 7);
    for (enum coll c = SCAN; c <= EXSCAN; c++) {
        int last = c == SCAN ? me : me - 1;
        exchange(c, count);
        for (int i = 0; i < count && last >= 0; i++)
            bad |= out[i] != (double)(last + 1) * (i % 7) + (double)last * (last + 1) / 2;
    }
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    comm = MPI_COMM_WORLD;
    long sizes[16] = {8, 65536, 1048576};
    int nsizes = 3;
    bool timed[NCOLL], named = false;
    bool hot = false, vary = false, fresh = false;
    memset(timed, 0, sizeof timed);
    for (int a = 1; a < argc; a++) {
        for (enum coll c = BARRIER; c < NCOLL; c++)
            if (!strcmp(argv[a], names[c]))
                timed[c] = named = true;
        hot |= !strcmp(argv[a], "hot");
        vary |= !strcmp(argv[a], "vary");
        fresh |= !strcmp(argv[a], "first");
    }
    if (!hot && !vary && !fresh)
        hot = vary = fresh = true;
    int given = 0;
    for (int a = 1; a < argc && given < 16; a++)
        if (argv[a][0] >= '0' && argv[a][0] <= '9')
            sizes[given++] = atol(argv[a]);
    if (given)
        nsizes = given;
    for (enum coll c = BARRIER; c < NCOLL && !named; c++)
        timed[c] = true;
    long largest = 8;
    for (int s = 0; s < nsizes; s++)
        largest = sizes[s] > largest ? sizes[s] : largest;
    alloc_sets(largest, vary);
    counts = malloc(sizeof(int) * (size_t)np);
    displs = malloc(sizeof(int) * (size_t)np);
    bytes_displs = malloc(sizeof(int) * (size_t)np);
    types = malloc(sizeof(MPI_Datatype) * (size_t)np);
    if (timed[BARRIER] && hot) {
        double t = measure(BARRIER, 0);
        if (me == 0)
            printf("metric barrier %.3f us lower\n", t * 1e6);
    }
    if (timed[BARRIER] && fresh) {
        double t = first(BARRIER, 0);
        if (me == 0)
            printf("metric barrier_first %.3f us lower\n", t * 1e6);
    }
    int bad = 0;
    for (int s = 0; s < nsizes; s++) {
        int count = (int)(sizes[s] / (long)sizeof(double));
        for (enum coll c = BCAST; c < NCOLL; c++) {
            if (!timed[c])
                continue;
            if (hot) {
                double t = measure(c, count);
                if (me == 0)
                    printf("metric %s_%ldB %.3f us lower\n", names[c], sizes[s], t * 1e6);
            }
            if (vary) {
                varying = true;
                double t = measure(c, count);
                varying = false;
                use_set(0);
                if (me == 0)
                    printf("metric %s_%ldB_vary %.3f us lower\n", names[c], sizes[s], t * 1e6);
            }
            if (fresh) {
                double t = first(c, count);
                if (me == 0)
                    printf("metric %s_%ldB_first %.3f us lower\n", names[c], sizes[s], t * 1e6);
            }
        }
        bad |= check(count);
        bad |= check_exchange(count);
    }
    int any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any && me == 0)
        fprintf(stderr, "coll: wrong results\n");
    MPI_Finalize();
    return any ? 1 : 0;
}
