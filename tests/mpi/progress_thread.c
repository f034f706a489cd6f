/*
 * WISP_PROGRESS=thread (two ranks): the progress thread exists (and does
 * not without the setting: argv[1] "off"); a message of 4 MiB that rank 1
 * sends with MPI_Send arrives while rank 0, after MPI_Irecv, only computes
 * (it watches the buffer's last element and never calls MPI); and while
 * nothing is outstanding the thread sleeps in the kernel: it switches out
 * at most a few times in 300 ms (its backstop timer wakes it once a
 * second), not once per look. The check of arrival has a deadline of 60 s,
 * a hang detector, not a timing.
 *
 * argv[1] "auto" (WISP_PROGRESS=auto, WISP_ASYNC_INTERVAL=50, a core of
 * its own, WISP_PROGRESS_INTERVAL=1000): first a phase that is with MPI all
 * the time, a ping-pong of nonblocking calls that keeps something
 * outstanding: after its first 200 ms the thread sleeps through it, waking
 * once per profile interval, where WISP_PROGRESS=thread would look every
 * millisecond (about 500 switches). Allowed: one switch per 50 ms, a few
 * more, and one stretch misread as computing (a process descheduled
 * between two calls looks as if it computed: 50 looks). Then the message
 * above, which arrives only if the thread, finding the process computing,
 * looks again.
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

enum { PHASE_MS = 700, SETTLE_MS = 200, INTERVAL_MS = 50, LOOK_MS = 1 };

/* A ping-pong of MPI_Irecv, MPI_Isend and MPI_Waitall for PHASE_MS (rank
 * 0's clock, which it passes on); the switches of this process's thread
 * `tid` after the first SETTLE_MS, and the milliseconds they were
 * counted over. */
static long busy_phase(int rank, long tid, double *ms)
{
    double start = seconds(), settled = 0;
    long before = 0;
    for (int go = 1; go;) {
        double now = seconds();
        if (!settled && now - start > SETTLE_MS / 1e3) {
            settled = now;
            before = switches(tid);
        }
        int out = rank == 0 ? now - start < PHASE_MS / 1e3 : go, in = 0;
        MPI_Request reqs[2];
        MPI_Status statuses[2];
        MPI_Irecv(&in, 1, MPI_INT, 1 - rank, TAG, MPI_COMM_WORLD, &reqs[0]);
        MPI_Isend(&out, 1, MPI_INT, 1 - rank, TAG, MPI_COMM_WORLD, &reqs[1]);
        MPI_Waitall(2, reqs, statuses);
        go = rank == 0 ? out : in;
    }
    *ms = settled ? (seconds() - settled) * 1e3 : 0;
    return settled ? switches(tid) - before : 0;
}

int main(int argc, char **argv)
{
    bool on = !(argc > 1 && strcmp(argv[1], "off") == 0);
    bool adaptive = argc > 1 && strcmp(argv[1], "auto") == 0;
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 2);
    long tid = thread_named("wisp-progress");
    CHECK(on ? tid != 0 : tid == 0);

    if (adaptive) {
        double ms;
        long n = busy_phase(rank, tid, &ms);
        long most = (long)(ms / INTERVAL_MS) + 4 + INTERVAL_MS / LOOK_MS;
        if (n > most || getenv("SHOW"))
            fprintf(stderr, "rank %d: the progress thread switched %ld times in %.0f ms with MPI\n",
                    rank, n, ms);
        CHECK(ms > 0 && n <= most);
    }

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
