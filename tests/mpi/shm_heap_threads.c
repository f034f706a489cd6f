/*
 * The shared heap's malloc family under threads and fork: after
 * MPI_Init_thread(MPI_THREAD_MULTIPLE), 4 threads allocate, fill and free
 * blocks at once, hand blocks to each other to free, and exit (their jemalloc
 * caches are destroyed); then a forked child allocates and frees (from
 * private memory: its parent's partition is not its to use) while the parent
 * goes on. Every block must keep its contents until freed; with argv[1] =
 * "on" the threads' blocks must come from the heap.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wisp.h"

enum { THREADS = 4, ROUNDS = 20000, SLOTS = 64 };

static char *handoff[THREADS][SLOTS]; /* blocks thread t leaves for thread t+1 to free */
static pthread_barrier_t barrier;
static int failures[THREADS];
static int want_heap;

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    char *mine[SLOTS] = {0};
    uint64_t r = 0x2545f4914f6cdd1dull * (uint64_t)(t + 1);
    for (int i = 0; i < ROUNDS; i++) {
        r ^= r << 13, r ^= r >> 7, r ^= r << 17;
        int s = (int)(r % SLOTS);
        size_t size = 8 + (size_t)(r >> 40) % 5000;
        if (mine[s] && mine[s][0] != (char)(t + s)) /* contents kept */
            failures[t]++;
        free(mine[s]);
        mine[s] = malloc(size);
        memset(mine[s], t + s, size);
        failures[t] += want_heap && !wisp_heap_contains(mine[s]);
    }
    for (int s = 0; s < SLOTS; s++)
        handoff[t][s] = mine[s];
    pthread_barrier_wait(&barrier);
    int from = (t + THREADS - 1) % THREADS; /* free what the previous thread allocated */
    for (int s = 0; s < SLOTS; s++) {
        if (handoff[from][s][0] != (char)(from + s))
            failures[t]++;
        free(handoff[from][s]);
    }
    return NULL;
}

static int run_threads(void)
{
    pthread_t tid[THREADS];
    pthread_barrier_init(&barrier, NULL, THREADS);
    for (int t = 0; t < THREADS; t++)
        pthread_create(&tid[t], NULL, worker, (void *)(intptr_t)t);
    int total = 0;
    for (int t = 0; t < THREADS; t++) {
        pthread_join(tid[t], NULL);
        total += failures[t];
    }
    pthread_barrier_destroy(&barrier);
    return total;
}

static int run_fork(void)
{
    char *before = malloc(100);
    strcpy(before, "parent");
    pid_t child = fork();
    if (child == 0) {
        int bad = 0;
        for (int i = 0; i < 1000; i++) {
            char *p = malloc(64 + (size_t)i);
            bad += wisp_heap_contains(p); /* the child must not use the parent's partition */
            free(p);
        }
        free(before); /* a heap block of the parent: left alone */
        _exit(bad != 0);
    }
    int status = 0, bad = 0;
    waitpid(child, &status, 0);
    bad += !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    bad += strcmp(before, "parent") != 0;
    free(before);
    return bad;
}

int main(int argc, char **argv)
{
    int provided, rank;
    want_heap = argc > 1 && !strcmp(argv[1], "on");
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int bad = run_threads() + run_fork();
    int all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    if (rank == 0)
        printf("shm_heap_threads: %s (%d problems)\n", all ? "FAILED" : "ok", all);
    return all != 0;
}
