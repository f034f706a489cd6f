/*
 * random_access.c - a random-access update benchmark in the style of HPCC's
 * MPIRandomAccess, in two modes: the pattern of a polling loop over a few
 * posted receives (the default), and HPCC's own (`hpcc`).
 *
 * Every process owns a table of TABLE_WORDS 64-bit words, the processes'
 * tables together one global table, and makes `updates` updates of it:
 * each one draws a pseudo-random 64-bit value (HPCC's LFSR), which names a
 * word of the global table and is XORed into it. An update of its own
 * table is applied at once; one of another's is held for that process.
 *
 * The default mode sends a destination's updates (MPI_Isend, BATCH per
 * message, two buffers per destination) when BATCH are held. Meanwhile each
 * process keeps RECVS receives from any source posted (MPI_Irecv with
 * MPI_ANY_SOURCE, MPI_ANY_TAG) and, before each update it draws, polls them
 * with MPI_Testany, applying and reposting what arrived: so most
 * MPI_Testany calls find nothing, and their cost is most of the run's MPI
 * time. At the end each process flushes its buffers and sends every other
 * one an empty message with tag DONE, and polls until it has those of all
 * the others.
 *
 * The `hpcc` mode is the loop of HPCC 1.5.0's MPIRandomAccess (its
 * standard algorithm, RandomAccess/MPIRandomAccess.c, as Debian's hpcc is
 * built): one receive of HPCC_HELD words from any source with any tag
 * (HPCC_RECVS of them with more than 4 processes), polled with MPI_Testany
 * until it finds nothing, before each step; a step draws one update while
 * fewer than HPCC_HELD are held for all destinations together, else tests
 * the one MPI_Isend in flight and, once it is done, sends the fullest
 * destination's updates (all of them, up to HPCC_HELD) from one send
 * buffer. At the end: the held updates sent the same way, an empty MPI_Isend
 * with HPCC_TAG_DONE to every other process, MPI_Waitany on the receive
 * until all of theirs came, MPI_Waitall on those sends, and the receive
 * cancelled. So each update drawn costs one empty poll, and the pace of the
 * sends is that of one MPI_Test per step while the buffer is in flight.
 *
 * Checked: the XOR of all tables equals the XOR of all values drawn, and
 * every update sent was applied once (counts summed over the processes);
 * a mismatch prints what was wrong and exits 1.
 *
 * Usage: random_access [hpcc] [updates per process]      (default 4194304)
 *
 * Rank 0 prints lines that bench/run.py reads:
 *   metric ra_updates_per_s <updates of all processes / s> updates/s higher
 *   metric ra_time_s <seconds, the slowest process> s lower
 * (no clock around each MPI_Testany: reading it would cost as much as the
 * call, on both sides).
 */
#include <mpi.h>

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TABLE_LOG     18 /* words per process: 2^18 (2 MiB) */
#define TABLE_WORDS   ((uint64_t)1 << TABLE_LOG)
#define BATCH         128 /* updates per message (1 KiB) */
#define RECVS         4   /* receives kept posted */
#define TAG_UPDATES   1
#define TAG_DONE      2
#define POLY          UINT64_C(0x0000000000000007)
#define DEFAULT_COUNT (1L << 22)

/* HPCC's mode: its MAX_TOTAL_PENDING_UPDATES (= LOCAL_BUFFER_SIZE), its
 * receives with more than 4 processes (Mmin(4, MAX_RECV)), its tags. */
#define HPCC_HELD        1024
#define HPCC_RECVS       4
#define HPCC_TAG_DONE    1
#define HPCC_TAG_UPDATES 2

static const char *prog = "random_access";
static int rank, nprocs;
static uint64_t *table;
static uint64_t sent, applied;  /* updates sent, and received and applied */
static long polls, polls_found; /* MPI_Testany calls, and those that found one */
static double t_start, t_end;   /* the timed part: after the receives are posted, before cleanup */

static void apply(uint64_t ran)
{
    table[ran & (TABLE_WORDS - 1)] ^= ran;
}

static uint64_t next_random(uint64_t ran)
{
    return (ran << 1) ^ ((int64_t)ran < 0 ? POLY : 0);
}

static int dest_of(uint64_t ran)
{
    return (int)((ran >> TABLE_LOG) % (uint64_t)nprocs);
}

/* Apply a message's updates; 1 if it was a DONE message instead. */
static int take(const uint64_t *buf, const MPI_Status *st, int done_tag)
{
    if (st->MPI_TAG == done_tag)
        return 1;
    int n = 0;
    MPI_Get_count(st, MPI_UINT64_T, &n);
    for (int k = 0; k < n; k++)
        apply(buf[k]);
    applied += (uint64_t)n;
    return 0;
}

/* Cancel receives that nothing more can match: each must end cancelled. */
static void cancel_all(int n, MPI_Request *reqs)
{
    for (int i = 0; i < n; i++) {
        MPI_Status st;
        int cancelled = 0;
        MPI_Cancel(&reqs[i]);
        MPI_Wait(&reqs[i], &st);
        MPI_Test_cancelled(&st, &cancelled);
        if (!cancelled) {
            fprintf(stderr, "%s: rank %d: a receive got a message after the end\n", prog, rank);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
}

static void *alloc_or_abort(size_t n, size_t size)
{
    void *p = calloc(n, size);
    if (!p) {
        fprintf(stderr, "%s: rank %d: out of memory\n", prog, rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

/* The default mode: RECVS receives polled with MPI_Testany before each
 * update, BATCH updates a message, two buffers per destination. */

static uint64_t rbufs[RECVS][BATCH];
static MPI_Request rreqs[RECVS];
static int done_seen; /* DONE messages received */

struct outbox {
    uint64_t buf[2][BATCH];
    MPI_Request req[2];
    int fill, cur; /* updates in buf[cur] */
};
static struct outbox *out;

static void post(int i)
{
    MPI_Irecv(rbufs[i], BATCH, MPI_UINT64_T, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
              &rreqs[i]);
}

/* Poll the posted receives once and handle everything that already came. */
static void poll(void)
{
    for (;;) {
        int index = MPI_UNDEFINED, flag = 0;
        MPI_Status st;
        MPI_Testany(RECVS, rreqs, &index, &flag, &st);
        polls++;
        if (!flag || index == MPI_UNDEFINED)
            return;
        polls_found++;
        done_seen += take(rbufs[index], &st, TAG_DONE);
        post(index);
    }
}

/* Send what the current buffer for `dest` holds; the other buffer becomes
 * current once its earlier send completed (polling meanwhile: the peer
 * may wait for us to receive before its own send completes). */
static void flush(int dest)
{
    struct outbox *o = &out[dest];
    if (!o->fill)
        return;
    MPI_Isend(o->buf[o->cur], o->fill, MPI_UINT64_T, dest, TAG_UPDATES, MPI_COMM_WORLD,
              &o->req[o->cur]);
    sent += (uint64_t)o->fill;
    o->cur ^= 1;
    o->fill = 0;
    for (int flag = 0;;) {
        MPI_Test(&o->req[o->cur], &flag, MPI_STATUS_IGNORE);
        if (flag)
            return;
        poll();
    }
}

/* Runs `count` updates; returns the XOR of the values drawn. */
static uint64_t run_polling(long count, uint64_t ran)
{
    uint64_t drawn_xor = 0;
    out = alloc_or_abort((size_t)nprocs, sizeof *out);
    for (int p = 0; p < nprocs; p++)
        out[p].req[0] = out[p].req[1] = MPI_REQUEST_NULL;
    for (int i = 0; i < RECVS; i++)
        post(i);
    MPI_Barrier(MPI_COMM_WORLD);
    t_start = MPI_Wtime();
    for (long i = 0; i < count; i++) {
        poll();
        ran = next_random(ran);
        drawn_xor ^= ran;
        int dest = dest_of(ran);
        if (dest == rank) {
            apply(ran);
            continue;
        }
        struct outbox *o = &out[dest];
        o->buf[o->cur][o->fill++] = ran;
        if (o->fill == BATCH)
            flush(dest);
    }
    for (int p = 0; p < nprocs; p++)
        flush(p);
    static char none;
    for (int p = 0; p < nprocs; p++) /* the DONE messages follow each peer's updates in order */
        if (p != rank)
            MPI_Send(&none, 0, MPI_BYTE, p, TAG_DONE, MPI_COMM_WORLD);
    while (done_seen < nprocs - 1)
        poll();
    for (int p = 0; p < nprocs; p++) {
        MPI_Status st[2];
        MPI_Waitall(2, out[p].req, st);
    }
    t_end = MPI_Wtime();
    cancel_all(RECVS, rreqs); /* nothing more comes */
    free(out);
    return drawn_xor;
}

/* HPCC's mode (see the top of the file). */

static uint64_t hpcc_rbuf[HPCC_RECVS][HPCC_HELD];
static MPI_Request hpcc_rreq[HPCC_RECVS];
static int hpcc_recvs;     /* receives posted: 1, or HPCC_RECVS above 4 processes */
static int hpcc_receiving; /* processes whose DONE has not come */
static uint64_t *bucket;   /* nprocs x HPCC_HELD: the updates held per destination */
static int *bucket_fill, held;
static uint64_t hpcc_sbuf[HPCC_HELD];
static MPI_Request hpcc_sreq = MPI_REQUEST_NULL;

static void hpcc_post(int i)
{
    MPI_Irecv(hpcc_rbuf[i], HPCC_HELD, MPI_UINT64_T, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
              &hpcc_rreq[i]);
}

static void hpcc_take(int index, const MPI_Status *st)
{
    hpcc_receiving -= take(hpcc_rbuf[index], st, HPCC_TAG_DONE);
    hpcc_post(index);
}

/* HPCC polls until a poll finds nothing, or no one is left to send. */
static void hpcc_poll(void)
{
    int flag;
    do {
        int index = MPI_UNDEFINED;
        MPI_Status st;
        flag = 0;
        MPI_Testany(hpcc_recvs, hpcc_rreq, &index, &flag, &st);
        polls++;
        if (flag && index != MPI_UNDEFINED) {
            polls_found++;
            hpcc_take(index, &st);
        }
    } while (flag && hpcc_receiving > 0);
}

/* Once the send in flight is done, send the fullest destination's updates. */
static void hpcc_send(void)
{
    int flag = 0;
    MPI_Test(&hpcc_sreq, &flag, MPI_STATUS_IGNORE);
    if (!flag)
        return;
    int dest = 0;
    for (int p = 1; p < nprocs; p++)
        if (bucket_fill[p] > bucket_fill[dest])
            dest = p;
    int n = bucket_fill[dest];
    memcpy(hpcc_sbuf, bucket + (size_t)dest * HPCC_HELD, (size_t)n * sizeof *hpcc_sbuf);
    MPI_Isend(hpcc_sbuf, n, MPI_UINT64_T, dest, HPCC_TAG_UPDATES, MPI_COMM_WORLD, &hpcc_sreq);
    bucket_fill[dest] = 0;
    held -= n;
    sent += (uint64_t)n;
}

static uint64_t run_hpcc(long count, uint64_t ran)
{
    uint64_t drawn_xor = 0;
    bucket = alloc_or_abort((size_t)nprocs * HPCC_HELD, sizeof *bucket);
    bucket_fill = alloc_or_abort((size_t)nprocs, sizeof *bucket_fill);
    MPI_Request *done_req = alloc_or_abort((size_t)nprocs, sizeof *done_req);
    MPI_Status *done_st = alloc_or_abort((size_t)nprocs, sizeof *done_st);
    hpcc_recvs = nprocs > 4 ? HPCC_RECVS : 1;
    hpcc_receiving = nprocs - 1;
    for (int i = 0; i < hpcc_recvs; i++)
        hpcc_post(i);
    MPI_Barrier(MPI_COMM_WORLD);
    t_start = MPI_Wtime();
    for (long i = 0; i < count;) {
        hpcc_poll();
        if (held < HPCC_HELD) {
            ran = next_random(ran);
            drawn_xor ^= ran;
            int dest = dest_of(ran);
            if (dest == rank) {
                apply(ran);
            } else {
                bucket[(size_t)dest * HPCC_HELD + (size_t)bucket_fill[dest]++] = ran;
                held++;
            }
            i++;
        } else {
            hpcc_send();
        }
    }
    while (held > 0) {
        hpcc_poll();
        hpcc_send();
    }
    static uint64_t none;
    for (int p = 0; p < nprocs; p++) {
        done_req[p] = MPI_REQUEST_NULL;
        if (p != rank)
            MPI_Isend(&none, 0, MPI_UINT64_T, p, HPCC_TAG_DONE, MPI_COMM_WORLD, &done_req[p]);
    }
    while (hpcc_receiving > 0) {
        int index = MPI_UNDEFINED;
        MPI_Status st;
        MPI_Waitany(hpcc_recvs, hpcc_rreq, &index, &st);
        hpcc_take(index, &st);
    }
    MPI_Waitall(nprocs, done_req, done_st);
    MPI_Wait(&hpcc_sreq, MPI_STATUS_IGNORE);
    t_end = MPI_Wtime();
    /* With several receives, one may hold a peer's last updates while
     * another took its DONE (MPI_Testany's pick): HPCC loses those (counted
     * among its errors); applied here, so that the check stays exact. */
    for (int i = 0; i < hpcc_recvs; i++) {
        MPI_Status st;
        int cancelled = 0;
        MPI_Cancel(&hpcc_rreq[i]);
        MPI_Wait(&hpcc_rreq[i], &st);
        MPI_Test_cancelled(&st, &cancelled);
        if (!cancelled && take(hpcc_rbuf[i], &st, HPCC_TAG_DONE)) {
            fprintf(stderr, "%s: rank %d: a DONE message too many\n", prog, rank);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    free(done_st);
    free(done_req);
    free(bucket_fill);
    free(bucket);
    return drawn_xor;
}

/* argv[1] "hpcc" picks HPCC's mode; then the count. Returns -1 on an error. */
static long parse_args(int argc, char **argv, int *hpcc)
{
    int a = 1;
    *hpcc = argc > a && strcmp(argv[a], "hpcc") == 0;
    a += *hpcc;
    if (argc <= a)
        return DEFAULT_COUNT;
    char *end = NULL;
    errno = 0;
    long n = strtol(argv[a], &end, 10);
    if (argc > a + 1 || errno || end == argv[a] || *end || n < 1)
        return -1;
    return n;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    int hpcc = 0;
    long count = parse_args(argc, argv, &hpcc);
    if (count < 0) {
        if (rank == 0)
            fprintf(stderr, "usage: %s [hpcc] [updates per process >= 1]\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    table = alloc_or_abort(TABLE_WORDS, sizeof *table);
    if (rank == 0) {
        if (hpcc)
            printf("# %s: %d processes, %ld updates each, HPCC's loop: %d receive%s polled with "
                   "MPI_Testany, up to %d updates held, one MPI_Isend at a time\n",
                   prog, nprocs, count, nprocs > 4 ? HPCC_RECVS : 1, nprocs > 4 ? "s" : "",
                   HPCC_HELD);
        else
            printf("# %s: %d processes, %ld updates each, %d receives polled with MPI_Testany\n",
                   prog, nprocs, count, RECVS);
        fflush(stdout);
    }

    uint64_t ran = UINT64_C(0x9e3779b97f4a7c15) * (uint64_t)(rank + 1);
    uint64_t drawn_xor = hpcc ? run_hpcc(count, ran) : run_polling(count, ran);
    double elapsed = t_end - t_start;

    uint64_t table_xor = 0;
    for (uint64_t w = 0; w < TABLE_WORDS; w++)
        table_xor ^= table[w];
    uint64_t mine[2] = {drawn_xor, table_xor}, all[2], counts[2] = {sent, applied}, totals[2];
    MPI_Allreduce(mine, all, 2, MPI_UINT64_T, MPI_BXOR, MPI_COMM_WORLD);
    MPI_Allreduce(counts, totals, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    double slowest = 0.0;
    MPI_Reduce(&elapsed, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    int failed = all[0] != all[1] || totals[0] != totals[1];
    if (rank == 0 && failed)
        fprintf(stderr,
                "%s: wrong result: XOR of tables %#" PRIx64 ", of updates %#" PRIx64 "; %" PRIu64
                " updates sent, %" PRIu64 " applied\n",
                prog, all[1], all[0], totals[0], totals[1]);
    if (rank == 0 && !failed) {
        printf("# %s: rank 0 called MPI_Testany %ld times (%ld found a message)\n", prog, polls,
               polls_found);
        printf("metric ra_updates_per_s %.1f updates/s higher\n", (double)count * nprocs / slowest);
        printf("metric ra_time_s %.4f s lower\n", slowest);
        fflush(stdout);
    }
    free(table);
    MPI_Finalize();
    return failed;
}
