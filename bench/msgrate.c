/*
 * msgrate.c - message rate of 8-byte point-to-point messages.
 *
 * Measures how many small messages per second a sender can stream to a
 * receiver, in the style of the OSU micro-benchmarks' osu_mbw_mr: a sender
 * posts WINDOW (64) MPI_Isend of 8 bytes and waits for them (MPI_Waitall);
 * its receiver posts 64 MPI_Irecv, waits for them and answers with a
 * zero-byte acknowledgement, which the sender receives before the next
 * window.
 *
 *   pair      rank 0 sends to rank 1 (exactly 2 processes).
 *   allpairs  every even rank r sends to rank r + 1, all pairs at once (an
 *             even number of processes); the rate is the sum over the pairs,
 *             total messages / the slowest sender's time. With 2 processes
 *             it measures the same as pair.
 *
 * A warm-up runs 1, 2, 4, ... windows until one pass lasts CALIB_S; its time
 * per window sets the window count, about TARGET_S of sending. The timed
 * part is split into TRIALS chunks, each started after a barrier; each
 * sender times a chunk with MPI_Wtime, the slowest sender's time (MPI_MAX)
 * counts, and the median chunk gives the figure, so that a rank preempted
 * for a while by another process spoils one chunk only.
 *
 * Every message is checked: its 8 bytes carry a value that depends on the
 * message number and the sender, and its length must be exact. A mismatch
 * prints what was wrong and aborts with exit code 1.
 *
 * Usage: msgrate pair|allpairs
 *
 * Rank 0 prints a line that bench/run.py reads:
 *   metric msgrate_<pair|allpairs>_8B <messages/s> msg/s higher
 */
#include <mpi.h>

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_check.h"

#define MSG_SIZE    8
#define STRIDE      64 /* one cache line per slot, as p2p_bandwidth does */
#define WINDOW      64
#define CALIB_S     0.050 /* a warm-up pass at least this long sets the window count */
#define TARGET_S    0.300 /* timed part, in TRIALS chunks */
#define TRIALS      5
#define MAX_WINDOWS 10000000L
#define TAG_DATA    1
#define TAG_ACK     2

static const char *prog = "msgrate";

/* The content of message `msg` sent by rank `sender`; consecutive messages
 * differ, so a slot left over from the previous window never passes. */
static uint64_t pattern(long msg, int sender)
{
    return ((uint64_t)msg << 16) ^ ((uint64_t)(unsigned)sender << 1) ^ UINT64_C(0x5a5a000000000001);
}

static void verify(const unsigned char *slot, long msg, int sender, const MPI_Status *status)
{
    int count = -1;
    MPI_Get_count(status, MPI_BYTE, &count);
    if (count != MSG_SIZE) {
        fprintf(stderr,
                "%s: data check failed: message %ld from rank %d: got %d bytes, expected %d\n",
                prog, msg, sender, count, MSG_SIZE);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    uint64_t got, want = pattern(msg, sender);
    memcpy(&got, slot, sizeof got);
    if (got != want) {
        fprintf(stderr,
                "%s: data check failed: message %ld from rank %d is 0x%016" PRIx64
                ", expected 0x%016" PRIx64 "\n",
                prog, msg, sender, got, want);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* n windows between this rank and its peer, messages numbered from *msg on.
 * Returns the elapsed time on a sender, 0 on a receiver. */
static double windows(int rank, int sender, int peer, unsigned char *slots, long n, long *msg)
{
    MPI_Request req[WINDOW];
    MPI_Status status[WINDOW];
    double t0 = MPI_Wtime();

    for (long w = 0; w < n; w++, *msg += WINDOW) {
        if (sender) {
            for (int k = 0; k < WINDOW; k++) {
                unsigned char *slot = slots + (size_t)k * STRIDE;
                uint64_t v = pattern(*msg + k, rank);
                memcpy(slot, &v, sizeof v);
                MPI_Isend(slot, MSG_SIZE, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD, &req[k]);
            }
            /* A real status array: gcc's -Wstringop-overflow rejects MPICH's
             * MPI_STATUSES_IGNORE, (MPI_Status *)1, for an array argument. */
            MPI_Waitall(WINDOW, req, status);
            MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            for (int k = 0; k < WINDOW; k++)
                MPI_Irecv(slots + (size_t)k * STRIDE, MSG_SIZE, MPI_BYTE, peer, TAG_DATA,
                          MPI_COMM_WORLD, &req[k]);
            MPI_Waitall(WINDOW, req, status);
            MPI_Send(NULL, 0, MPI_BYTE, peer, TAG_ACK, MPI_COMM_WORLD);
            /* After the acknowledgement, so that the check overlaps with
             * the sender's next window instead of delaying it. */
            for (int k = 0; k < WINDOW; k++)
                verify(slots + (size_t)k * STRIDE, *msg + k, peer, &status[k]);
        }
    }
    return sender ? MPI_Wtime() - t0 : 0.0;
}

/* The slowest sender's time for n windows, known to every rank. */
static double timed_windows(int rank, int sender, int peer, unsigned char *slots, long n, long *msg)
{
    double mine = windows(rank, sender, peer, slots, n, msg), slowest = 0.0;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return slowest;
}

int main(int argc, char **argv)
{
    int rank, nprocs;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

    /* Every rank sees the same arguments and size, so all of them take the
     * same way out and can finalize cleanly. */
    int allpairs = argc == 2 && strcmp(argv[1], "allpairs") == 0;
    if (argc != 2 || (!allpairs && strcmp(argv[1], "pair") != 0)) {
        if (rank == 0)
            fprintf(stderr,
                    "usage: %s pair|allpairs    (pair: 2 processes, allpairs: an even number)\n",
                    argv[0]);
        MPI_Finalize();
        return 2;
    }
    if (allpairs ? nprocs < 2 || nprocs % 2 != 0 : nprocs != 2) {
        if (rank == 0)
            fprintf(stderr, "%s: %s needs %s processes, got %d\n", prog, argv[1],
                    allpairs ? "an even number of" : "exactly 2", nprocs);
        MPI_Finalize();
        return 2;
    }

    int sender = rank % 2 == 0;
    int peer = sender ? rank + 1 : rank - 1;
    long pairs = nprocs / 2;

    /* After MPI_Init, so that a shared heap set up there can serve them. */
    unsigned char *slots = malloc((size_t)WINDOW * STRIDE);
    if (!slots) {
        fprintf(stderr, "%s: rank %d: cannot allocate %d bytes\n", prog, rank, WINDOW * STRIDE);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(slots, 0, (size_t)WINDOW * STRIDE);

    const char *mode = allpairs ? "allpairs" : "pair";
    if (rank == 0) {
        printf("# %s %s: %ld pair(s), window of %d messages of %d bytes, ~%.0f ms timed\n", prog,
               mode, pairs, WINDOW, MSG_SIZE, TARGET_S * 1e3);
        fflush(stdout);
    }

    /* Warm-up doubling the pass length; the time every rank agrees on makes
     * every decision, so that all pairs run the same number of windows. The
     * first passes also give the scheduler time to place the processes. */
    long msg = 0, n = 1;
    double t;
    for (;;) {
        t = timed_windows(rank, sender, peer, slots, n, &msg);
        if (t >= CALIB_S || n >= MAX_WINDOWS)
            break;
        n *= 2;
    }
    double want = t > 0.0 ? TARGET_S / TRIALS * (double)n / t : (double)MAX_WINDOWS;
    long chunk = want < 1.0 ? 1 : want > (double)MAX_WINDOWS ? MAX_WINDOWS : (long)want;

    /* TRIALS chunks, each started together, and their median: a rank
     * preempted by another process for a while spoils one chunk, not the
     * figure. */
    double trial[TRIALS];
    for (int i = 0; i < TRIALS; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        trial[i] = timed_windows(rank, sender, peer, slots, chunk, &msg);
    }
    double rate = (double)pairs * WINDOW * (double)chunk / bench_median(trial, TRIALS);
    if (rank == 0) {
        printf("metric msgrate_%s_8B %.1f msg/s higher\n", mode, rate);
        fflush(stdout);
    }

    free(slots);
    MPI_Finalize();
    return 0;
}
