/*
 * Communicators created by several threads of every process at once, as
 * MPICH's threads/comm tests do (issue 26: with 3 and 4 processes wisp's
 * context agreement went round without end, each thread's offer holding
 * the contexts its sibling threads needed). THREADS threads per process,
 * each ROUNDS times:
 *  - create_group: MPI_Comm_create_group on the thread's own duplicate of
 *    MPI_COMM_WORLD (all ranks, tag = the thread);
 *  - create_group_world: MPI_Comm_create_group on MPI_COMM_WORLD itself
 *    (tag = the thread), of the lower half of the ranks, then of all;
 *  - dup: MPI_Comm_dup of the thread's own duplicate.
 * Every new communicator carries a message around its ring, tagged with the
 * thread: each must arrive on its own communicator, from the left.
 *
 * usage: p2p_comm_threads [create_group | create_group_world | dup]...
 *        (default: all three, one after the other)
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "check.h" /* tests/check.h */
#include "multiple.h"

enum { THREADS = 4, ROUNDS = 4 };

static int rank, size;
static MPI_Comm parents[THREADS];
static int thread_failures[THREADS];
static void (*rule)(int t, int round);

/* One message around `c`'s ring, the thread's and the round's. */
static void ring(MPI_Comm c, int t, int round)
{
    int me, n;
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &n);
    int out = (t * 1000 + round) * 1000 + me, in = -1;
    int left = (me + n - 1) % n, right = (me + 1) % n;
    MPI_Status st;
    MPI_Sendrecv(&out, 1, MPI_INT, right, t, &in, 1, MPI_INT, left, MPI_ANY_TAG, c, &st);
    if (in != (t * 1000 + round) * 1000 + left || st.MPI_SOURCE != left || st.MPI_TAG != t) {
        if (thread_failures[t]++ < 3)
            fprintf(stderr, "rank %d thread %d round %d: got %d from %d tag %d\n", rank, t, round,
                    in, st.MPI_SOURCE, st.MPI_TAG);
    }
}

static void create_group_on(MPI_Comm parent, MPI_Group group, int t, int round)
{
    MPI_Comm c;
    MPI_Comm_create_group(parent, group, t, &c);
    ring(c, t, round);
    MPI_Comm_free(&c);
}

static void rule_create_group(int t, int round)
{
    MPI_Group all;
    MPI_Comm_group(parents[t], &all);
    create_group_on(parents[t], all, t, round);
    MPI_Group_free(&all);
}

static void rule_create_group_world(int t, int round)
{
    MPI_Group all, half;
    MPI_Comm_group(MPI_COMM_WORLD, &all);
    int range[1][3] = {{0, size / 2, 1}};
    MPI_Group_range_incl(all, 1, range, &half);
    if (rank <= size / 2)
        create_group_on(MPI_COMM_WORLD, half, t, round);
    create_group_on(MPI_COMM_WORLD, all, t, round);
    MPI_Group_free(&half);
    MPI_Group_free(&all);
}

static void rule_dup(int t, int round)
{
    MPI_Comm c;
    MPI_Comm_dup(parents[t], &c);
    ring(c, t, round);
    MPI_Comm_free(&c);
}

static void *thread_main(void *arg)
{
    int t = (int)(long)arg;
    for (int round = 0; round < ROUNDS; round++)
        rule(t, round);
    return NULL;
}

static void run(void (*r)(int, int))
{
    rule = r;
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, thread_main, (void *)(long)t);
    for (int t = 0; t < THREADS; t++) {
        pthread_join(th[t], NULL);
        CHECK(thread_failures[t] == 0);
    }
}

int main(int argc, char **argv)
{
    if (!multiple_init(&argc, &argv, "p2p_comm_threads", &rank, &size))
        return 0;
    multiple_watchdog("p2p_comm_threads", 100);
    for (int t = 0; t < THREADS; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &parents[t]);
    int any = 0, bad = 0;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "create_group"))
            run(rule_create_group);
        else if (!strcmp(argv[a], "create_group_world"))
            run(rule_create_group_world);
        else if (!strcmp(argv[a], "dup"))
            run(rule_dup);
        else
            bad = 1;
        any = 1;
    }
    if (!any) {
        run(rule_create_group);
        run(rule_create_group_world);
        run(rule_dup);
    }
    for (int t = 0; t < THREADS; t++)
        MPI_Comm_free(&parents[t]);
    int all = 0, mine = failures + bad;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("p2p_comm_threads: %s\n", all ? "FAILED" : "OK");
    MPI_Finalize();
    return all ? 1 : 0;
}
