/*
 * Collectives on different communicators at once from threads
 * (MPI_THREAD_MULTIPLE): each of THREADS threads has its own duplicate of
 * MPI_COMM_WORLD, and on it makes and frees communicators of its own
 * (set up and let go of while the others run) and calls MPI_Barrier,
 * MPI_Bcast, MPI_Reduce and MPI_Allreduce, small and staged, checking every
 * result. Argument `served`: wisp ran them through the heap.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mpi/multiple.h"
#include "wisp.h"

enum { THREADS = 3, COMMS = 6, CALLS = 12, LARGE = 20000 };

static int me, np;
static MPI_Comm mine[THREADS];
static _Atomic int errors;

static void *run(void *arg)
{
    int t = (int)(long)arg, bad = 0;
    long *in = malloc(LARGE * sizeof(long)), *out = malloc(LARGE * sizeof(long));
    for (int k = 0; k < COMMS; k++) {
        MPI_Comm c;
        MPI_Comm_dup(mine[t], &c);
        for (int call = 0; call < CALLS; call++) {
            int count = call % 2 ? LARGE : 3, root = (call + t) % np;
            MPI_Barrier(c);
            for (int i = 0; i < count; i++)
                in[i] = me == root ? (long)(i + t * 1000 + call) : -1;
            MPI_Bcast(in, count, MPI_LONG, root, c);
            for (int i = 0; i < count; i++)
                bad += in[i] != (long)(i + t * 1000 + call);
            for (int i = 0; i < count; i++)
                in[i] = (long)(me + i + t);
            MPI_Allreduce(in, out, count, MPI_LONG, MPI_SUM, c);
            for (int i = 0; i < count; i++)
                bad += out[i] != (long)np * (i + t) + (long)np * (np - 1) / 2;
            MPI_Reduce(in, out, count, MPI_LONG, MPI_MAX, root, c);
            for (int i = 0; i < count && me == root; i++)
                bad += out[i] != (long)(np - 1 + i + t);
        }
        MPI_Comm_free(&c);
    }
    free(in);
    free(out);
    errors += bad;
    return NULL;
}

int main(int argc, char **argv)
{
    if (!multiple_init(&argc, &argv, "coll_threads", &me, &np))
        return 0;
    multiple_watchdog("coll_threads", 200);
    for (int t = 0; t < THREADS; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &mine[t]);
    pthread_t threads[THREADS];
    for (int t = 0; t < THREADS; t++)
        pthread_create(&threads[t], NULL, run, (void *)(long)t);
    for (int t = 0; t < THREADS; t++)
        pthread_join(threads[t], NULL);
    CHECK(errors == 0);
    if (argc > 1 && !strcmp(argv[1], "served"))
        CHECK(wisp_coll_counter("served") > 0);
    for (int t = 0; t < THREADS; t++)
        MPI_Comm_free(&mine[t]);
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0)
        printf("coll_threads: %d threads, %llu calls through the heap (rank 0): %s\n", THREADS,
               wisp_coll_counter("served"), all ? "FAILED" : "ok");
    MPI_Finalize();
    return all ? 1 : 0;
}
