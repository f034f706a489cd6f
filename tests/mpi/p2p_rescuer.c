/*
 * wisp's rescuer thread ("wisp-rescuer", one per process when the node has
 * more than one):
 *  - signals: it blocks all of them, so a signal sent to the process is
 *    never handled on it (SIGUSR1, with the main thread blocking it for a
 *    while, would otherwise go to the rescuer);
 *  - idle: with nothing in flight it sleeps without a timer (it woke every
 *    millisecond before): a few wakeups at most in 300 ms;
 *  - rescue: rank 0 sends a large private message (staged chunk by chunk)
 *    and then computes outside MPI for a second; rank 1's receive completes
 *    long before that, staged by rank 0's rescuer, which rank 1 called.
 * 2 processes on one node.
 */
#include <dirent.h>
#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "check.h" /* tests/check.h */

enum { LARGE_INTS = 1 << 18 }; /* 1 MiB */
static int large[LARGE_INTS];  /* private memory: the staged protocol */

/* Written by the handler on another thread (lock-free: signal-safe). */
static _Atomic long handled_on = -1;

static void on_usr1(int sig)
{
    (void)sig;
    handled_on = syscall(SYS_gettid);
}

static void sleep_ms(int ms)
{
    nanosleep(&(struct timespec){ms / 1000, (ms % 1000) * 1000000L}, NULL);
}

/* The rescuer's thread id, or -1. */
static int rescuer_tid(void)
{
    DIR *d = opendir("/proc/self/task");
    int found = -1;
    for (struct dirent *e; d && (e = readdir(d));) {
        char path[300], name[32] = "";
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (f && fgets(name, sizeof name, f) && !strncmp(name, "wisp-rescuer", 12))
            found = atoi(e->d_name);
        if (f)
            fclose(f);
    }
    if (d)
        closedir(d);
    return found;
}

static long voluntary_switches(int tid)
{
    char path[64], line[128];
    long n = -1;
    snprintf(path, sizeof path, "/proc/self/task/%d/status", tid);
    FILE *f = fopen(path, "r");
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "voluntary_ctxt_switches:", 24))
            n = atol(line + 24);
    if (f)
        fclose(f);
    return n;
}

static void signals(int tid)
{
    signal(SIGUSR1, on_usr1);
    sigset_t usr1;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &usr1, NULL);
    kill(getpid(), SIGUSR1); /* to the process: any thread that does not block it */
    sleep_ms(100);
    pthread_sigmask(SIG_UNBLOCK, &usr1, NULL);
    sleep_ms(10);
    CHECK(handled_on != -1 && handled_on != tid);
}

static void idle(int tid)
{
    long before = voluntary_switches(tid);
    sleep_ms(300);
    long woke = voluntary_switches(tid) - before;
    if (woke > 10)
        fprintf(stderr, "p2p_rescuer: the rescuer woke %ld times in 300 ms of idleness\n", woke);
    CHECK(before >= 0 && woke <= 10);
}

static void rescue(int rank)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        for (int k = 0; k < LARGE_INTS; k++)
            large[k] = k * 3;
        MPI_Request req;
        MPI_Isend(large, LARGE_INTS, MPI_INT, 1, 1, MPI_COMM_WORLD, &req);
        sleep_ms(1000); /* computing: only the rescuer moves the chunks */
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        double start = MPI_Wtime();
        MPI_Recv(large, LARGE_INTS, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        double took = MPI_Wtime() - start;
        int bad = 0;
        for (int k = 0; k < LARGE_INTS; k++)
            bad += large[k] != k * 3;
        CHECK(!bad);
        if (took >= 0.8)
            fprintf(stderr, "p2p_rescuer: the receive took %.3f s\n", took);
        CHECK(took < 0.8);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int tid = rescuer_tid();
    CHECK(size == 2 && tid > 0);
    if (tid > 0) {
        signals(tid);
        MPI_Barrier(MPI_COMM_WORLD);
        idle(tid);
        rescue(rank);
    }
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("p2p_rescuer: %s\n", all ? "FAILED" : "OK");
    MPI_Finalize();
    return all != 0;
}
