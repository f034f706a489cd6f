/*
 * Point-to-point under MPI_THREAD_MULTIPLE: 4 threads per process talk to
 * the peer process (ranks pair up as 0-1, 2-3, ...) at the same time, on two
 * channels:
 *  - MPI_COMM_WORLD, tag = thread: thread t talks to the peer's thread t
 *    only, with blocking ping-pong (some receives through Mprobe/Mrecv) or
 *    batches of Isend/Irecv; every message must arrive in sending order;
 *  - one shared duplicate of MPI_COMM_WORLD, received with MPI_ANY_TAG by
 *    whichever thread's receive matches: every message must arrive once, and
 *    the receives of one thread must see each sending thread's messages in
 *    increasing order (a receive posted after another completed or was
 *    posted cannot get an earlier message of the same sender and tag).
 * Mostly small messages, every 64th one of 64 KiB; every payload is checked.
 *
 * usage: p2p_threads [messages per thread and channel]   (default 1024)
 */
#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h" /* tests/check.h */
#include "multiple.h"

enum { THREADS = 4, BATCH = 16, MEDIUM_INTS = 16384, HDR = 4, MAX_REPORTS = 10 };

static int rank, peer, nmsg;
static MPI_Comm shared;
static atomic_int *got[THREADS]; /* shared channel: times seq i of sending thread t arrived */
static atomic_int reports;
static int thread_failures[THREADS];

#define TCHECK(t, cond)                                                                            \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            thread_failures[t]++;                                                                  \
            if (atomic_fetch_add(&reports, 1) < MAX_REPORTS)                                       \
                fprintf(stderr, "%s:%d: rank %d thread %d: check failed: %s\n", __FILE__,          \
                        __LINE__, rank, t, #cond);                                                 \
        }                                                                                          \
    } while (0)

static int len_of(int i)
{
    return i % 64 == 63 ? MEDIUM_INTS : HDR + (i * 7) % 13;
}

/* Header (sender rank, thread, channel, seq), then a pattern of all four. */
static void fill(int *buf, int t, int ch, int i)
{
    int n = len_of(i);
    buf[0] = rank, buf[1] = t, buf[2] = ch, buf[3] = i;
    for (int k = HDR; k < n; k++)
        buf[k] = (rank * 31 + t * 7 + ch) * 1000003 + i * 17 + k;
}

/* Checks a received message; returns the sending thread, or -1. */
static int check_msg(int me, const int *buf, const MPI_Status *st, int ch, int want_t, int want_i)
{
    int n = -1;
    MPI_Get_count(st, MPI_INT, &n);
    if (n < HDR) {
        TCHECK(me, n >= HDR);
        return -1;
    }
    int t = buf[1], i = buf[3];
    TCHECK(me, buf[0] == peer && buf[2] == ch && t >= 0 && t < THREADS && i >= 0 && i < nmsg);
    if (t < 0 || t >= THREADS || i < 0 || i >= nmsg)
        return -1;
    TCHECK(me, st->MPI_TAG == t && n == len_of(i));
    if (want_t >= 0)
        TCHECK(me, t == want_t && i == want_i);
    int bad = 0;
    for (int k = HDR; k < n && k < len_of(i); k++)
        bad |= buf[k] != (peer * 31 + t * 7 + ch) * 1000003 + i * 17 + k;
    TCHECK(me, !bad);
    return t;
}

/* Thread t with the peer's thread t, tag t on MPI_COMM_WORLD: strict order. */
static void own_channel(int t, int batch, int *sbuf, int *rbuf)
{
    MPI_Comm comm = MPI_COMM_WORLD;
    int first = batch * BATCH;
    if (batch % 4 == 0) { /* blocking ping-pong, the lower rank first */
        for (int k = 0; k < BATCH; k++) {
            int i = first + k;
            MPI_Status st;
            fill(sbuf, t, 0, i);
            for (int turn = 0; turn < 2; turn++) {
                if ((turn == 0) == (rank < peer)) {
                    MPI_Send(sbuf, len_of(i), MPI_INT, peer, t, comm);
                } else if (k % 4 == 3) {
                    MPI_Message msg;
                    MPI_Mprobe(peer, t, comm, &msg, &st);
                    MPI_Mrecv(rbuf, MEDIUM_INTS, MPI_INT, &msg, &st);
                    check_msg(t, rbuf, &st, 0, t, i);
                } else {
                    MPI_Recv(rbuf, len_of(i) + 2, MPI_INT, peer, t, comm, &st);
                    check_msg(t, rbuf, &st, 0, t, i);
                }
            }
        }
        return;
    }
    /* A batch of nonblocking receives (in posting order) and sends. */
    MPI_Request req[2 * BATCH];
    MPI_Status st[2 * BATCH];
    for (int k = 0; k < BATCH; k++)
        MPI_Irecv(rbuf + (size_t)k * (MEDIUM_INTS + 2), len_of(first + k) + 2, MPI_INT, peer, t,
                  comm, &req[k]);
    for (int k = 0; k < BATCH; k++) {
        int *b = sbuf + (size_t)k * MEDIUM_INTS;
        fill(b, t, 0, first + k);
        if (k % 5 == 4)
            MPI_Issend(b, len_of(first + k), MPI_INT, peer, t, comm, &req[BATCH + k]);
        else
            MPI_Isend(b, len_of(first + k), MPI_INT, peer, t, comm, &req[BATCH + k]);
    }
    if (batch % 4 == 1 || batch % 4 == 3) {
        MPI_Waitall(2 * BATCH, req, st);
    } else { /* Testsome until all are done */
        int left = 2 * BATCH, idx[2 * BATCH], out;
        MPI_Status s[2 * BATCH];
        while (left > 0) {
            MPI_Testsome(2 * BATCH, req, &out, idx, s);
            TCHECK(t, out != MPI_UNDEFINED);
            if (out == MPI_UNDEFINED)
                break;
            for (int j = 0; j < out; j++)
                st[idx[j]] = s[j];
            left -= out;
            if (out == 0)
                sched_yield(); /* 8 threads on 2 cores: let the others run */
        }
    }
    for (int k = 0; k < BATCH; k++)
        check_msg(t, rbuf + (size_t)k * (MEDIUM_INTS + 2), &st[k], 0, t, first + k);
}

/* Every thread sends with its tag on the shared communicator and receives
 * with MPI_ANY_TAG: any of the peer's threads' messages may come. */
static void shared_channel(int t, int batch, int *sbuf, int *rbuf, int *last)
{
    MPI_Request req[2 * BATCH];
    MPI_Status st[2 * BATCH];
    int first = batch * BATCH;
    for (int k = 0; k < BATCH; k++)
        MPI_Irecv(rbuf + (size_t)k * (MEDIUM_INTS + 2), MEDIUM_INTS + 2, MPI_INT, peer, MPI_ANY_TAG,
                  shared, &req[k]);
    for (int k = 0; k < BATCH; k++) {
        int *b = sbuf + (size_t)k * MEDIUM_INTS;
        fill(b, t, 1, first + k);
        MPI_Isend(b, len_of(first + k), MPI_INT, peer, t, shared, &req[BATCH + k]);
    }
    MPI_Waitall(2 * BATCH, req, st);
    for (int k = 0; k < BATCH; k++) {
        const int *b = rbuf + (size_t)k * (MEDIUM_INTS + 2);
        int from = check_msg(t, b, &st[k], 1, -1, -1);
        if (from < 0)
            continue;
        TCHECK(t, b[3] > last[from]); /* in this thread's posting order */
        last[from] = b[3];
        atomic_fetch_add(&got[from][b[3]], 1);
    }
}

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    int *sbuf = malloc((size_t)BATCH * MEDIUM_INTS * sizeof(int));
    int *rbuf = malloc((size_t)BATCH * (MEDIUM_INTS + 2) * sizeof(int));
    int last[THREADS];
    for (int u = 0; u < THREADS; u++)
        last[u] = -1;
    for (int batch = 0; batch < nmsg / BATCH; batch++) {
        own_channel(t, batch, sbuf, rbuf);
        shared_channel(t, batch, sbuf, rbuf, last);
    }
    free(sbuf);
    free(rbuf);
    return NULL;
}

int main(int argc, char **argv)
{
    int size;
    if (!multiple_init(&argc, &argv, "p2p_threads", &rank, &size))
        return 0;
    nmsg = argc > 1 ? atoi(argv[1]) : 1024;
    nmsg -= nmsg % BATCH;
    if (nmsg < BATCH) {
        if (rank == 0)
            fprintf(stderr, "usage: p2p_threads [messages per thread and channel, >= %d]\n", BATCH);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    peer = rank ^ 1;
    MPI_Comm_dup(MPI_COMM_WORLD, &shared);
    multiple_watchdog("p2p_threads", 90);
    if (peer < size) {
        for (int t = 0; t < THREADS; t++)
            got[t] = calloc((size_t)nmsg, sizeof *got[t]);
        pthread_t tid[THREADS];
        for (int t = 0; t < THREADS; t++)
            pthread_create(&tid[t], NULL, worker, (void *)(intptr_t)t);
        for (int t = 0; t < THREADS; t++)
            pthread_join(tid[t], NULL);
        for (int t = 0; t < THREADS; t++) {
            int missing = 0, twice = 0;
            for (int i = 0; i < nmsg; i++)
                missing += got[t][i] == 0, twice += got[t][i] > 1;
            if (missing || twice)
                fprintf(stderr, "p2p_threads: rank %d: from thread %d: %d lost, %d duplicated\n",
                        rank, t, missing, twice);
            CHECK(!missing && !twice);
            failures += thread_failures[t];
            free(got[t]);
        }
    }
    multiple_watchdog("p2p_threads", 0);
    MPI_Comm_free(&shared);
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("p2p_threads: %d ranks x %d threads, %d messages per thread and channel: %s\n", size,
               THREADS, nmsg, all ? "FAILED" : "OK");
    MPI_Finalize();
    return all ? 1 : 0;
}
