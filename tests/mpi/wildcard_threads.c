/*
 * Wildcard receives across nodes under MPI_THREAD_MULTIPLE, while another
 * thread of the process sits in a blocking collective. Rank 0's first thread
 * posts an MPI_ANY_SOURCE receive and enters MPI_Barrier on a communicator of
 * its own, which the MPI serves alone (wisp lends the pending wildcard to
 * the MPI for it); then its second thread, for a second wildcard receive of
 * the same tag, probes until a message is there for it and receives it.
 * One rank sends two messages of that tag and only later joins the
 * barrier: the last rank (on another node), then rank 1 (on rank 0's node
 * under WISP_VNODE_SIZE=2). MPI's order: the receive posted first gets the
 * first message, the second the second. Before, from the other node, the
 * second thread's matched probe found the second message and handed it to
 * the first receive, which the MPI was filling at the same time: one
 * message lost, the second receive never completed; from the same node,
 * the probe saw and the second receive took the first message, which
 * waited for the lent receive. Run with 3 processes and WISP_VNODE_SIZE=2
 * (ranks 0 and 1 share a node, so the communicator is served) and with 2
 * and WISP_VNODE_SIZE=1. Then the lent receive waited for or cancelled by
 * its own thread (lent_for_another, cancel_gives_way), a synchronous
 * send for it (ssend_to_lent), and a local receive lent after it
 * (local_after_wildcard).
 */
#include <mpi.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "../check.h"
#include "multiple.h"

enum { ROUNDS = 20, LATE_MS = 50, BIG = 1 << 18 };

static MPI_Comm barrier_comm, other_barrier, msgs;
static int tag, first, second;
static MPI_Request first_req;

static void sleep_ms(int ms)
{
    nanosleep(&(struct timespec){ms / 1000, (ms % 1000) * 1000000L}, NULL);
}

static void *second_thread(void *unused)
{
    (void)unused;
    sleep_ms(10); /* the first thread is in the barrier: its receive lent */
    MPI_Status st;
    int flag = 0; /* a probe sees only the message the first receive leaves */
    while (!flag)
        MPI_Iprobe(MPI_ANY_SOURCE, tag, msgs, &flag, &st);
    CHECK(MPI_Recv(&second, 1, MPI_INT, MPI_ANY_SOURCE, tag, msgs, &st) == MPI_SUCCESS);
    return NULL;
}

static void *barrier_thread(void *comm)
{
    sleep_ms(5); /* after the first thread's barrier began, if it has one */
    MPI_Barrier(*(MPI_Comm *)comm);
    return NULL;
}

/* The wildcard lent for a second thread's barrier: waited for meanwhile by
 * the first thread (before: completed behind the engine's back, then freed
 * while still queued), or cancelled by it (nothing is sent); and with the first thread in a barrier
 * of its own, which returns first, the second thread's barrier still has it lent (before: taken
 * back, and a sender blocked on it until that barrier ended never got there). The last rank sends,
 * a large message the second time. */
static void lent_for_another(int rank, int size, int *big)
{
    int last = size - 1, value = -1;
    for (int round = 0; round < ROUNDS; round++) {
        if (rank == 0) {
            pthread_t t;
            MPI_Irecv(&value, 1, MPI_INT, MPI_ANY_SOURCE, 9, msgs, &first_req);
            pthread_create(&t, NULL, barrier_thread, &barrier_comm);
            sleep_ms(10);
            CHECK(MPI_Wait(&first_req, MPI_STATUS_IGNORE) == MPI_SUCCESS && value == round);
            pthread_join(t, NULL);
            MPI_Status st;
            int cancelled = 0;
            MPI_Irecv(&value, 1, MPI_INT, MPI_ANY_SOURCE, 11, msgs, &first_req);
            pthread_create(&t, NULL, barrier_thread, &barrier_comm);
            sleep_ms(10);
            MPI_Cancel(&first_req);
            CHECK(MPI_Wait(&first_req, &st) == MPI_SUCCESS);
            CHECK(MPI_Test_cancelled(&st, &cancelled) == MPI_SUCCESS && cancelled);
            pthread_join(t, NULL);
            big[BIG - 1] = -1;
            MPI_Irecv(big, BIG, MPI_INT, MPI_ANY_SOURCE, 10, msgs, &first_req);
            pthread_create(&t, NULL, barrier_thread, &other_barrier);
            MPI_Barrier(barrier_comm);
            pthread_join(t, NULL);
            CHECK(MPI_Wait(&first_req, MPI_STATUS_IGNORE) == MPI_SUCCESS && big[BIG - 1] == round);
        } else if (rank == last) {
            sleep_ms(20);
            MPI_Send(&round, 1, MPI_INT, 0, 9, msgs);
            sleep_ms(LATE_MS);
            MPI_Barrier(barrier_comm);
            sleep_ms(LATE_MS);
            MPI_Barrier(barrier_comm);
            MPI_Barrier(barrier_comm);
            big[BIG - 1] = round;
            MPI_Send(big, BIG, MPI_INT, 0, 10, msgs);
            MPI_Barrier(other_barrier);
        } else {
            MPI_Barrier(barrier_comm);
            MPI_Barrier(barrier_comm);
            MPI_Barrier(barrier_comm);
            MPI_Barrier(other_barrier);
        }
    }
}

/* A lent wildcard cancelled by the thread that posted it, while a local
 * message waits for it (wisp had matched it there; the MPI had the receive):
 * the message goes at once to the next receive, posted meanwhile, which the
 * posting thread then waits for before it lets the last rank into the
 * barrier (before: only when the barrier returned, a hang). Natively, or
 * under WISP_VNODE_SIZE=1, the first receive takes it and the cancel fails. */
static void cancel_gives_way(int rank, int size)
{
    int last = size - 1, go = 1;
    for (int round = 0; round < ROUNDS; round++) {
        if (rank == 0) {
            pthread_t t;
            int v1 = -1, v2 = -1, cancelled = 0;
            MPI_Request w1, w2;
            MPI_Status st;
            MPI_Irecv(&v1, 1, MPI_INT, MPI_ANY_SOURCE, 12, msgs, &w1);
            pthread_create(&t, NULL, barrier_thread, &barrier_comm);
            sleep_ms(40); /* rank 1's message came meanwhile */
            int flag = 1; /* it is the first receive's: no probe sees it */
            CHECK(MPI_Iprobe(MPI_ANY_SOURCE, 12, msgs, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS &&
                  !flag);
            MPI_Irecv(&v2, 1, MPI_INT, MPI_ANY_SOURCE, 12, msgs, &w2);
            MPI_Cancel(&w1);
            CHECK(MPI_Wait(&w1, &st) == MPI_SUCCESS);
            CHECK(MPI_Test_cancelled(&st, &cancelled) == MPI_SUCCESS);
            if (cancelled) {
                CHECK(MPI_Wait(&w2, MPI_STATUS_IGNORE) == MPI_SUCCESS && v2 == round);
            } else {
                CHECK(v1 == round);
                MPI_Cancel(&w2);
                CHECK(MPI_Wait(&w2, &st) == MPI_SUCCESS);
                CHECK(MPI_Test_cancelled(&st, &cancelled) == MPI_SUCCESS && cancelled);
            }
            MPI_Send(&go, 1, MPI_INT, last, 13, msgs);
            pthread_join(t, NULL);
        } else {
            if (rank == 1) {
                sleep_ms(20);
                MPI_Send(&round, 1, MPI_INT, 0, 12, msgs);
            }
            if (rank == last)
                MPI_Recv(&go, 1, MPI_INT, 0, 13, msgs, MPI_STATUS_IGNORE);
            MPI_Barrier(barrier_comm);
        }
    }
}

/* A synchronous send from rank 0's node for a wildcard lent for another
 * thread's barrier, which its sender must finish before it joins that
 * barrier: it goes through the MPI under MPI_THREAD_MULTIPLE too (before:
 * it waited there until the barrier ended, a hang). Then with a message of
 * the same tag from the other node (3 processes): whichever the lent
 * receive takes, the receive posted meanwhile gets the other, also when
 * its matched probe finds the forwarded one in the MPI. */
static void ssend_to_lent(int rank, int size)
{
    for (int round = 0; round < 2 * ROUNDS; round++) {
        int n = round % 2 && size > 2 ? 2 : 1;
        if (rank == 0) {
            pthread_t t;
            int v[2] = {-1, -1};
            MPI_Request w[2];
            MPI_Status st[2];
            MPI_Irecv(&v[0], 1, MPI_INT, MPI_ANY_SOURCE, 14, msgs, &w[0]);
            pthread_create(&t, NULL, barrier_thread, &barrier_comm);
            sleep_ms(10);
            if (n == 2)
                MPI_Irecv(&v[1], 1, MPI_INT, MPI_ANY_SOURCE, 14, msgs, &w[1]);
            for (int k = n - 1; k >= 0; k--) /* the later receive first: it probes */
                CHECK(MPI_Wait(&w[k], &st[k]) == MPI_SUCCESS);
            for (int k = 0; k < n; k++)
                CHECK(v[k] == 100 * st[k].MPI_SOURCE + round);
            CHECK(n == 1 || st[0].MPI_SOURCE != st[1].MPI_SOURCE);
            pthread_join(t, NULL);
        } else {
            int v = 100 * rank + round;
            sleep_ms(rank == 1 ? 20 : 15); /* the remote one first, mostly */
            if (rank == 1)
                CHECK(MPI_Ssend(&v, 1, MPI_INT, 0, 14, msgs) == MPI_SUCCESS);
            else if (n == 2 && rank == size - 1)
                MPI_Send(&v, 1, MPI_INT, 0, 14, msgs);
            MPI_Barrier(barrier_comm);
        }
    }
}

/* A receive for rank 1 posted after a wildcard, both lent for another
 * thread's barrier; the wildcard completes first, by the other node's
 * message, and rank 1's message, sent only then, waits in wisp for the
 * lent receive until the barrier returns (before: lent receives were
 * taken back with their communicator's wildcards, and once those were
 * done, never: a hang). With 3 processes or more. */
static void local_after_wildcard(int rank, int size)
{
    int last = size - 1;
    for (int round = 0; size > 2 && round < ROUNDS; round++) {
        if (rank == 0) {
            pthread_t t;
            int a = -1, b = -1;
            MPI_Request w[2];
            MPI_Status st;
            MPI_Irecv(&a, 1, MPI_INT, MPI_ANY_SOURCE, 16, msgs, &w[0]);
            MPI_Irecv(&b, 1, MPI_INT, 1, 16, msgs, &w[1]);
            pthread_create(&t, NULL, barrier_thread, &barrier_comm);
            CHECK(MPI_Wait(&w[0], &st) == MPI_SUCCESS && st.MPI_SOURCE == last && a == round);
            MPI_Send(&round, 1, MPI_INT, 1, 17, msgs); /* rank 1 may send now */
            CHECK(MPI_Wait(&w[1], MPI_STATUS_IGNORE) == MPI_SUCCESS && b == 1000 + round);
            pthread_join(t, NULL);
        } else if (rank == 1) {
            int go = -1, v = 1000 + round;
            MPI_Recv(&go, 1, MPI_INT, 0, 17, msgs, MPI_STATUS_IGNORE);
            MPI_Send(&v, 1, MPI_INT, 0, 16, msgs);
            MPI_Barrier(barrier_comm);
        } else {
            if (rank == last) {
                sleep_ms(20); /* rank 0's receives are lent by now */
                MPI_Send(&round, 1, MPI_INT, 0, 16, msgs);
            }
            MPI_Barrier(barrier_comm);
        }
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    if (!multiple_init(&argc, &argv, "wildcard_threads", &rank, &size))
        return 0;
    multiple_watchdog("wildcard_threads", 60);
    MPI_Comm_dup(MPI_COMM_WORLD, &barrier_comm);
    MPI_Comm_dup(MPI_COMM_WORLD, &msgs);
    MPI_Comm_dup(MPI_COMM_WORLD, &other_barrier);
    for (int round = 0; round < 2 * ROUNDS; round++) {
        int sender = round < ROUNDS ? size - 1 : 1;
        tag = round < ROUNDS ? 7 : 8;
        if (rank == 0) {
            first = second = -1;
            MPI_Irecv(&first, 1, MPI_INT, MPI_ANY_SOURCE, tag, msgs, &first_req);
            pthread_t t;
            pthread_create(&t, NULL, second_thread, NULL);
            MPI_Barrier(barrier_comm);
            MPI_Status st;
            CHECK(MPI_Wait(&first_req, &st) == MPI_SUCCESS);
            pthread_join(t, NULL);
            CHECK(first == 2 * round && second == 2 * round + 1);
        } else if (rank == sender) {
            int a = 2 * round, b = 2 * round + 1;
            if (tag == 8)
                sleep_ms(3); /* rank 0's first thread is in the barrier */
            MPI_Send(&a, 1, MPI_INT, 0, tag, msgs);
            MPI_Send(&b, 1, MPI_INT, 0, tag, msgs);
            sleep_ms(LATE_MS); /* the second thread polls meanwhile */
            MPI_Barrier(barrier_comm);
        } else {
            MPI_Barrier(barrier_comm);
        }
    }
    int *big = calloc(BIG, sizeof *big);
    lent_for_another(rank, size, big);
    free(big);
    cancel_gives_way(rank, size);
    ssend_to_lent(rank, size);
    local_after_wildcard(rank, size);
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("wildcard_threads: %d rounds, %s\n", (size > 2 ? 7 : 6) * ROUNDS,
               all ? "FAILED" : "OK");
    MPI_Comm_free(&other_barrier);
    MPI_Comm_free(&msgs);
    MPI_Comm_free(&barrier_comm);
    multiple_watchdog("wildcard_threads", 0);
    MPI_Finalize();
    return all ? 1 : 0;
}
