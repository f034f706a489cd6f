/*
 * Blocking MPI calls made in user-level threads yield (two application
 * ranks; one ghost more with WISP_GHOSTS=1). Every section is arranged so
 * that a ULT blocks in MPI first and only another ULT of the same kernel
 * thread can make its peer answer: if the blocking call held the kernel
 * thread instead of yielding, the job would hang (the test's timeout).
 * Results, statuses and per-ULT message order are checked exactly.
 */
#include <mpi.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "wisp.h"

static int rank, peer;

/* ---- a blocking call that only another ULT can unblock ------------------ */

enum kind {
    RECV,
    SSEND,
    PROBE,
    MPROBE,
    WAIT,
    WAITALL,
    WAITANY,
    WAITSOME,
    SENDRECV,
    BARRIER,
    ALLREDUCE,
    BCAST,
    ALLGATHER,
    KINDS
};
static const char *const names[KINDS] = {"recv",      "ssend",   "probe",    "mprobe",   "wait",
                                         "waitall",   "waitany", "waitsome", "sendrecv", "barrier",
                                         "allreduce", "bcast",   "allgather"};
enum { TRIGGER = 1000, ANSWER = 2000 };

/* Rank 0: the blocking call, waiting for rank 1's answer (tag ANSWER+k). */
static void blocked(void *arg)
{
    int k = (int)(long)arg;
    int v = -1, w = -1, in = rank + 1, out[2] = {0, 0}, index = -1, count = 0, idx[1];
    MPI_Status st, sts[2];
    MPI_Request r[2];
    MPI_Message m;
    switch (k) {
    case RECV:
        MPI_Recv(&v, 1, MPI_INT, peer, ANSWER + k, MPI_COMM_WORLD, &st);
        CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == ANSWER + k);
        break;
    case SSEND: /* completes when rank 1 receives, after the trigger */
        v = 7;
        MPI_Ssend(&v, 1, MPI_INT, peer, ANSWER + k, MPI_COMM_WORLD);
        v = 7 * k;
        break;
    case PROBE:
        MPI_Probe(peer, ANSWER + k, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_INT, &count);
        CHECK(count == 1);
        MPI_Recv(&v, 1, MPI_INT, peer, ANSWER + k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        break;
    case MPROBE:
        MPI_Mprobe(MPI_ANY_SOURCE, ANSWER + k, MPI_COMM_WORLD, &m, &st);
        MPI_Mrecv(&v, 1, MPI_INT, &m, &st);
        CHECK(st.MPI_SOURCE == peer);
        break;
    case WAIT:
        MPI_Irecv(&v, 1, MPI_INT, peer, ANSWER + k, MPI_COMM_WORLD, &r[0]);
        MPI_Wait(&r[0], &st);
        CHECK(r[0] == MPI_REQUEST_NULL && st.MPI_TAG == ANSWER + k);
        break;
    case WAITALL:
        MPI_Irecv(&v, 1, MPI_INT, peer, ANSWER + k, MPI_COMM_WORLD, &r[0]);
        MPI_Irecv(&w, 1, MPI_INT, peer, ANSWER + k, MPI_COMM_WORLD, &r[1]);
        MPI_Waitall(2, r, sts);
        CHECK(w == 7 * k + 1); /* the second message: order kept */
        break;
    case WAITANY:
        r[0] = MPI_REQUEST_NULL;
        MPI_Irecv(&v, 1, MPI_INT, peer, ANSWER + k, MPI_COMM_WORLD, &r[1]);
        MPI_Waitany(2, r, &index, &st);
        CHECK(index == 1 && st.MPI_SOURCE == peer);
        break;
    case WAITSOME:
        MPI_Irecv(&v, 1, MPI_INT, peer, ANSWER + k, MPI_COMM_WORLD, &r[0]);
        MPI_Waitsome(1, r, &count, idx, sts);
        CHECK(count == 1 && idx[0] == 0);
        break;
    case SENDRECV:
        w = 5;
        MPI_Sendrecv(&w, 1, MPI_INT, peer, ANSWER + k + 100, &v, 1, MPI_INT, peer, ANSWER + k,
                     MPI_COMM_WORLD, &st);
        CHECK(st.MPI_TAG == ANSWER + k);
        break;
    case BARRIER:
        MPI_Barrier(MPI_COMM_WORLD);
        v = 7 * k;
        break;
    case ALLREDUCE:
        MPI_Allreduce(&in, &v, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        CHECK(v == 3);
        v = 7 * k;
        break;
    case BCAST:
        v = 7 * k;
        MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
        break;
    case ALLGATHER:
        MPI_Allgather(&in, 1, MPI_INT, out, 1, MPI_INT, MPI_COMM_WORLD);
        CHECK(out[0] == 1 && out[1] == 2);
        v = 7 * k;
        break;
    default:
        break;
    }
    if (v != 7 * k)
        fprintf(stderr, "%s: got %d, expected %d\n", names[k], v, 7 * k);
    CHECK(v == 7 * k);
}

/* Rank 0: what lets rank 1 answer. */
static void trigger(void *arg)
{
    int k = (int)(long)arg;
    MPI_Send(&k, 1, MPI_INT, peer, TRIGGER + k, MPI_COMM_WORLD);
}

/* Rank 1: the answer, once triggered. */
static void answer(int k)
{
    int t, v = 7 * k, w = v + 1, in = rank + 1, out[2];
    MPI_Recv(&t, 1, MPI_INT, peer, TRIGGER + k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(t == k);
    switch (k) {
    case SSEND:
        MPI_Recv(&t, 1, MPI_INT, peer, ANSWER + k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(t == 7);
        break;
    case WAITALL:
        MPI_Send(&v, 1, MPI_INT, peer, ANSWER + k, MPI_COMM_WORLD);
        MPI_Send(&w, 1, MPI_INT, peer, ANSWER + k, MPI_COMM_WORLD);
        break;
    case SENDRECV:
        MPI_Recv(&t, 1, MPI_INT, peer, ANSWER + k + 100, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(t == 5);
        MPI_Send(&v, 1, MPI_INT, peer, ANSWER + k, MPI_COMM_WORLD);
        break;
    case BARRIER:
        MPI_Barrier(MPI_COMM_WORLD);
        break;
    case ALLREDUCE:
        MPI_Allreduce(&in, &t, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        CHECK(t == 3);
        break;
    case BCAST:
        MPI_Bcast(&t, 1, MPI_INT, 0, MPI_COMM_WORLD);
        CHECK(t == 7 * k);
        break;
    case ALLGATHER:
        MPI_Allgather(&in, 1, MPI_INT, out, 1, MPI_INT, MPI_COMM_WORLD);
        CHECK(out[0] == 1 && out[1] == 2);
        break;
    default:
        MPI_Send(&v, 1, MPI_INT, peer, ANSWER + k, MPI_COMM_WORLD);
    }
}

static void check_blocking_calls_yield(void)
{
    for (int k = 0; k < KINDS; k++) {
        if (rank == 0) {
            wisp_ult_t a, b;
            CHECK(wisp_ult_fork(blocked, (void *)(long)k, &a) == 0);
            CHECK(wisp_ult_fork(trigger, (void *)(long)k, &b) == 0);
            CHECK(wisp_ult_join(a) == 0 && wisp_ult_join(b) == 0);
        } else {
            answer(k);
        }
    }
}

/* ---- many ULTs exchanging at once: crossed, large, ordered -------------- */

enum { PAIRS = 6, ROUNDS = 20, BIG = 1 << 18 };

/* ULT i < PAIRS receives stream i; ULT PAIRS + i sends stream i (Ssend, so
 * both sides block). Receivers are forked first, on both ranks: without
 * yielding, both ranks would sit in their first receive. */
static void stream(void *arg)
{
    long i = (long)arg;
    bool sender = i >= PAIRS;
    int tag = (int)(i % PAIRS);
    int *buf = malloc(BIG * sizeof *buf);
    for (int round = 0; round < ROUNDS; round++) {
        int n = round % 4 == 3 ? BIG : 1 + round; /* some large enough to rendezvous */
        if (sender) {
            for (int j = 0; j < n; j++)
                buf[j] = tag * 1000000 + round * 1000 + j % 1000;
            MPI_Ssend(buf, n, MPI_INT, peer, tag, MPI_COMM_WORLD);
        } else {
            MPI_Status st;
            int got = -1;
            MPI_Recv(buf, BIG, MPI_INT, peer, tag, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_INT, &got);
            CHECK(got == n); /* this stream's messages arrive in order */
            bool same = true;
            for (int j = 0; j < n; j++)
                same &= buf[j] == tag * 1000000 + round * 1000 + j % 1000;
            CHECK(same);
        }
    }
    free(buf);
}

static void check_streams(void)
{
    wisp_ult_t u[2 * PAIRS];
    for (long i = 0; i < 2 * PAIRS; i++)
        CHECK(wisp_ult_fork(stream, (void *)i, &u[i]) == 0);
    for (int i = 0; i < 2 * PAIRS; i++)
        CHECK(wisp_ult_join(u[i]) == 0);
}

/* ---- one-sided from ULTs: accumulate, put, get, flush --------------------- */

enum { WORKERS = 4, ADDS = 10 };
static MPI_Win win;

static void rma_worker(void *arg)
{
    int k = (int)(long)arg;
    int one = rank * 1000 + k + 1, put = 77 * (k + 1) + rank, got = -1, before = -1;
    for (int a = 0; a < ADDS; a++) {
        MPI_Accumulate(&one, 1, MPI_INT, peer, k, 1, MPI_INT, MPI_SUM, win);
        wisp_ult_yield();
    }
    MPI_Win_flush(peer, win);
    MPI_Put(&put, 1, MPI_INT, peer, WORKERS + k, 1, MPI_INT, win);
    MPI_Win_flush(peer, win);
    MPI_Get(&got, 1, MPI_INT, peer, WORKERS + k, 1, MPI_INT, win);
    MPI_Fetch_and_op(&one, &before, MPI_INT, peer, 2 * WORKERS + k, MPI_SUM, win);
    MPI_Win_flush_all(win);
    CHECK(got == put);
    CHECK(before == 0 || before == one); /* the peer's own adds go elsewhere */
}

static void check_rma(void)
{
    int *base;
    MPI_Win_allocate(3 * WORKERS * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base,
                     &win);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
    memset(base, 0, 3 * WORKERS * sizeof(int));
    MPI_Win_unlock(rank, win);
    MPI_Barrier(MPI_COMM_WORLD);
    wisp_ult_t u[WORKERS];
    MPI_Win_lock_all(0, win);
    for (long k = 0; k < WORKERS; k++)
        CHECK(wisp_ult_fork(rma_worker, (void *)k, &u[k]) == 0);
    for (int k = 0; k < WORKERS; k++)
        CHECK(wisp_ult_join(u[k]) == 0);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
    for (int k = 0; k < WORKERS; k++) {
        int one = peer * 1000 + k + 1;
        CHECK(base[k] == ADDS * one);
        CHECK(base[WORKERS + k] == 77 * (k + 1) + peer);
        CHECK(base[2 * WORKERS + k] == one);
    }
    MPI_Win_unlock(rank, win);
    MPI_Win_free(&win);
}

int main(int argc, char **argv)
{
    int provided = -1, size;
    MPI_Init_thread(&argc, &argv, WISP_THREAD_ULT, &provided);
    CHECK(provided == WISP_THREAD_ULT);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 2);
    peer = 1 - rank;
    check_blocking_calls_yield();
    check_streams();
    check_rma();
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("ult_mpi: %s (%d kernel threads)\n", all ? "FAILED" : "ok", wisp_ult_threads());
    MPI_Finalize();
    return all != 0;
}
