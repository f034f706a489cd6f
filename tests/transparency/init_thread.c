/*
 * init_thread: MPI_Init_thread and thread support.
 *
 * Usage: init_thread single|funneled|serialized|multiple
 *
 * Initialises MPI with MPI_Init_thread at the requested level and prints
 * the requested level and whether provided >= requested (the exact
 * provided level is not printed: libraries may return more than asked).
 * Checks that MPI_Query_thread returns the provided level and that
 * MPI_Is_thread_main is true on the main thread.  Then, depending on the
 * level actually provided:
 *   - serialized: a second thread makes MPI calls while the main thread
 *     waits for it (calls never overlap);
 *   - multiple: 4 threads, each with its own MPI_Comm_dup'ed communicator,
 *     concurrently run MPI_Sendrecv rounds around a ring and an
 *     MPI_Allreduce, and check MPI_Is_thread_main is false for them.
 * Designed for 1..3 processes.
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <pthread.h>

#include "check.h"

#define NTHREADS 4
#define ROUNDS   10

static const struct {
    const char *arg;
    int level;
    const char *name;
} levels[] = {
    {"single", MPI_THREAD_SINGLE, "MPI_THREAD_SINGLE"},
    {"funneled", MPI_THREAD_FUNNELED, "MPI_THREAD_FUNNELED"},
    {"serialized", MPI_THREAD_SERIALIZED, "MPI_THREAD_SERIALIZED"},
    {"multiple", MPI_THREAD_MULTIPLE, "MPI_THREAD_MULTIPLE"},
};

struct job {
    int id;
    MPI_Comm comm;
    int failures; /* counted per thread, added up by the main thread */
    int sum;      /* allreduce result */
    int not_main; /* MPI_Is_thread_main returned false */
};

/* Ring exchange on the thread's own communicator: each round sends
 * rank*1000 + id*100 + round to the right and expects the same from the
 * left. */
static void *ring_worker(void *arg)
{
    struct job *job = arg;
    int rank, size;
    MPI_Comm_rank(job->comm, &rank);
    MPI_Comm_size(job->comm, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int round = 0; round < ROUNDS; round++) {
        int out = rank * 1000 + job->id * 100 + round, in = -1;
        MPI_Status st;
        MPI_Sendrecv(&out, 1, MPI_INT, right, round, &in, 1, MPI_INT, left, round, job->comm, &st);
        if (in != left * 1000 + job->id * 100 + round || st.MPI_TAG != round)
            job->failures++;
    }
    int v = job->id + rank;
    MPI_Allreduce(&v, &job->sum, 1, MPI_INT, MPI_SUM, job->comm);
    int is_main = 1;
    MPI_Is_thread_main(&is_main);
    job->not_main = !is_main;
    return NULL;
}

/* Runs ring_worker on n threads, each with its own communicator; with
 * concurrent == 0 the threads run one after the other (serialized). */
static void run_threads(int n, int concurrent)
{
    struct job jobs[NTHREADS];
    pthread_t tids[NTHREADS];
    for (int t = 0; t < n; t++) {
        jobs[t] = (struct job){t, MPI_COMM_NULL, 0, -1, 0};
        MPI_Comm_dup(MPI_COMM_WORLD, &jobs[t].comm);
    }
    for (int t = 0; t < n; t++) {
        REQUIRE(pthread_create(&tids[t], NULL, ring_worker, &jobs[t]) == 0, "pthread_create");
        if (!concurrent)
            pthread_join(tids[t], NULL);
    }
    if (concurrent)
        for (int t = 0; t < n; t++)
            pthread_join(tids[t], NULL);
    for (int t = 0; t < n; t++) {
        int expect = tr_size * t + tr_size * (tr_size - 1) / 2;
        CHECK(jobs[t].failures == 0, "thread %d: %d bad rounds", t, jobs[t].failures);
        CHECK(jobs[t].sum == expect, "thread %d: allreduce %d", t, jobs[t].sum);
        CHECK(jobs[t].not_main, "thread %d: is_thread_main must be false", t);
        tr_print("thread %d: %d sendrecv rounds ok=%d allreduce=%d is_thread_main=%d\n", t, ROUNDS,
                 jobs[t].failures == 0, jobs[t].sum, !jobs[t].not_main);
        MPI_Comm_free(&jobs[t].comm);
    }
}

int main(int argc, char **argv)
{
    int which = -1;
    for (int i = 0; argc > 1 && i < 4; i++)
        if (strcmp(argv[1], levels[i].arg) == 0)
            which = i;
    if (which < 0) {
        fprintf(stderr, "usage: init_thread single|funneled|serialized|multiple\n");
        return 2;
    }
    int required = levels[which].level, provided = -1;
    MPI_Init_thread(&argc, &argv, required, &provided);
    tr_begin("init_thread", 1, 0);

    int enough = provided >= required;
    CHECK(enough, "provided level below requested");
    tr_print("requested %s: provided >= requested: %d\n", levels[which].name, enough);

    int queried = -1, is_main = 0;
    MPI_Query_thread(&queried);
    MPI_Is_thread_main(&is_main);
    CHECK_INT(queried, provided);
    CHECK(is_main, "is_thread_main on the main thread");
    tr_print("query_thread == provided: %d, is_thread_main: %d\n", queried == provided, is_main);

    if (required == MPI_THREAD_SERIALIZED && enough)
        run_threads(2, 0);
    else if (required == MPI_THREAD_MULTIPLE && enough)
        run_threads(NTHREADS, 1);

    int initialized = 0;
    MPI_Initialized(&initialized);
    CHECK(initialized, "initialized");
    return tr_finish();
}
