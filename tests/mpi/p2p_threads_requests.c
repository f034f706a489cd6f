/*
 * Requests made, looked up and completed by several threads at once
 * (MPI_THREAD_MULTIPLE): 4 threads per process each exchange batches with
 * the same thread of the peer process (ranks pair up as 0-1, 2-3, ...; tag =
 * thread). Each round a thread posts a batch of receives and sends one
 * larger than the last (so the request pool grows while the other threads
 * look their handles up without the lock), small sends mostly (completed
 * at once: the shared request's handles), some synchronous, every 16th of
 * 64 KiB (rendezvous), plus a message to itself on MPI_COMM_SELF (the MPI's
 * own requests in the same arrays). It completes them all with one of
 * MPI_Waitall, MPI_Testall, MPI_Waitsome, MPI_Testany, MPI_Waitany by turn.
 * Checked: every payload and status, the handles of one batch are distinct,
 * survive MPI_Request_c2f / MPI_Request_f2c (toint / fromint in the MPI-5
 * ABI), and are MPI_REQUEST_NULL after.
 *
 * usage: p2p_threads_requests [rounds]   (default 96)
 */
#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h" /* tests/check.h */
#include "int_handles.h"
#include "multiple.h"

enum { THREADS = 4, FIRST_BATCH = 4, MEDIUM_INTS = 16384, MAX_REPORTS = 10 };

static int rank, peer, rounds;
static atomic_int reports, thread_failures;

#define TCHECK(t, cond)                                                                            \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            atomic_fetch_add(&thread_failures, 1);                                                 \
            if (atomic_fetch_add(&reports, 1) < MAX_REPORTS)                                       \
                fprintf(stderr, "%s:%d: rank %d thread %d: check failed: %s\n", __FILE__,          \
                        __LINE__, rank, t, #cond);                                                 \
        }                                                                                          \
    } while (0)

static int len_of(int i)
{
    return i % 16 == 15 ? MEDIUM_INTS : 1 + (i * 5) % 13;
}

static int value(int t, int round, int i, int k)
{
    return (t << 26) ^ (round << 16) ^ (i << 8) ^ k;
}

/* Complete all n requests with the round's function; statuses in `st`. */
static void complete(int t, int round, int n, MPI_Request *reqs, MPI_Status *st)
{
    int left = n, flag, index, outcount, *indices = malloc((size_t)n * sizeof *indices);
    MPI_Status one;
    switch (round % 5) {
    case 0:
        TCHECK(t, MPI_Waitall(n, reqs, st) == MPI_SUCCESS);
        break;
    case 1:
        do
            TCHECK(t, MPI_Testall(n, reqs, &flag, st) == MPI_SUCCESS);
        while (!flag);
        break;
    case 2:
        while (left > 0) {
            MPI_Status *some = malloc((size_t)n * sizeof *some);
            TCHECK(t, MPI_Waitsome(n, reqs, &outcount, indices, some) == MPI_SUCCESS);
            TCHECK(t, outcount != MPI_UNDEFINED && outcount > 0);
            if (outcount == MPI_UNDEFINED || outcount <= 0)
                left = 0;
            for (int j = 0; j < outcount; j++)
                st[indices[j]] = some[j];
            left -= outcount;
            free(some);
        }
        break;
    default:
        while (left > 0) {
            if (round % 5 == 3) {
                TCHECK(t, MPI_Testany(n, reqs, &index, &flag, &one) == MPI_SUCCESS);
            } else {
                TCHECK(t, MPI_Waitany(n, reqs, &index, &one) == MPI_SUCCESS);
                flag = 1;
            }
            if (!flag)
                continue;
            TCHECK(t, index != MPI_UNDEFINED);
            if (index == MPI_UNDEFINED)
                break;
            st[index] = one;
            left--;
        }
    }
    free(indices);
}

static void exchange(int t, int round, int **sbuf, int **rbuf, MPI_Request *reqs, MPI_Status *st)
{
    int n = FIRST_BATCH + round, self_in = -1, self_out = value(t, round, 0, 7);
    for (int i = 0; i < n; i++)
        MPI_Irecv(rbuf[i], len_of(i), MPI_INT, peer, t, MPI_COMM_WORLD, &reqs[i]);
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < len_of(i); k++)
            sbuf[i][k] = value(t, round, i, k);
        if (i % 7 == 3)
            MPI_Issend(sbuf[i], len_of(i), MPI_INT, peer, t, MPI_COMM_WORLD, &reqs[n + i]);
        else
            MPI_Isend(sbuf[i], len_of(i), MPI_INT, peer, t, MPI_COMM_WORLD, &reqs[n + i]);
    }
    int m = 2 * n;
    MPI_Irecv(&self_in, 1, MPI_INT, 0, THREADS + t, MPI_COMM_SELF, &reqs[m]);
    MPI_Isend(&self_out, 1, MPI_INT, 0, THREADS + t, MPI_COMM_SELF, &reqs[m + 1]);
    m += 2;

    for (int i = 0; i < m; i++) {
        TCHECK(t, reqs[i] != MPI_REQUEST_NULL);
        TCHECK(t, REQUEST_FROM_INT(REQUEST_TO_INT(reqs[i])) == reqs[i]);
        for (int j = 0; j < i; j++)
            if (reqs[j] == reqs[i])
                TCHECK(t, !"two active requests share a handle");
    }
    complete(t, round, m, reqs, st);

    for (int i = 0; i < m; i++)
        TCHECK(t, reqs[i] == MPI_REQUEST_NULL);
    for (int i = 0; i < n; i++) {
        int count = -1, bad = 0;
        MPI_Get_count(&st[i], MPI_INT, &count);
        TCHECK(t, st[i].MPI_SOURCE == peer && st[i].MPI_TAG == t && count == len_of(i));
        for (int k = 0; k < len_of(i); k++)
            bad += rbuf[i][k] != value(t, round, i, k);
        TCHECK(t, bad == 0);
    }
    TCHECK(t, st[2 * n].MPI_SOURCE == 0 && st[2 * n].MPI_TAG == THREADS + t);
    TCHECK(t, self_in == self_out);
}

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg, most = FIRST_BATCH + rounds;
    int **sbuf = malloc((size_t)most * sizeof *sbuf), **rbuf = malloc((size_t)most * sizeof *rbuf);
    for (int i = 0; i < most; i++) {
        sbuf[i] = malloc((size_t)len_of(i) * sizeof(int));
        rbuf[i] = malloc((size_t)len_of(i) * sizeof(int));
    }
    MPI_Request *reqs = malloc((size_t)(2 * most + 2) * sizeof *reqs);
    MPI_Status *st = malloc((size_t)(2 * most + 2) * sizeof *st);
    for (int round = 0; round < rounds; round++)
        exchange(t, round, sbuf, rbuf, reqs, st);
    for (int i = 0; i < most; i++) {
        free(sbuf[i]);
        free(rbuf[i]);
    }
    free(sbuf);
    free(rbuf);
    free(reqs);
    free(st);
    return NULL;
}

int main(int argc, char **argv)
{
    int size;
    if (!multiple_init(&argc, &argv, "p2p_threads_requests", &rank, &size))
        return 0;
    rounds = argc > 1 ? atoi(argv[1]) : 96;
    if (rounds < 1) {
        if (rank == 0)
            fprintf(stderr, "usage: p2p_threads_requests [rounds, >= 1]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    peer = rank ^ 1;
    multiple_watchdog("p2p_threads_requests", 120);
    if (peer < size) {
        pthread_t tid[THREADS];
        for (int t = 0; t < THREADS; t++)
            pthread_create(&tid[t], NULL, worker, (void *)(intptr_t)t);
        for (int t = 0; t < THREADS; t++)
            pthread_join(tid[t], NULL);
    }
    multiple_watchdog("p2p_threads_requests", 0);
    failures += atomic_load(&thread_failures);
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("p2p_threads_requests: %d ranks x %d threads, %d rounds: %s\n", size, THREADS,
               rounds, all ? "FAILED" : "OK");
    MPI_Finalize();
    return all ? 1 : 0;
}
