/*
 * Collectives and messages while busy threads load every core (a node
 * shared with other jobs): each process starts as many spinning threads as
 * the machine has cores, and the ranks run allreduces, barriers,
 * broadcasts and a ping-pong, every result checked; now and then one rank
 * comes late (a nap of a few milliseconds), so that the others' waits run
 * long and reach their slowest backoff. A wait that slept without a peer
 * to wake it would hang here (the watchdog says so), one that never gave
 * its core away would only be slow. Argument `served`: wisp must have run
 * the allreduces through the heap. Plain MPI: it passes natively too.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "mpi/watchdog.h"
#include "wisp.h"

enum { ROUNDS = 300, LATE_EVERY = 25, LATE_MS = 3, MAX_HOGS = 64 };

static atomic_bool stop;

static void *hog(void *arg)
{
    (void)arg;
    volatile unsigned long n = 0;
    while (!atomic_load_explicit(&stop, memory_order_relaxed))
        n++;
    return NULL;
}

int main(int argc, char **argv)
{
    bool served = argc > 1 && !strcmp(argv[1], "served");
    watchdog_start("coll_loaded", 100);
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int hogs = cores < 1 ? 1 : cores > MAX_HOGS ? MAX_HOGS : (int)cores;
    pthread_t threads[MAX_HOGS];
    for (int h = 0; h < hogs; h++)
        if (pthread_create(&threads[h], NULL, hog, NULL))
            hogs = h;
    unsigned long long before = wisp_coll_counter("served");
    int peer = me ^ 1;
    for (int r = 0; r < ROUNDS; r++) {
        if (r % LATE_EVERY == 0 && (r / LATE_EVERY) % np == me)
            sleep_ms(LATE_MS);
        long sum = -1, mine = (long)me * r + 1;
        MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        CHECK(sum == (long)r * np * (np - 1) / 2 + np);
        MPI_Barrier(MPI_COMM_WORLD);
        double d[8];
        int root = r % np;
        for (int i = 0; i < 8; i++)
            d[i] = me == root ? r * 8.0 + i : -1;
        MPI_Bcast(d, 8, MPI_DOUBLE, root, MPI_COMM_WORLD);
        for (int i = 0; i < 8; i++)
            CHECK(d[i] == r * 8.0 + i);
        if (peer < np) { /* a ping-pong: the engine's waits */
            int out = r * np + me, in = -1;
            MPI_Sendrecv(&out, 1, MPI_INT, peer, r, &in, 1, MPI_INT, peer, r, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
            CHECK(in == r * np + peer);
        }
    }
    atomic_store(&stop, true);
    for (int h = 0; h < hogs; h++)
        pthread_join(threads[h], NULL);
    unsigned long long by_wisp = wisp_coll_counter("served") - before;
    if (served && by_wisp < ROUNDS) {
        fprintf(stderr, "coll_loaded: rank %d: %llu calls through the heap, %d allreduces\n", me,
                by_wisp, ROUNDS);
        failures++;
    }
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0)
        printf("coll_loaded: %d processes, %d busy threads each, %d rounds: %s\n", np, hogs, ROUNDS,
               all ? "FAILED" : "ok");
    MPI_Finalize();
    return all ? 1 : 0;
}
