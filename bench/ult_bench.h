/*
 * The user-level threads of wisp (wisp.h) for benchmarks that also run
 * natively. The programs are linked with the MPI only; wisp's functions are
 * looked up at run time in the libwisp that wisprun preloads. Without it
 * (wisprun --native) a fork runs its function to the end at once and a
 * join or a yield does nothing: the same tasks, one after the other on the
 * calling thread, which is the program without ULTs -- the native baseline.
 * Tasks must not wait for each other, or that baseline would hang.
 */
#ifndef WISP_BENCH_ULT_BENCH_H
#define WISP_BENCH_ULT_BENCH_H

#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "wisp.h"

static struct {
    int looked;
    int (*fork)(void (*)(void *), void *, wisp_ult_t *);
    int (*join)(wisp_ult_t);
    void (*yield)(void);
} ult_bench;

/* Is wisp there (its ULTs real)? */
static inline int ult_bench_have(void)
{
    if (!ult_bench.looked) {
        ult_bench.looked = 1;
        ult_bench.fork =
            (int (*)(void (*)(void *), void *, wisp_ult_t *))dlsym(RTLD_DEFAULT, "wisp_ult_fork");
        ult_bench.join = (int (*)(wisp_ult_t))dlsym(RTLD_DEFAULT, "wisp_ult_join");
        ult_bench.yield = (void (*)(void))dlsym(RTLD_DEFAULT, "wisp_ult_yield");
        if (!ult_bench.join || !ult_bench.yield)
            ult_bench.fork = NULL;
    }
    return ult_bench.fork != NULL;
}

static inline void ult_bench_fork(void (*fn)(void *), void *arg, wisp_ult_t *ult)
{
    if (!ult_bench_have()) {
        fn(arg);
        *ult = NULL;
        return;
    }
    int rc = ult_bench.fork(fn, arg, ult);
    if (rc != 0) {
        fprintf(stderr, "wisp_ult_fork failed: error %d\n", rc);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static inline void ult_bench_join(wisp_ult_t ult)
{
    if (ult_bench_have() && ult_bench.join(ult) != 0) {
        fprintf(stderr, "wisp_ult_join failed\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static inline void ult_bench_yield(void)
{
    if (ult_bench_have())
        ult_bench.yield();
}

/* MPI_Init_thread for many ULTs on this thread: WISP_THREAD_ULT under wisp
 * (which also turns blocking collectives into nonblocking ones, so that a
 * ULT waiting in one yields), MPI_THREAD_SERIALIZED natively. Exits with a
 * message if the MPI gives less. Returns the level asked for. */
static inline int ult_bench_init(int *argc, char ***argv, const char *prog)
{
    int want = ult_bench_have() ? WISP_THREAD_ULT : MPI_THREAD_SERIALIZED, got = -1;
    MPI_Init_thread(argc, argv, want, &got);
    if (got != want) {
        fprintf(stderr, "%s: MPI_Init_thread gave level %d instead of %d\n", prog, got, want);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return want;
}

#endif
