/*
 * ult_msgrate.c - message rate of MPI_Send to MPI_PROC_NULL from many
 * threads of one process (seed 003, Fig. 3): the cost of entering an MPI
 * call for each way of threading, without any communication.
 *
 *   threads  MPI_THREAD_MULTIPLE; 1, 2, 4, 8, 16 pthreads send at once
 *            (natively and under wisp alike).
 *   ults     MPI_Init_thread(WISP_THREAD_ULT); first the calling thread
 *            alone (`plain`), then 1, 2, 4, 8, 16 ULTs on it, forked, each
 *            sending its share, joined. Natively (no wisp) the ULTs are the
 *            same loops run one after the other (bench/ult_bench.h).
 *
 * SENDS messages in all per measurement, split evenly; each figure is the
 * median of TRIALS, the aggregate rate (messages / time from the start of
 * the first to the end of the last). Threads are timed by the clock; ULTs,
 * all on the calling thread, by its CPU time (CLOCK_THREAD_CPUTIME_ID), so
 * that the turns other processes take on a shared machine do not count.
 * Metrics: `rate_<n>threads` or `rate_<n>ults` (bench/plot.py draws them
 * against n); in `ults` mode also the thread alone before any ULT exists
 * (`plain_first_rate`) and after the ULTs (`plain_rate`), and
 * `ults16_vs_plain`, 16 ULTs' rate over `plain_rate`: the thread alone in
 * the same state of the process, whose blocking calls, once ULTs exist,
 * go through wisp's entry that asks whether they run in a ULT (seed 003's
 * claim: ULTs need no lock, so the rate stays; target >= 0.9).
 *
 * Usage: ult_msgrate threads|ults   (one process is enough)
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bench_check.h" /* bench_median */
#include "bench_rma.h"   /* bench_now */
#include "ult_bench.h"

#define SENDS  2000000L
#define TRIALS 5
#define MAXN   16

static const int counts[] = {1, 2, 4, 8, 16};
enum { NCOUNTS = sizeof counts / sizeof counts[0] };

struct worker {
    long sends;
    int err;
    pthread_barrier_t *start;
};

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int send_loop(long n)
{
    static char buf[1];
    int err = MPI_SUCCESS;
    for (long i = 0; i < n; i++)
        err |= MPI_Send(buf, 0, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
    return err;
}

static void *thread_fn(void *arg)
{
    struct worker *w = arg;
    pthread_barrier_wait(w->start);
    w->err = send_loop(w->sends);
    return NULL;
}

static void ult_fn(void *arg)
{
    struct worker *w = arg;
    w->err = send_loop(w->sends);
}

/* Rate of n pthreads (ult false) or n ULTs of this thread; n 0: this thread alone. */
static double rate(int n, int ult, int *err)
{
    struct worker w[MAXN];
    pthread_t th[MAXN];
    wisp_ult_t u[MAXN];
    pthread_barrier_t start;
    if (!ult && n > 0)
        pthread_barrier_init(&start, NULL, (unsigned)n + 1);
    for (int k = 0; k < n; k++)
        w[k] = (struct worker){SENDS / n, 0, &start};
    for (int k = 0; !ult && k < n; k++)
        if (pthread_create(&th[k], NULL, thread_fn, &w[k]) != 0) {
            fprintf(stderr, "ult_msgrate: cannot create thread %d\n", k);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    if (!ult && n > 0)
        pthread_barrier_wait(&start);
    double t0 = ult ? cpu_now() : bench_now();
    if (n == 0)
        *err |= send_loop(SENDS);
    for (int k = 0; ult && k < n; k++)
        ult_bench_fork(ult_fn, &w[k], &u[k]);
    for (int k = 0; k < n; k++)
        if (ult)
            ult_bench_join(u[k]);
        else
            pthread_join(th[k], NULL);
    double t = (ult ? cpu_now() : bench_now()) - t0;
    if (!ult && n > 0)
        pthread_barrier_destroy(&start);
    for (int k = 0; k < n; k++)
        *err |= w[k].err;
    return (double)(n ? SENDS / n * n : SENDS) / t;
}

static double median_rate(int n, int ult, int *err)
{
    double v[TRIALS];
    rate(n, ult, err); /* warm-up */
    for (int i = 0; i < TRIALS; i++)
        v[i] = rate(n, ult, err);
    return bench_median(v, TRIALS);
}

int main(int argc, char **argv)
{
    int ults = argc == 2 && strcmp(argv[1], "ults") == 0;
    if (argc != 2 || (!ults && strcmp(argv[1], "threads") != 0)) {
        fprintf(stderr, "usage: %s threads|ults\n", argv[0]);
        return 2;
    }
    int rank, err = 0;
    if (ults) {
        ult_bench_init(&argc, &argv, "ult_msgrate");
    } else {
        int got;
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &got);
        if (got != MPI_THREAD_MULTIPLE) {
            fprintf(stderr, "ult_msgrate: the MPI gives no MPI_THREAD_MULTIPLE (%d)\n", got);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double plain = 0.0, last = 0.0;
    char line[NCOUNTS + 3][96];
    int lines = 0;
    if (ults) {
        double first = median_rate(0, 1, &err);
        snprintf(line[lines++], sizeof line[0], "metric plain_first_rate %.1f msg/s higher", first);
    }
    for (int c = 0; c < NCOUNTS; c++) {
        last = median_rate(counts[c], ults, &err);
        snprintf(line[lines++], sizeof line[0], "metric rate_%d%s %.1f msg/s higher", counts[c],
                 ults ? "ults" : "threads", last);
    }
    if (ults) {
        /* Again, now that ULTs exist: under wisp each blocking call then
         * takes wisp's entry (which asks whether it runs in a ULT) instead
         * of the MPI's own, as it did before the first fork. */
        plain = median_rate(0, 1, &err);
        snprintf(line[lines++], sizeof line[0], "metric plain_rate %.1f msg/s higher", plain);
        snprintf(line[lines++], sizeof line[0], "metric ults16_vs_plain %.3f ratio higher",
                 last / plain);
    }
    if (err) {
        fprintf(stderr, "ult_msgrate: an MPI_Send failed\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank == 0) {
        printf("# ult_msgrate %s: %ld sends per figure, median of %d%s\n", argv[1], SENDS, TRIALS,
               ults && !ult_bench_have() ? " (no wisp: ULTs run one after the other)" : "");
        for (int i = 0; i < lines; i++)
            puts(line[i]);
    }
    MPI_Finalize();
    return 0;
}
