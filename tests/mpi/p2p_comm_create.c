/*
 * Point-to-point around communicator creation, under MPI_THREAD_MULTIPLE,
 * on 2 processes:
 *  - early: rank 0 finishes creating a communicator and sends on it (a
 *    standard send and a synchronous one) while rank 1 is still creating
 *    it and has work in flight (a receive posted on MPI_COMM_WORLD, so
 *    another thread of wisp may read its rings meanwhile). Both messages
 *    must arrive, and the synchronous send must not complete before its
 *    receive is posted. (tests/shims/slow_agreement.c widens the window.)
 *  - concurrent: two threads per process each duplicate their own parent
 *    communicator at the same time, over and over; each new communicator
 *    must carry only its own messages.
 *
 * usage: p2p_comm_create [early | concurrent]...   (default: both)
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "check.h" /* tests/check.h */
#include "multiple.h"

enum { THREADS = 2, ROUNDS = 40 };

static int rank, peer;
static MPI_Comm parents[THREADS];
static pthread_barrier_t start;
static int thread_failures[THREADS];

static void sleep_ms(int ms)
{
    nanosleep(&(struct timespec){ms / 1000, (ms % 1000) * 1000000L}, NULL);
}

/* Wait for a receive at most `seconds`; cancelled when it does not come. */
static int recv_within(MPI_Request *req, double seconds, MPI_Status *st)
{
    double end = MPI_Wtime() + seconds;
    int flag = 0;
    while (!flag && MPI_Wtime() < end)
        MPI_Test(req, &flag, st);
    if (!flag) {
        MPI_Cancel(req);
        MPI_Wait(req, MPI_STATUS_IGNORE);
    }
    return flag;
}

static void rule_early(void)
{
    MPI_Request note = MPI_REQUEST_NULL;
    if (rank == 1) /* work in flight: wisp's other threads read the rings */
        MPI_Irecv(NULL, 0, MPI_BYTE, 0, 99, MPI_COMM_WORLD, &note);
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    if (rank == 0) {
        int a = 42, b = 43;
        MPI_Send(&a, 1, MPI_INT, 1, 1, c);
        MPI_Ssend(&b, 1, MPI_INT, 1, 2, c);
        MPI_Send(NULL, 0, MPI_BYTE, 1, 99, MPI_COMM_WORLD); /* the Ssend is done */
    } else if (rank == 1) {
        sleep_ms(100);
        int done = 0;
        MPI_Test(&note, &done, MPI_STATUS_IGNORE);
        CHECK(!done); /* the synchronous send cannot be complete: no receive yet */
        int a = 0, b = 0;
        MPI_Request r[2];
        MPI_Status st;
        MPI_Irecv(&a, 1, MPI_INT, 0, 1, c, &r[0]);
        MPI_Irecv(&b, 1, MPI_INT, 0, 2, c, &r[1]);
        CHECK(recv_within(&r[0], 5, &st) && a == 42 && st.MPI_SOURCE == 0);
        CHECK(recv_within(&r[1], 5, &st) && b == 43 && st.MPI_SOURCE == 0);
        if (!done)
            CHECK(recv_within(&note, 5, MPI_STATUS_IGNORE));
    }
    MPI_Comm_free(&c);
}

static void *concurrent_thread(void *arg)
{
    int t = (int)(long)arg;
    for (int round = 0; round < ROUNDS; round++) {
        pthread_barrier_wait(&start);
        MPI_Comm c;
        MPI_Comm_dup(parents[t], &c);
        int out = t * 100000 + round * 10 + rank, in = -1;
        MPI_Request r[2];
        MPI_Status st;
        MPI_Irecv(&in, 1, MPI_INT, peer, MPI_ANY_TAG, c, &r[0]);
        MPI_Isend(&out, 1, MPI_INT, peer, t, c, &r[1]);
        if (!recv_within(&r[0], 5, &st) || in != t * 100000 + round * 10 + peer ||
            st.MPI_TAG != t) {
            if (thread_failures[t]++ < 3)
                fprintf(stderr, "rank %d thread %d round %d: got %d tag %d\n", rank, t, round, in,
                        st.MPI_TAG);
        }
        MPI_Wait(&r[1], MPI_STATUS_IGNORE);
        MPI_Barrier(c);
        MPI_Comm_free(&c);
    }
    return NULL;
}

static void rule_concurrent(void)
{
    for (int t = 0; t < THREADS; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &parents[t]);
    pthread_barrier_init(&start, NULL, THREADS);
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, concurrent_thread, (void *)(long)t);
    for (int t = 0; t < THREADS; t++) {
        pthread_join(th[t], NULL);
        CHECK(thread_failures[t] == 0);
    }
    pthread_barrier_destroy(&start);
    for (int t = 0; t < THREADS; t++)
        MPI_Comm_free(&parents[t]);
}

int main(int argc, char **argv)
{
    int size;
    if (!multiple_init(&argc, &argv, "p2p_comm_create", &rank, &size))
        return 0;
    peer = rank ^ 1;
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "p2p_comm_create: needs 2 processes\n");
        MPI_Finalize();
        return 2;
    }
    multiple_watchdog("p2p_comm_create", 90);
    int any = 0, bad = 0;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "early"))
            rule_early();
        else if (!strcmp(argv[a], "concurrent"))
            rule_concurrent();
        else
            bad = 1;
        any = 1;
    }
    if (!any) {
        rule_early();
        rule_concurrent();
    }
    int all = 0, mine = failures + bad;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("p2p_comm_create: %s\n", all ? "FAILED" : "OK");
    MPI_Finalize();
    return all ? 1 : 0;
}
