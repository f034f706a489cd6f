/*
 * p2p_latency.c - point-to-point latency between two MPI processes.
 *
 * Measures the one-way latency of MPI_Send/MPI_Recv, in the style of the OSU
 * micro-benchmarks' osu_latency: rank 0 sends a message to rank 1, which
 * sends one of the same size back (a ping-pong); the latency is half the
 * average round trip. Message sizes are 0 B and the powers of two from 1 B to
 * 4 MiB.
 *
 * For each size a warm-up runs 1, 2, 4, ... round trips until one pass lasts
 * CALIB_S; its time per round trip sets the iteration count, so that every
 * size is timed for about TARGET_S (fewer iterations for large sizes). The
 * timed part is split into TRIALS chunks, each started after a barrier and
 * timed by rank 0 with MPI_Wtime; the median chunk gives the figure, so that
 * a rank preempted for a while by another process spoils one chunk only. A
 * longer warm-up (STARTUP_S) comes before the first size.
 *
 * Like osu_latency, the default sends the same buffer again and again, with
 * only the checked bytes changed: most of its cache lines may already sit in
 * the receiver's cache, which flatters single-copy protocols (the MPI's and
 * wisp's alike). With the argument `fresh`, each side rewrites its whole send
 * buffer before every send (the time of that memset is included on both
 * sides), so every byte must really travel; the metrics are then named
 * latency_fresh_<size>B.
 *
 * Every message is checked: its first, middle and last bytes carry a value
 * that depends on the message number, its size and its direction, and its
 * length must be exact; with `validate`, every byte (bench_check.h). A
 * mismatch (an interposed engine that delivers stale, short or misplaced
 * data) prints what was wrong and aborts with exit code 1.
 *
 * With more processes (an even number), rank i and rank i + n/2 make a pair,
 * as in osu_multi_lat, every pair timing its own ping-pongs at once; the
 * figure is rank 0's pair. Run with more processes than cores, it is how
 * an oversubscribed node waits.
 *
 * Usage: p2p_latency [fresh] [validate]     (2 processes, or any even number)
 *
 * Rank 0 prints, per size, a line that bench/run.py reads:
 *   metric latency_<size>B <microseconds> us lower
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_check.h"

#define MAX_SIZE  ((size_t)4 << 20)
#define STARTUP_S 0.050 /* first warm-up, lets the scheduler place the two processes */
#define CALIB_S   0.005 /* a warm-up pass at least this long sets the iteration count */
#define TARGET_S  0.030 /* timed part per size, in TRIALS chunks */
#define TRIALS    5
#define MIN_CHUNK 2L
#define MAX_ITERS 1000000L
#define TAG_PING  1
#define TAG_PONG  2

static const char *prog = "p2p_latency";
static int fresh;   /* rewrite the whole send buffer before each send */
static int partner; /* the other rank of this one's pair */
static int pinger;  /* this rank sends first (the lower half) */

/* n round trips of `size` bytes, numbered from *msg on (both ranks count
 * alike). Returns the elapsed time, meaningful on rank 0. */
static double pingpong(unsigned char *sbuf, unsigned char *rbuf, size_t size, long n, long *msg)
{
    MPI_Status status;
    int count = (int)size;
    double t0 = MPI_Wtime();

    for (long i = 0; i < n; i++, (*msg)++) {
        if (pinger) {
            if (fresh)
                memset(sbuf, (int)(*msg & 0xff), size);
            bench_stamp(sbuf, size, *msg, 0);
            MPI_Send(sbuf, count, MPI_BYTE, partner, TAG_PING, MPI_COMM_WORLD);
            MPI_Recv(rbuf, count, MPI_BYTE, partner, TAG_PONG, MPI_COMM_WORLD, &status);
            bench_verify(prog, rbuf, size, *msg, 1, &status);
        } else {
            MPI_Recv(rbuf, count, MPI_BYTE, partner, TAG_PING, MPI_COMM_WORLD, &status);
            bench_verify(prog, rbuf, size, *msg, 0, &status);
            if (fresh)
                memset(sbuf, (int)(*msg & 0xff), size);
            bench_stamp(sbuf, size, *msg, 1);
            MPI_Send(sbuf, count, MPI_BYTE, partner, TAG_PONG, MPI_COMM_WORLD);
        }
    }
    return MPI_Wtime() - t0;
}

/* Warm-up: passes of 1, 2, 4, ... round trips until one lasts pass_s.
 * Returns the time per round trip of the last pass. Rank 0's time,
 * broadcast, makes every decision, so both ranks run the same passes. */
static double warm_up(unsigned char *sbuf, unsigned char *rbuf, size_t size, double pass_s,
                      long *msg)
{
    long n = 1;
    double t;
    for (;;) {
        t = pingpong(sbuf, rbuf, size, n, msg);
        MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        if (t >= pass_s || n >= MAX_ITERS)
            return t / (double)n;
        n *= 2;
    }
}

/* Warms up and times one size; returns the one-way latency in seconds. */
static double measure(unsigned char *sbuf, unsigned char *rbuf, size_t size, long *msg)
{
    double per_trip = warm_up(sbuf, rbuf, size, CALIB_S, msg);
    double want = per_trip > 0.0 ? TARGET_S / TRIALS / per_trip : (double)MAX_ITERS;
    long chunk = want < (double)MIN_CHUNK   ? MIN_CHUNK
                 : want > (double)MAX_ITERS ? MAX_ITERS
                                            : (long)want;

    /* TRIALS chunks, each started together, and their median: a rank
     * preempted by another process for a while spoils one chunk, not the
     * size's figure. */
    double t[TRIALS];
    for (int i = 0; i < TRIALS; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        t[i] = pingpong(sbuf, rbuf, size, chunk, msg);
    }
    return bench_median(t, TRIALS) / (2.0 * (double)chunk);
}

int main(int argc, char **argv)
{
    int rank, nprocs;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

    /* Every rank sees the same argc and size, so all of them take the same
     * way out and can finalize cleanly. */
    argc = bench_private_arg(argc, argv);
    argc = bench_validate_arg(argc, argv);
    fresh = argc == 2 && !strcmp(argv[1], "fresh");
    if (argc > 2 || (argc == 2 && !fresh)) {
        if (rank == 0)
            fprintf(stderr,
                    "usage: %s [fresh] [private] [validate]    (an even number of processes)\n",
                    argv[0]);
        MPI_Finalize();
        return 2;
    }
    if (nprocs % 2) {
        if (rank == 0)
            fprintf(stderr, "%s: needs an even number of processes, got %d\n", prog, nprocs);
        MPI_Finalize();
        return 2;
    }
    pinger = rank < nprocs / 2;
    partner = pinger ? rank + nprocs / 2 : rank - nprocs / 2;

    /* Allocated after MPI_Init, so that a shared heap set up there can serve
     * them, and written once so that no page fault lands in a timed loop. */
    unsigned char *sbuf = bench_alloc(MAX_SIZE);
    unsigned char *rbuf = bench_alloc(MAX_SIZE);
    if (!sbuf || !rbuf) {
        fprintf(stderr, "%s: rank %d: cannot allocate 2 x %zu bytes\n", prog, rank, MAX_SIZE);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(sbuf, 0xee, MAX_SIZE);
    memset(rbuf, 0, MAX_SIZE);

    if (rank == 0) {
        printf("# %s: ping-pong, one-way latency = round trip / 2, ~%.0f ms per size\n", prog,
               TARGET_S * 1e3);
        fflush(stdout);
    }

    /* Until both processes run on their own cores, every message waits for
     * a context switch; the first size would pay for it. */
    long msg = 0;
    warm_up(sbuf, rbuf, 0, STARTUP_S, &msg);

    for (size_t size = 0; size <= MAX_SIZE; size = size ? 2 * size : 1) {
        double latency = measure(sbuf, rbuf, size, &msg);
        if (rank == 0) {
            printf("metric latency_%s%zuB %.4f us lower\n", fresh ? "fresh_" : "", size,
                   latency * 1e6);
            fflush(stdout);
        }
    }

    bench_free(sbuf, MAX_SIZE);
    bench_free(rbuf, MAX_SIZE);
    MPI_Finalize();
    return 0;
}
