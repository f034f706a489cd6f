/*
 * ult_yield.c - what wisp's user-level threads cost (issue 12; seed 003):
 * a yield between two ULTs of one kernel thread, and a fork + join, beside
 * what the same costs with kernel threads (pthreads) in the same run.
 *
 *   ult_yield_ns        the primary flow and one ULT yield to each other
 *                       N times each: time / 2N switches
 *   ult_fork_join_ns    fork a ULT of an empty function and join it, one at
 *                       a time (its stack comes back from the spares)
 *   ult_fork_join_batch_ns  fork 64, then join the 64: per ULT
 *   pthread_yield_ns    two pthreads on one CPU hand a turn to each other
 *                       with sched_yield: time / switches (a kernel switch)
 *   pthread_create_join_ns  create and join a pthread of an empty function
 *
 * Times are the process's CPU time (CLOCK_PROCESS_CPUTIME_ID, user and
 * system): on a shared machine a process may get a tenth of a core, and
 * wall time would count the others' turns; everything measured here runs on
 * the CPU the whole time (ULTs switch without the kernel, the pthreads spin
 * on sched_yield), so CPU time is its cost. No MPI: the ULT API works
 * without MPI_Init. Each figure is the median of REPS repetitions.
 *
 * Usage: ult_yield [reps]   (linked with libwisp)
 * Prints `metric <name> <value> ns lower` lines and whether the yield meets
 * the target (< 50 ns).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include <time.h>

#include "bench_check.h" /* bench_median */
#include "wisp.h"

#define YIELDS   200000L
#define FORKS    20000L
#define BATCH    64
#define KSWITCH  20000L /* kernel switches: much slower */
#define THREADS  2000L
#define MAX_REPS 101

static double bench_now(void) /* CPU seconds of the process */
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void yielder(void *arg)
{
    for (long i = 0; i < *(long *)arg; i++)
        wisp_ult_yield();
}

static void nothing(void *arg)
{
    (void)arg;
}

static void check(int rc, const char *what)
{
    if (rc != 0) {
        fprintf(stderr, "ult_yield: %s failed: error %d\n", what, rc);
        exit(1);
    }
}

static double ult_yield_ns(void)
{
    long n = YIELDS;
    wisp_ult_t u;
    check(wisp_ult_fork(yielder, &n, &u), "wisp_ult_fork");
    wisp_ult_yield(); /* the ULT starts: both are now in the loop */
    double t0 = bench_now();
    for (long i = 0; i < n; i++)
        wisp_ult_yield();
    double t = bench_now() - t0;
    check(wisp_ult_join(u), "wisp_ult_join");
    return t / (2.0 * (double)n) * 1e9;
}

static double ult_fork_join_ns(void)
{
    double t0 = bench_now();
    for (long i = 0; i < FORKS; i++) {
        wisp_ult_t u;
        check(wisp_ult_fork(nothing, NULL, &u), "wisp_ult_fork");
        check(wisp_ult_join(u), "wisp_ult_join");
    }
    return (bench_now() - t0) / (double)FORKS * 1e9;
}

static double ult_fork_join_batch_ns(void)
{
    wisp_ult_t u[BATCH];
    double t0 = bench_now();
    for (long i = 0; i < FORKS / BATCH; i++) {
        for (int k = 0; k < BATCH; k++)
            check(wisp_ult_fork(nothing, NULL, &u[k]), "wisp_ult_fork");
        for (int k = 0; k < BATCH; k++)
            check(wisp_ult_join(u[k]), "wisp_ult_join");
    }
    return (bench_now() - t0) / (double)(FORKS / BATCH * BATCH) * 1e9;
}

/* ---- the same with kernel threads ------------------------------------- */

static _Atomic long turn;

static void *turn_taker(void *arg)
{
    long me = (long)arg;
    for (long i = me; i < 2 * KSWITCH; i += 2) {
        while (atomic_load(&turn) != i)
            sched_yield();
        atomic_store(&turn, i + 1);
    }
    return NULL;
}

/* Both threads on the CPU the caller runs on, so that each turn is a switch. */
static double pthread_yield_ns(void)
{
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(sched_getcpu(), &one);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setaffinity_np(&attr, sizeof one, &one);
    pthread_t t[2];
    atomic_store(&turn, 0);
    double t0 = bench_now();
    for (long k = 0; k < 2; k++)
        check(pthread_create(&t[k], &attr, turn_taker, (void *)k), "pthread_create");
    for (int k = 0; k < 2; k++)
        pthread_join(t[k], NULL);
    pthread_attr_destroy(&attr);
    return (bench_now() - t0) / (2.0 * (double)KSWITCH) * 1e9;
}

static void *no_work(void *arg)
{
    return arg;
}

static double pthread_create_join_ns(void)
{
    double t0 = bench_now();
    for (long i = 0; i < THREADS; i++) {
        pthread_t t;
        check(pthread_create(&t, NULL, no_work, NULL), "pthread_create");
        pthread_join(t, NULL);
    }
    return (bench_now() - t0) / (double)THREADS * 1e9;
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 11;
    if (argc > 2 || reps < 1 || reps > MAX_REPS) {
        fprintf(stderr, "usage: %s [reps from 1 to %d]\n", argv[0], MAX_REPS);
        return 2;
    }
    static const struct {
        const char *name;
        double (*measure)(void);
    } cases[] = {
        {"ult_yield_ns", ult_yield_ns},
        {"ult_fork_join_ns", ult_fork_join_ns},
        {"ult_fork_join_batch_ns", ult_fork_join_batch_ns},
        {"pthread_yield_ns", pthread_yield_ns},
        {"pthread_create_join_ns", pthread_create_join_ns},
    };
    printf("# ult_yield: %d repetitions, medians; %d kernel thread(s) run ULTs\n", reps,
           wisp_ult_threads());
    double yield_ns = 0.0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        double v[MAX_REPS];
        cases[c].measure(); /* warm-up: stacks mapped, code and caches warm */
        for (int r = 0; r < reps; r++)
            v[r] = cases[c].measure();
        double med = bench_median(v, reps);
        printf("metric %s %.2f ns lower\n", cases[c].name, med);
        if (c == 0)
            yield_ns = med;
    }
    printf("# target ult_yield_ns < 50: %s (%.1f ns)\n", yield_ns < 50.0 ? "met" : "MISSED",
           yield_ns);
    return 0;
}
