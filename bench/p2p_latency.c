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
 * Every message is checked: its first, middle and last bytes carry a value
 * that depends on the message number, its size and its direction, and its
 * length must be exact. A mismatch (an interposed engine that delivers stale,
 * short or misplaced data) prints what was wrong and aborts with exit code 1.
 *
 * Usage: p2p_latency          (exactly 2 processes)
 *
 * Rank 0 prints, per size, a line that bench/run.py reads:
 *   metric latency_<size>B <microseconds> us lower
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Byte `where` (0 first, 1 middle, 2 last) of message `msg` of `size` bytes
 * sent by rank `dir`. Consecutive messages differ in every checked byte, so a
 * buffer left over from the previous message never passes. */
static unsigned char pattern(long msg, size_t size, int dir, int where)
{
    unsigned long v = (unsigned long)msg + (unsigned long)(size % 251) + 61ul * (unsigned long)dir +
                      83ul * (unsigned long)where;
    return (unsigned char)(1 + v % 251);
}

/* Offsets of the checked bytes; fewer than 3 distinct ones below 3 bytes. */
static int checked_offsets(size_t size, size_t off[3])
{
    int n = 0;
    if (size >= 1)
        off[n++] = 0;
    if (size >= 3)
        off[n++] = size / 2;
    if (size >= 2)
        off[n++] = size - 1;
    return n;
}

static void stamp(unsigned char *buf, size_t size, long msg, int dir)
{
    size_t off[3];
    int n = checked_offsets(size, off);
    for (int i = 0; i < n; i++)
        buf[off[i]] = pattern(msg, size, dir, i);
}

/* Checks a received message; aborts the job on a mismatch. */
static void verify(const unsigned char *buf, size_t size, long msg, int dir,
                   const MPI_Status *status)
{
    int count = -1;
    MPI_Get_count(status, MPI_BYTE, &count);
    if (count < 0 || (size_t)count != size) {
        fprintf(stderr,
                "%s: data check failed: message %ld from rank %d: got %d bytes, expected %zu\n",
                prog, msg, dir, count, size);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    size_t off[3];
    int n = checked_offsets(size, off);
    for (int i = 0; i < n; i++) {
        unsigned char want = pattern(msg, size, dir, i);
        if (buf[off[i]] != want) {
            fprintf(stderr,
                    "%s: data check failed: message %ld of %zu bytes from rank %d: byte %zu is "
                    "0x%02x, expected 0x%02x\n",
                    prog, msg, size, dir, off[i], buf[off[i]], want);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
}

/* n round trips of `size` bytes, numbered from *msg on (both ranks count
 * alike). Returns the elapsed time, meaningful on rank 0. */
static double pingpong(int rank, unsigned char *sbuf, unsigned char *rbuf, size_t size, long n,
                       long *msg)
{
    MPI_Status status;
    int count = (int)size;
    double t0 = MPI_Wtime();

    for (long i = 0; i < n; i++, (*msg)++) {
        if (rank == 0) {
            stamp(sbuf, size, *msg, 0);
            MPI_Send(sbuf, count, MPI_BYTE, 1, TAG_PING, MPI_COMM_WORLD);
            MPI_Recv(rbuf, count, MPI_BYTE, 1, TAG_PONG, MPI_COMM_WORLD, &status);
            verify(rbuf, size, *msg, 1, &status);
        } else {
            MPI_Recv(rbuf, count, MPI_BYTE, 0, TAG_PING, MPI_COMM_WORLD, &status);
            verify(rbuf, size, *msg, 0, &status);
            stamp(sbuf, size, *msg, 1);
            MPI_Send(sbuf, count, MPI_BYTE, 0, TAG_PONG, MPI_COMM_WORLD);
        }
    }
    return MPI_Wtime() - t0;
}

/* Warm-up: passes of 1, 2, 4, ... round trips until one lasts pass_s.
 * Returns the time per round trip of the last pass. Rank 0's time,
 * broadcast, makes every decision, so both ranks run the same passes. */
static double warm_up(int rank, unsigned char *sbuf, unsigned char *rbuf, size_t size,
                      double pass_s, long *msg)
{
    long n = 1;
    double t;
    for (;;) {
        t = pingpong(rank, sbuf, rbuf, size, n, msg);
        MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        if (t >= pass_s || n >= MAX_ITERS)
            return t / (double)n;
        n *= 2;
    }
}

static double median(double *v, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double tmp = v[j];
            v[j] = v[j - 1];
            v[j - 1] = tmp;
        }
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

/* Warms up and times one size; returns the one-way latency in seconds. */
static double measure(int rank, unsigned char *sbuf, unsigned char *rbuf, size_t size, long *msg)
{
    double per_trip = warm_up(rank, sbuf, rbuf, size, CALIB_S, msg);
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
        t[i] = pingpong(rank, sbuf, rbuf, size, chunk, msg);
    }
    return median(t, TRIALS) / (2.0 * (double)chunk);
}

int main(int argc, char **argv)
{
    int rank, nprocs;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

    /* Every rank sees the same argc and size, so all of them take the same
     * way out and can finalize cleanly. */
    if (argc > 1) {
        if (rank == 0)
            fprintf(stderr, "usage: %s    (no arguments; run with 2 processes)\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    if (nprocs != 2) {
        if (rank == 0)
            fprintf(stderr, "%s: needs exactly 2 processes, got %d\n", prog, nprocs);
        MPI_Finalize();
        return 2;
    }

    /* Allocated after MPI_Init, so that a shared heap set up there can serve
     * them, and written once so that no page fault lands in a timed loop. */
    unsigned char *sbuf = malloc(MAX_SIZE);
    unsigned char *rbuf = malloc(MAX_SIZE);
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
    warm_up(rank, sbuf, rbuf, 0, STARTUP_S, &msg);

    for (size_t size = 0; size <= MAX_SIZE; size = size ? 2 * size : 1) {
        double latency = measure(rank, sbuf, rbuf, size, &msg);
        if (rank == 0) {
            printf("metric latency_%zuB %.4f us lower\n", size, latency * 1e6);
            fflush(stdout);
        }
    }

    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
