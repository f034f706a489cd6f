/*
 * Ghost-served windows under MPI_THREAD_MULTIPLE.
 *
 * - "create": two threads per process create, use (fence, a put to the
 *   right neighbour) and free windows at the same time, each over its own
 *   duplicate of MPI_COMM_WORLD; every window must work, served or not.
 * - "flush": on a shared window in a lock_all epoch, one thread of each
 *   process accumulates into its own counter in rank 1's memory, flushes,
 *   and loads the counter from there; another thread flushes the same
 *   target and all targets all the while. A flush must complete every
 *   operation that returned before it was called, whichever ghost carried
 *   it (with segment binding, not only the target's bound ghost).
 */
#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "check.h" /* tests/check.h */
#include "multiple.h"

/* Windows of whole pages: MPICH 4.0.2 (ch4/ucx) targets the start of the page
 * that holds a smaller MPI_Win_allocate window (fixed by pmodels/mpich PR 6140). */
enum { PAGE = 4096, THREADS = 2, ROUNDS = 3, PUTS = 200 };

static int rank, size;
static MPI_Comm comms[THREADS];
static _Atomic int check_failures, done;

static void *create_and_use(void *arg)
{
    int t = (int)(long)arg, right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int round = 0; round < ROUNDS; round++) {
        int *mem;
        MPI_Win win;
        MPI_Win_allocate(PAGE, sizeof(int), MPI_INFO_NULL, comms[t], &mem, &win);
        int value = 1000 * t + 10 * rank + round;
        MPI_Win_fence(0, win);
        MPI_Put(&value, 1, MPI_INT, right, 0, 1, MPI_INT, win);
        MPI_Win_fence(0, win);
        if (mem[0] != 1000 * t + 10 * left + round) {
            fprintf(stderr, "rank %d thread %d round %d: %d\n", rank, t, round, mem[0]);
            check_failures++;
        }
        MPI_Win_fence(0, win);
        MPI_Win_free(&win);
    }
    return NULL;
}

struct shared {
    MPI_Win win;
    volatile int *target_mem; /* rank 1's memory, mapped here */
};

/* Rank 1 is every process's target: with 3 processes, 2 ghosts and segment
 * binding its first bytes belong to ghost 0 while it is bound to ghost 1, so
 * its flush must remember that ghost 0 got operations. */
enum { TARGET = 1 };

static void *accumulate_flush_load(void *arg)
{
    struct shared *s = arg;
    int one = 1;
    for (int i = 1; i <= PUTS; i++) {
        MPI_Accumulate(&one, 1, MPI_INT, TARGET, rank, 1, MPI_INT, MPI_SUM, s->win);
        MPI_Win_flush(TARGET, s->win);
        MPI_Win_sync(s->win);
        if (s->target_mem[rank] != i) {
            fprintf(stderr, "rank %d: accumulate %d not complete after its flush (%d)\n", rank, i,
                    s->target_mem[rank]);
            check_failures++;
            break;
        }
    }
    done = 1;
    return NULL;
}

static void *flush_meanwhile(void *arg)
{
    struct shared *s = arg;
    for (int i = 0; !done; i++)
        if (i % 2)
            MPI_Win_flush(TARGET, s->win);
        else
            MPI_Win_flush_all(s->win);
    return NULL;
}

static void flush_race(void)
{
    struct shared s;
    int *mem;
    MPI_Win_allocate_shared(PAGE, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &s.win);
    MPI_Aint bytes;
    int unit;
    int *target_mem;
    MPI_Win_shared_query(s.win, TARGET, &bytes, &unit, &target_mem);
    s.target_mem = target_mem;
    MPI_Win_lock_all(MPI_MODE_NOCHECK, s.win);
    memset(mem, 0, PAGE);
    MPI_Win_sync(s.win);
    MPI_Barrier(MPI_COMM_WORLD);
    pthread_t work, flush;
    pthread_create(&work, NULL, accumulate_flush_load, &s);
    pthread_create(&flush, NULL, flush_meanwhile, &s);
    pthread_join(work, NULL);
    pthread_join(flush, NULL);
    MPI_Win_unlock_all(s.win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&s.win);
}

int main(int argc, char **argv)
{
    if (!multiple_init(&argc, &argv, "ghost_threads", &rank, &size))
        return 0;
    if (argc > 1 && strcmp(argv[1], "flush") == 0) {
        flush_race();
    } else {
        pthread_t threads[THREADS];
        for (int t = 0; t < THREADS; t++)
            MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
        for (int t = 0; t < THREADS; t++)
            pthread_create(&threads[t], NULL, create_and_use, (void *)(long)t);
        for (int t = 0; t < THREADS; t++)
            pthread_join(threads[t], NULL);
        for (int t = 0; t < THREADS; t++)
            MPI_Comm_free(&comms[t]);
    }
    failures += check_failures;
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(all ? "ghost_threads: %d failures\n" : "ghost_threads: ok\n", all);
    MPI_Finalize();
    return all != 0;
}
