/*
 * ult_overhead.c - what a send and a collective cost when made blocking,
 * nonblocking, or in a user-level thread (seed 003, Figs. 4 and 5), on 2
 * processes.
 *
 * Send (Fig. 4): rank 0 sends MSGS messages of a size to rank 1, which
 * receives them with MPI_Recv; the figure is rank 0's time per message:
 *   blocking     MPI_Send
 *   nonblocking  MPI_Isend + MPI_Wait
 *   ult          a ULT forked to make the MPI_Send, then joined (seed 003's
 *                Listing 1: the fork, the switches and the join on top)
 * Collectives (Fig. 5): MPI_Bcast, MPI_Allgather, MPI_Allreduce and
 * MPI_Alltoall of one double per process, time per call on every rank
 * (the slowest reported), the same three ways (nonblocking: MPI_I... +
 * MPI_Wait). Under wisp the program asks for WISP_THREAD_ULT, so blocking
 * collectives run through their nonblocking forms everywhere (docs/ult.md);
 * natively a "ULT" is its function called on the spot (bench/ult_bench.h).
 *
 * Each figure is the median of TRIALS. Usage: ult_overhead (2 processes).
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "bench_check.h" /* bench_median */
#include "bench_rma.h"   /* bench_now */
#include "ult_bench.h"

#define MSGS   500
#define CALLS  1000
#define TRIALS 5
#define MAXB   65536

enum mode { BLOCKING, NONBLOCKING, ULT, MODES };
static const char *const mode_names[MODES] = {"blocking", "nonblocking", "ult"};
enum coll { BCAST, ALLGATHER, ALLREDUCE, ALLTOALL, COLLS };
static const char *const coll_names[COLLS] = {"bcast", "allgather", "allreduce", "alltoall"};
static const int sizes[] = {8, 1024, 65536};

static int rank;
static char msg[MAXB];

struct op {
    enum coll coll;
    int bytes;
    double in[2], out[2];
};

static void send_one(void *arg)
{
    struct op *o = arg;
    MPI_Send(msg, o->bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
}

static void coll_one(void *arg)
{
    struct op *o = arg;
    switch (o->coll) {
    case BCAST:
        MPI_Bcast(o->in, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        break;
    case ALLGATHER:
        MPI_Allgather(o->in, 1, MPI_DOUBLE, o->out, 1, MPI_DOUBLE, MPI_COMM_WORLD);
        break;
    case ALLREDUCE:
        MPI_Allreduce(o->in, o->out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        break;
    case ALLTOALL:
        MPI_Alltoall(o->in, 1, MPI_DOUBLE, o->out, 1, MPI_DOUBLE, MPI_COMM_WORLD);
        break;
    default:
        break;
    }
}

static void coll_start(struct op *o, MPI_Request *req)
{
    switch (o->coll) {
    case BCAST:
        MPI_Ibcast(o->in, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD, req);
        break;
    case ALLGATHER:
        MPI_Iallgather(o->in, 1, MPI_DOUBLE, o->out, 1, MPI_DOUBLE, MPI_COMM_WORLD, req);
        break;
    case ALLREDUCE:
        MPI_Iallreduce(o->in, o->out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, req);
        break;
    case ALLTOALL:
        MPI_Ialltoall(o->in, 1, MPI_DOUBLE, o->out, 1, MPI_DOUBLE, MPI_COMM_WORLD, req);
        break;
    default:
        break;
    }
}

/* One call the way `mode` says: fn directly, its nonblocking form, or a ULT. */
static void once(enum mode mode, struct op *o, void (*fn)(void *), int coll)
{
    MPI_Request req;
    wisp_ult_t u;
    switch (mode) {
    case BLOCKING:
        fn(o);
        break;
    case NONBLOCKING:
        if (coll)
            coll_start(o, &req);
        else
            MPI_Isend(msg, o->bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        break;
    default:
        ult_bench_fork(fn, o, &u);
        ult_bench_join(u);
        break;
    }
}

/* Microseconds per send of rank 0 (rank 1 receives), the slowest rank's per
 * collective call; the same on every rank. */
static double trial(enum mode mode, struct op *o, int coll)
{
    int n = coll ? CALLS : MSGS;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = bench_now();
    for (int i = 0; i < n; i++) {
        if (coll)
            once(mode, o, coll_one, 1);
        else if (rank == 0)
            once(mode, o, send_one, 0);
        else if (rank == 1)
            MPI_Recv(msg, o->bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    double t = (bench_now() - t0) / n * 1e6;
    if (!coll) /* rank 0's time, without waiting for the receiver's last */
        MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    else
        MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return t;
}

static double median(enum mode mode, struct op *o, int coll)
{
    double v[TRIALS];
    trial(mode, o, coll); /* warm-up */
    for (int i = 0; i < TRIALS; i++)
        v[i] = trial(mode, o, coll);
    return bench_median(v, TRIALS);
}

int main(int argc, char **argv)
{
    ult_bench_init(&argc, &argv, "ult_overhead");
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2 || argc != 1) {
        if (rank == 0)
            fprintf(stderr, "usage: ult_overhead, on exactly 2 processes (got %d)\n", size);
        MPI_Finalize();
        return 2;
    }
    if (rank == 0)
        printf("# ult_overhead: %d sends, %d collective calls per figure, median of %d%s\n", MSGS,
               CALLS, TRIALS,
               ult_bench_have() ? "" : " (no wisp: the ULT runs its function on the spot)");
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int m = 0; m < MODES; m++) {
            struct op o = {.bytes = sizes[s]};
            double us = median(m, &o, 0);
            if (rank == 0)
                printf("metric send_%s_%dB %.3f us lower\n", mode_names[m], sizes[s], us);
        }
    int bad = 0;
    for (int c = 0; c < COLLS; c++)
        for (int m = 0; m < MODES; m++) {
            struct op o = {.coll = c, .in = {rank + 1.0, rank + 1.0}};
            double us = median(m, &o, 1);
            /* The last call's result: rank 0 gave 1, rank 1 gave 2. */
            double want0 = c == ALLREDUCE ? 3.0 : 1.0;
            double got0 = c == BCAST ? o.in[0] : o.out[0];
            bad |= got0 != want0;
            if (rank == 0)
                printf("metric %s_%s_us %.3f us lower\n", coll_names[c], mode_names[m], us);
        }
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (bad && rank == 0)
        fprintf(stderr, "ult_overhead: a collective gave a wrong result\n");
    MPI_Finalize();
    return bad;
}
