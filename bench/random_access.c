/*
 * random_access.c - a random-access update benchmark in the style of HPCC's
 * MPIRandomAccess: the pattern of a polling loop over a few posted receives.
 *
 * Every process owns a table of TABLE_WORDS 64-bit words, the processes'
 * tables together one global table, and makes `updates` updates of it:
 * each one draws a pseudo-random 64-bit value (HPCC's LFSR), which names a
 * word of the global table and is XORed into it. An update of its own
 * table is applied at once; one of another's goes into a buffer for that
 * process, sent (MPI_Isend, BATCH updates per message, two buffers per
 * destination) when full. Meanwhile each process keeps RECVS receives from
 * any source posted (MPI_Irecv with MPI_ANY_SOURCE, MPI_ANY_TAG) and, before
 * each update it draws, polls them with MPI_Testany, applying and reposting
 * what arrived: so most MPI_Testany calls find nothing, and their cost is
 * most of the run's MPI time. At the end each process flushes its buffers
 * and sends every other one an empty message with tag DONE, and polls until
 * it has those of all the others.
 *
 * Checked: the XOR of all tables equals the XOR of all values drawn, and
 * every update sent was applied once (counts summed over the processes);
 * a mismatch prints what was wrong and exits 1.
 *
 * Usage: random_access [updates per process]      (default 4194304)
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

static const char *prog = "random_access";
static int rank, nprocs;
static uint64_t *table;

/* Receiving. */
static uint64_t rbufs[RECVS][BATCH];
static MPI_Request rreqs[RECVS];
static int done_seen;           /* DONE messages received */
static uint64_t applied;        /* updates received and applied */
static long polls, polls_found; /* MPI_Testany calls, and those that found one */

/* Sending: two buffers per destination, each with its request. */
struct outbox {
    uint64_t buf[2][BATCH];
    MPI_Request req[2];
    int fill, cur; /* updates in buf[cur] */
};
static struct outbox *out;
static uint64_t sent;

static void post(int i)
{
    MPI_Irecv(rbufs[i], BATCH, MPI_UINT64_T, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
              &rreqs[i]);
}

static void apply(uint64_t ran)
{
    table[ran & (TABLE_WORDS - 1)] ^= ran;
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
        if (st.MPI_TAG == TAG_DONE) {
            done_seen++;
        } else {
            int n = 0;
            MPI_Get_count(&st, MPI_UINT64_T, &n);
            for (int k = 0; k < n; k++)
                apply(rbufs[index][k]);
            applied += (uint64_t)n;
        }
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

static uint64_t next_random(uint64_t ran)
{
    return (ran << 1) ^ ((int64_t)ran < 0 ? POLY : 0);
}

static long parse_count(int argc, char **argv)
{
    if (argc < 2)
        return DEFAULT_COUNT;
    char *end = NULL;
    errno = 0;
    long n = strtol(argv[1], &end, 10);
    if (argc > 2 || errno || end == argv[1] || *end || n < 1)
        return -1;
    return n;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    long count = parse_count(argc, argv);
    if (count < 0) {
        if (rank == 0)
            fprintf(stderr, "usage: %s [updates per process >= 1]\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    table = calloc(TABLE_WORDS, sizeof *table);
    out = calloc((size_t)nprocs, sizeof *out);
    if (!table || !out) {
        fprintf(stderr, "%s: rank %d: out of memory\n", prog, rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int p = 0; p < nprocs; p++)
        out[p].req[0] = out[p].req[1] = MPI_REQUEST_NULL;
    for (int i = 0; i < RECVS; i++)
        post(i);
    if (rank == 0) {
        printf("# %s: %d processes, %ld updates each, %d receives polled with MPI_Testany\n", prog,
               nprocs, count, RECVS);
        fflush(stdout);
    }

    uint64_t ran = UINT64_C(0x9e3779b97f4a7c15) * (uint64_t)(rank + 1), drawn_xor = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long i = 0; i < count; i++) {
        poll();
        ran = next_random(ran);
        drawn_xor ^= ran;
        int dest = (int)((ran >> TABLE_LOG) % (uint64_t)nprocs);
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
    double elapsed = MPI_Wtime() - t0;

    for (int i = 0; i < RECVS; i++) { /* nothing more comes: each ends cancelled */
        MPI_Status st;
        int cancelled = 0;
        MPI_Cancel(&rreqs[i]);
        MPI_Wait(&rreqs[i], &st);
        MPI_Test_cancelled(&st, &cancelled);
        if (!cancelled) {
            fprintf(stderr, "%s: rank %d: a receive got a message after the end\n", prog, rank);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }

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
    free(out);
    MPI_Finalize();
    return failed;
}
