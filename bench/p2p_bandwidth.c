/*
 * p2p_bandwidth.c - point-to-point bandwidth between two MPI processes.
 *
 * Measures streaming bandwidth with windows of nonblocking messages, in the
 * style of the OSU micro-benchmarks' osu_bw and osu_bibw, for the powers of
 * two from 1 B to 4 MiB:
 *
 *   uni  rank 0 posts WINDOW (64) MPI_Isend to rank 1 and waits for them
 *        (MPI_Waitall); rank 1 posts 64 MPI_Irecv, waits for them and
 *        answers with a zero-byte acknowledgement, which rank 0 receives
 *        before the next window. Bandwidth = bytes sent / time.
 *   bi   both ranks post 64 MPI_Irecv and 64 MPI_Isend to each other at once
 *        and wait for all 128. Bandwidth = bytes sent in both directions /
 *        time (the aggregate, up to twice the unidirectional figure).
 *
 * Each message of a window has its own slot in the send and receive buffers
 * (pending receives must not overlap), so a window of 4 MiB messages uses
 * 256 MiB per buffer; the buffers are allocated with malloc after MPI_Init
 * and written once before any timing.
 *
 * For each size a warm-up runs 1, 2, 4, ... windows until one pass lasts
 * CALIB_S; its time per window sets the window count, so that every size is
 * timed for about TARGET_S (longer for the largest sizes, where one window
 * takes longer). The timed part is split into TRIALS chunks of at least one
 * window, each started after a barrier and timed by rank 0 with MPI_Wtime;
 * the median chunk gives the figure, so that a rank preempted for a while by
 * another process spoils one chunk only. A longer warm-up (STARTUP_S) comes
 * before the first size. MB/s means 10^6 bytes per second.
 *
 * Every message is checked: its first, middle and last bytes carry a value
 * that depends on the message number, its size and its sender, and its length
 * must be exact; with `validate`, every byte (bench_check.h). A mismatch
 * prints what was wrong and aborts with exit code 1.
 *
 * Usage: p2p_bandwidth uni|bi [validate]     (exactly 2 processes)
 *
 * Rank 0 prints, per size, a line that bench/run.py reads:
 *   metric bw_<uni|bi>_<size>B <MB/s> MB/s higher
 */
#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_check.h"

#define MIN_SIZE    ((size_t)1)
#define MAX_SIZE    ((size_t)4 << 20)
#define WINDOW      64
#define ALIGN       4096  /* slot buffers start on a page, as OSU's do */
#define STARTUP_S   0.050 /* first warm-up, lets the scheduler place the two processes */
#define CALIB_S     0.005 /* a warm-up pass at least this long sets the window count */
#define TARGET_S    0.030 /* timed part per size, in TRIALS chunks of 1 window or more */
#define TRIALS      5
#define MAX_WINDOWS 100000L
#define TAG_DATA    1
#define TAG_ACK     2

static const char *prog = "p2p_bandwidth";

/* Slots are cache-line multiples apart so that small messages never share a
 * line; up to a cache line, all 64 slots fit in 4 KiB. */
static size_t slot_stride(size_t size)
{
    return (size + 63) / 64 * 64;
}

/* A page-aligned pointer into a block (bench_alloc) of `bytes` + ALIGN bytes,
 * written once; *block gets what to free. */
static unsigned char *alloc_slots(size_t bytes, int fill, void **block)
{
    *block = bench_alloc(bytes + ALIGN);
    if (!*block)
        return NULL;
    unsigned char *p = (unsigned char *)(((uintptr_t)*block + ALIGN - 1) & ~(uintptr_t)(ALIGN - 1));
    memset(p, fill, bytes);
    return p;
}

struct bufs {
    unsigned char *send, *recv; /* WINDOW slots each, NULL where the rank does not need them */
};

/* n unidirectional windows, messages numbered from *msg on. */
static double windows_uni(int rank, const struct bufs *b, size_t size, long n, long *msg)
{
    MPI_Request req[WINDOW];
    MPI_Status status[WINDOW];
    size_t stride = slot_stride(size);
    int count = (int)size;
    double t0 = MPI_Wtime();

    for (long w = 0; w < n; w++, *msg += WINDOW) {
        if (rank == 0) {
            for (int k = 0; k < WINDOW; k++) {
                unsigned char *slot = b->send + (size_t)k * stride;
                bench_stamp(slot, size, *msg + k, 0);
                MPI_Isend(slot, count, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD, &req[k]);
            }
            /* A real status array: gcc's -Wstringop-overflow rejects MPICH's
             * MPI_STATUSES_IGNORE, (MPI_Status *)1, for an array argument. */
            MPI_Waitall(WINDOW, req, status);
            MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            for (int k = 0; k < WINDOW; k++)
                MPI_Irecv(b->recv + (size_t)k * stride, count, MPI_BYTE, 0, TAG_DATA,
                          MPI_COMM_WORLD, &req[k]);
            MPI_Waitall(WINDOW, req, status);
            MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_ACK, MPI_COMM_WORLD);
            /* After the acknowledgement, so that the check overlaps with
             * the sender's next window instead of delaying it. */
            for (int k = 0; k < WINDOW; k++)
                bench_verify(prog, b->recv + (size_t)k * stride, size, *msg + k, 0, &status[k]);
        }
    }
    return MPI_Wtime() - t0;
}

/* n bidirectional windows: both ranks send WINDOW messages to each other. */
static double windows_bi(int rank, const struct bufs *b, size_t size, long n, long *msg)
{
    MPI_Request req[2 * WINDOW];
    MPI_Status status[2 * WINDOW];
    size_t stride = slot_stride(size);
    int count = (int)size;
    int peer = 1 - rank;
    double t0 = MPI_Wtime();

    for (long w = 0; w < n; w++, *msg += WINDOW) {
        for (int k = 0; k < WINDOW; k++)
            MPI_Irecv(b->recv + (size_t)k * stride, count, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD,
                      &req[k]);
        for (int k = 0; k < WINDOW; k++) {
            unsigned char *slot = b->send + (size_t)k * stride;
            bench_stamp(slot, size, *msg + k, rank);
            MPI_Isend(slot, count, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD, &req[WINDOW + k]);
        }
        MPI_Waitall(2 * WINDOW, req, status);
        for (int k = 0; k < WINDOW; k++)
            bench_verify(prog, b->recv + (size_t)k * stride, size, *msg + k, peer, &status[k]);
    }
    return MPI_Wtime() - t0;
}

typedef double (*windows_fn)(int rank, const struct bufs *b, size_t size, long n, long *msg);

/* Warm-up: passes of 1, 2, 4, ... windows until one lasts pass_s. Returns
 * the time per window of the last pass. Rank 0's time, broadcast, makes
 * every decision, so both ranks run the same passes. */
static double warm_up(windows_fn windows, int rank, const struct bufs *b, size_t size,
                      double pass_s, long *msg)
{
    long n = 1;
    double t;
    for (;;) {
        t = windows(rank, b, size, n, msg);
        MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        if (t >= pass_s || n >= MAX_WINDOWS)
            return t / (double)n;
        n *= 2;
    }
}

/* Warms up and times one size; returns the bandwidth in bytes/s. */
static double measure(windows_fn windows, int directions, int rank, const struct bufs *b,
                      size_t size, long *msg)
{
    double per_window = warm_up(windows, rank, b, size, CALIB_S, msg);
    double want = per_window > 0.0 ? TARGET_S / TRIALS / per_window : (double)MAX_WINDOWS;
    long chunk = want < 1.0 ? 1 : want > (double)MAX_WINDOWS ? MAX_WINDOWS : (long)want;

    /* TRIALS chunks, each started together, and their median: a rank
     * preempted by another process for a while spoils one chunk, not the
     * size's figure. */
    double t[TRIALS];
    for (int i = 0; i < TRIALS; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        t[i] = windows(rank, b, size, chunk, msg);
    }
    double bytes = (double)directions * (double)size * WINDOW * (double)chunk;
    return bytes / bench_median(t, TRIALS);
}

int main(int argc, char **argv)
{
    int rank, nprocs;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

    /* Every rank sees the same arguments and size, so all of them take the
     * same way out and can finalize cleanly. */
    argc = bench_private_arg(argc, argv);
    argc = bench_validate_arg(argc, argv);
    int bi = argc == 2 && strcmp(argv[1], "bi") == 0;
    if (argc != 2 || (!bi && strcmp(argv[1], "uni") != 0)) {
        if (rank == 0)
            fprintf(stderr, "usage: %s uni|bi [private] [validate]    (run with 2 processes)\n",
                    argv[0]);
        MPI_Finalize();
        return 2;
    }
    if (nprocs != 2) {
        if (rank == 0)
            fprintf(stderr, "%s: needs exactly 2 processes, got %d\n", prog, nprocs);
        MPI_Finalize();
        return 2;
    }

    /* After MPI_Init, so that a shared heap set up there can serve them. */
    size_t bytes = WINDOW * slot_stride(MAX_SIZE);
    void *send_block = NULL, *recv_block = NULL;
    struct bufs b = {NULL, NULL};
    int need_send = bi || rank == 0, need_recv = bi || rank == 1;
    if ((need_send && !(b.send = alloc_slots(bytes, 0xee, &send_block))) ||
        (need_recv && !(b.recv = alloc_slots(bytes, 0, &recv_block)))) {
        fprintf(stderr, "%s: rank %d: cannot allocate %zu bytes\n", prog, rank, bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    const char *mode = bi ? "bi" : "uni";
    if (rank == 0) {
        printf("# %s %s: window of %d messages, ~%.0f ms per size, MB = 10^6 bytes\n", prog, mode,
               WINDOW, TARGET_S * 1e3);
        fflush(stdout);
    }

    /* Until both processes run on their own cores, every message waits for
     * a context switch; the first size would pay for it. */
    long msg = 0;
    warm_up(bi ? windows_bi : windows_uni, rank, &b, MIN_SIZE, STARTUP_S, &msg);

    for (size_t size = MIN_SIZE; size <= MAX_SIZE; size *= 2) {
        double bw = bi ? measure(windows_bi, 2, rank, &b, size, &msg)
                       : measure(windows_uni, 1, rank, &b, size, &msg);
        if (rank == 0) {
            printf("metric bw_%s_%zuB %.3f MB/s higher\n", mode, size, bw / 1e6);
            fflush(stdout);
        }
    }

    bench_free(send_block, bytes + ALIGN);
    bench_free(recv_block, bytes + ALIGN);
    MPI_Finalize();
    return 0;
}
