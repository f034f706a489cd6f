/*
 * icoll.c - the nonblocking collectives: MPI_Ibarrier, MPI_Ibcast (root 0),
 * MPI_Iallreduce (MPI_SUM of doubles), MPI_Igather (root 0), MPI_Iallgather
 * and MPI_Ialltoall (SIZE bytes a block) on all processes, buffers from
 * malloc (in wisp's shared heap when wisp is preloaded); and, where the MPI
 * has MPI-4's persistent collectives, the same three as MPI_Barrier_init,
 * MPI_Bcast_init and MPI_Allreduce_init, one request per call and size,
 * each round an MPI_Start.
 *
 * For each call and size (seed 004's mpi_overhead, for collectives):
 *   base  the time of a start + MPI_Wait with nothing between (the
 *         latency);
 *   work  a computation of max(2 base, 20 us) alone, no MPI call in it;
 *   iter  start, the same computation, MPI_Wait;
 *   overhead = iter - work: what the collective costs beyond the work;
 *   availability = 1 - overhead / base (1: hidden entirely behind the work,
 *   0: none of it; the seeds' CG overlaps its dot product's allreduce so).
 * Each figure as bench/chunks.h times it. Every result is checked once
 * after the timing (exit 1 if wrong).
 *
 * Usage: icoll [multiple] [SIZE ...]
 *   SIZE      bytes, of a block in the gather, allgather and all-to-all;
 *             default 8, 1024, 65536, 1048576
 *   multiple  MPI_Init_thread with MPI_THREAD_MULTIPLE (wisp serves the
 *             barrier, broadcast and allreduce of a world that spans nodes
 *             in stages only at that level: src/coll/hier.h)
 * Rank 0 prints lines that bench/run.py reads:
 *   metric i<call>_<size>B <us> us lower       (ibarrier without a size)
 *   metric overhead_i<call>_<size>B <us> us lower
 *   metric avail_i<call>_<size>B <fraction> ratio higher
 * and the same with p<call> for the persistent forms.
 */
#include <mpi.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chunks.h"

enum call {
    IBARRIER,
    IBCAST,
    IALLREDUCE,
    IGATHER,
    IALLGATHER,
    IALLTOALL,
    PBARRIER,
    PBCAST,
    PALLREDUCE
};
static const char *const names[] = {"ibarrier", "ibcast",     "iallreduce",
                                    "igather",  "iallgather", "ialltoall",
                                    "pbarrier", "pbcast",     "pallreduce"};
#if MPI_VERSION >= 4
enum { LAST = PALLREDUCE };
#else
enum { LAST = IALLTOALL };
#endif

/* The persistent request of the call and size being timed. */
static MPI_Request persistent = MPI_REQUEST_NULL;

static bool is_persistent(enum call call)
{
    return call >= PBARRIER;
}

static enum call nonblocking(enum call call)
{
    return is_persistent(call) ? call - PBARRIER : call;
}

static int me, np;
static volatile double sink;

/* Computes for about `s` seconds, calling nothing of MPI's but the clock. */
static void compute(double s)
{
    if (s <= 0)
        return;
    double t0 = MPI_Wtime(), x = sink;
    while (MPI_Wtime() - t0 < s)
        for (int i = 0; i < 200; i++)
            x = x * 0.999999 + 1e-9;
    sink = x;
}

static void start(enum call call, double *in, double *out, int n, MPI_Request *req)
{
    if (is_persistent(call)) {
        MPI_Start(&persistent);
        *req = persistent;
    } else if (call == IBARRIER)
        MPI_Ibarrier(MPI_COMM_WORLD, req);
    else if (call == IBCAST)
        MPI_Ibcast(out, n, MPI_DOUBLE, 0, MPI_COMM_WORLD, req);
    else if (call == IALLREDUCE)
        MPI_Iallreduce(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, req);
    else if (call == IGATHER)
        MPI_Igather(in, n, MPI_DOUBLE, out, n, MPI_DOUBLE, 0, MPI_COMM_WORLD, req);
    else if (call == IALLGATHER)
        MPI_Iallgather(in, n, MPI_DOUBLE, out, n, MPI_DOUBLE, MPI_COMM_WORLD, req);
    else
        MPI_Ialltoall(in, n, MPI_DOUBLE, out, n, MPI_DOUBLE, MPI_COMM_WORLD, req);
}

/* A start, `work` seconds of computation, the wait; a negative `work`
 * times its computation alone (-work seconds), no call. */
static void one(enum call call, double *in, double *out, int n, double work)
{
    if (work < 0) {
        compute(-work);
        return;
    }
    MPI_Request req;
    start(call, in, out, n, &req);
    compute(work);
    MPI_Wait(is_persistent(call) ? &persistent : &req, MPI_STATUS_IGNORE);
}

/* The persistent request of `call` (MPI_REQUEST_NULL for a nonblocking one). */
static void persistent_init(enum call call, double *in, double *out, int n)
{
#if MPI_VERSION >= 4
    if (call == PBARRIER)
        MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &persistent);
    else if (call == PBCAST)
        MPI_Bcast_init(out, n, MPI_DOUBLE, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &persistent);
    else if (call == PALLREDUCE)
        MPI_Allreduce_init(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                           &persistent);
#else
    (void)call, (void)in, (void)out, (void)n;
#endif
}

struct one_args {
    enum call call;
    double *in, *out;
    int n;
    double work;
};

static void one_call(void *arg)
{
    struct one_args *a = arg;
    one(a->call, a->in, a->out, a->n, a->work);
}

/* Seconds per call (bench/chunks.h). */
static double timed(enum call call, double *in, double *out, int n, double work)
{
    struct one_args a = {call, in, out, n, work};
    return bench_chunks(one_call, &a, MPI_COMM_WORLD);
}

/* Block j of rank r's send buffer (of a gather: block 0) holds r + j + i % 7. */
static bool check(enum call call, double *in, double *out, int n)
{
    enum call c = nonblocking(call);
    bool moves = c == IGATHER || c == IALLGATHER || c == IALLTOALL;
    for (int j = 0; j < (moves ? np : 1); j++)
        for (int i = 0; i < n; i++) {
            in[j * n + i] = me + j + i % 7;
            out[j * n + i] = me == 0 || c == IALLREDUCE ? in[j * n + i] : -1;
        }
    one(call, in, out, n, 0);
    if (c == IGATHER && me != 0)
        return true;
    for (int j = 0; j < (moves ? np : 1); j++)
        for (int i = 0; i < n; i++) {
            double want = c == IBCAST      ? i % 7
                          : c == IALLTOALL ? j + me + i % 7
                          : moves          ? j + i % 7
                                           : (double)np * (i % 7) + np * (np - 1) / 2.0;
            if (out[j * n + i] != want)
                return false;
        }
    return true;
}

int main(int argc, char **argv)
{
    bool multiple = false;
    for (int a = 1; a < argc; a++)
        multiple |= !strcmp(argv[a], "multiple");
    int provided;
    MPI_Init_thread(&argc, &argv, multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (multiple && provided != MPI_THREAD_MULTIPLE && me == 0)
        fprintf(stderr, "icoll: the MPI gave no MPI_THREAD_MULTIPLE\n");
    int sizes[32], nsizes = 0;
    for (int a = 1; a < argc && nsizes < 32; a++)
        if (strcmp(argv[a], "multiple"))
            sizes[nsizes++] = atoi(argv[a]);
    if (!nsizes) {
        int dflt[] = {8, 1024, 65536, 1 << 20};
        for (int i = 0; i < 4; i++)
            sizes[nsizes++] = dflt[i];
    }
    int status = 0;
    for (int call = IBARRIER; call <= LAST; call++)
        for (int s = 0; s < (nonblocking(call) == IBARRIER ? 1 : nsizes); s++) {
            int n = nonblocking(call) == IBARRIER ? 0 : (sizes[s] + 7) / 8;
            size_t bytes = ((size_t)n * (size_t)np + 1) * 8;
            double *in = malloc(bytes), *out = malloc(bytes);
            memset(in, 0, bytes);
            memset(out, 0, bytes);
            persistent_init(call, in, out, n);
            double base = timed(call, in, out, n, 0);
            double w = base * 2 > 20e-6 ? base * 2 : 20e-6;
            double work = timed(call, in, out, n, -w), iter = timed(call, in, out, n, w);
            double overhead = iter > work ? iter - work : 0;
            int ok = check(call, in, out, n), all_ok;
            MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
            if (!all_ok)
                status = 1;
            if (me == 0) {
                char tag[64];
                if (nonblocking(call) == IBARRIER)
                    snprintf(tag, sizeof tag, "%s", names[call]);
                else
                    snprintf(tag, sizeof tag, "%s_%dB", names[call], n * 8);
                printf("metric %s %.3f us lower\n", tag, base * 1e6);
                printf("metric overhead_%s %.3f us lower\n", tag, overhead * 1e6);
                printf("metric avail_%s %.3f ratio higher\n", tag,
                       base > 0 ? 1 - overhead / base : 0);
            }
            if (persistent != MPI_REQUEST_NULL)
                MPI_Request_free(&persistent);
            free(in);
            free(out);
        }
    if (me == 0 && status)
        fprintf(stderr, "icoll: a result was wrong\n");
    MPI_Finalize();
    return status;
}
