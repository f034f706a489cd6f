/*
 * WISP_PROGRESS=thread (two ranks): the progress thread exists (and does
 * not without the setting: argv[1] "off"); a message of 4 MiB that rank 1
 * sends with MPI_Send arrives while rank 0, after MPI_Irecv, only computes
 * (it watches the buffer's last element and never calls MPI); and while
 * nothing is outstanding the thread sleeps in the kernel: it switches out
 * at most a few times in 300 ms (its backstop timer wakes it once a
 * second), not once per look. The check of arrival has a deadline of 60 s,
 * a hang detector, not a timing.
 */
#include <dirent.h>
#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../check.h"

enum { COUNT = 1 << 20, TAG = 7 }; /* 4 MiB of int: a rendezvous in every MPI */

/* The thread id of this process's thread named `name`, or 0. */
static long thread_named(const char *name)
{
    DIR *d = opendir("/proc/self/task");
    long found = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        char path[300], comm[32] = "";
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (f && fgets(comm, sizeof comm, f) && strncmp(comm, name, strlen(name)) == 0)
            found = atol(e->d_name);
        if (f)
            fclose(f);
    }
    if (d)
        closedir(d);
    return found;
}

static long switches(long tid)
{
    char path[64], line[128];
    snprintf(path, sizeof path, "/proc/self/task/%ld/status", tid);
    FILE *f = fopen(path, "r");
    long n = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "voluntary_ctxt_switches: %ld", &n) == 1)
            break;
    if (f)
        fclose(f);
    return n;
}

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int main(int argc, char **argv)
{
    bool on = !(argc > 1 && strcmp(argv[1], "off") == 0);
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 2);
    long tid = thread_named("wisp-progress");
    CHECK(on ? tid != 0 : tid == 0);

    int *buf = malloc(COUNT * sizeof *buf);
    for (int i = 0; i < COUNT; i++)
        buf[i] = rank == 1 ? i : -1;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0 && on) {
        MPI_Request req;
        MPI_Irecv(buf, COUNT, MPI_INT, 1, TAG, MPI_COMM_WORLD, &req);
        /* Compute, never calling MPI, until the last element lands. */
        volatile int *last = &buf[COUNT - 1];
        long looked = switches(tid);
        double deadline = seconds() + 60;
        while (*last != COUNT - 1 && seconds() < deadline)
            ;
        if (*last != COUNT - 1) /* say whether the thread ran meanwhile */
            fprintf(stderr,
                    "rank 0: no message after 60 s; the progress thread switched %ld times\n",
                    switches(tid) - looked);
        CHECK(*last == COUNT - 1);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        bool same = true;
        for (int i = 0; i < COUNT; i++)
            same &= buf[i] == i;
        CHECK(same);
    } else if (rank == 0) {
        MPI_Recv(buf, COUNT, MPI_INT, 1, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(buf[COUNT - 1] == COUNT - 1);
    } else {
        MPI_Send(buf, COUNT, MPI_INT, 0, TAG, MPI_COMM_WORLD);
    }
    free(buf);

    /* Nothing outstanding (the linger is set short by the test): asleep. */
    MPI_Barrier(MPI_COMM_WORLD);
    if (on) {
        usleep(100000);
        long before = switches(tid);
        usleep(300000);
        long after = switches(tid);
        if (after - before > 3)
            fprintf(stderr, "rank %d: the idle progress thread switched %ld times in 300 ms\n",
                    rank, after - before);
        CHECK(before >= 0 && after - before <= 3);
    }
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("progress_thread: %s\n", all ? "FAILED" : "ok");
    MPI_Finalize();
    return all != 0;
}
