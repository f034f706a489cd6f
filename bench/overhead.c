/*
 * overhead.c - wrapper-overhead microbenchmark for wisp.
 *
 * Measures what an interposition layer adds to the cheapest MPI calls, with
 * the method of the MPI+ULT paper (section IV-B): the call rate of
 *   MPI_Send(buf, 0, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_WORLD)
 * and of
 *   MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status)
 * with nothing pending. Both return almost at once inside the MPI library, so
 * any time a wrapper adds shows up directly in the per-call cost.
 *
 * Usage: overhead [iterations]      (default 2000000 per call type)
 *
 * Rank 0 prints the slowest rank's figures (MPI_MIN of the rates) as lines
 * that bench/run.py reads:
 *   metric <name> <value> <unit> <higher|lower>
 */
#include <mpi.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#define DEFAULT_ITERS 2000000L

/* A timed loop; returns non-zero if any call misbehaved. */
typedef int (*loop_fn)(long iters);

static int send_proc_null_loop(long iters)
{
    static char buf[1];
    int err = MPI_SUCCESS;

    /* OR-ing every return code both catches failures and gives each call a
     * used result, so no call can be treated as dead code. */
    for (long i = 0; i < iters; i++)
        err |= MPI_Send(buf, 0, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
    return err != MPI_SUCCESS;
}

static int iprobe_empty_loop(long iters)
{
    MPI_Status status;
    int err = MPI_SUCCESS;
    int found = 0;

    for (long i = 0; i < iters; i++) {
        int flag = 0;
        err |= MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status);
        found |= flag;
    }
    /* Nobody sends, so a match means the measurement is not of the empty
     * case (or a wrapper invented a message). */
    return err != MPI_SUCCESS || found;
}

/* Returns the iteration count, or -1 (after a message) if argv is invalid. */
static long parse_iters(int argc, char **argv, int rank)
{
    if (argc < 2)
        return DEFAULT_ITERS;

    char *end = NULL;
    errno = 0;
    long n = strtol(argv[1], &end, 10);
    if (argc > 2 || errno != 0 || end == argv[1] || *end != '\0' || n < 1) {
        if (rank == 0)
            fprintf(stderr, "usage: %s [iterations >= 1]\n", argv[0]);
        return -1;
    }
    return n;
}

static double timed_loop(loop_fn loop, long iters, int *failed)
{
    /* Start all ranks together so they contend for the cores the same way
     * in every run. */
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    *failed |= loop(iters);
    double elapsed = MPI_Wtime() - t0;

    /* Only reachable with tiny counts on a coarse clock; avoids a division
     * by zero rather than reporting an infinite rate. */
    return elapsed > 0.0 ? elapsed : MPI_Wtick();
}

/* Runs one call type on every rank and prints its metrics on rank 0.
 * Returns non-zero if any rank saw a failure. */
static int measure(const char *name, loop_fn loop, long iters, int rank)
{
    int failed = 0;

    /* Warm-up: first calls pay for lazy initialisation, page faults and
     * cold caches, in the MPI library and in the wrapper alike. */
    failed |= loop(iters / 10 + 1);
    double rate = (double)iters / timed_loop(loop, iters, &failed);

    double min_rate = 0.0;
    int any_failed = 0;
    MPI_Reduce(&rate, &min_rate, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);

    if (rank == 0 && any_failed)
        fprintf(stderr, "overhead: %s: a call failed or found a message\n", name);
    if (rank == 0 && !any_failed) {
        printf("metric %s_rate %.1f calls/s higher\n", name, min_rate);
        printf("metric %s_ns %.3f ns lower\n", name, 1e9 / min_rate);
        fflush(stdout);
    }
    return any_failed;
}

int main(int argc, char **argv)
{
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* Every rank parses the same argv, so all of them agree on the outcome
     * and can finalize cleanly instead of aborting. */
    long iters = parse_iters(argc, argv, rank);
    if (iters < 0) {
        MPI_Finalize();
        return 2;
    }
    if (rank == 0)
        printf("# overhead: np=%d iterations=%ld\n", size, iters);

    int failed = 0;
    failed |= measure("send_proc_null", send_proc_null_loop, iters, rank);
    failed |= measure("iprobe_empty", iprobe_empty_loop, iters, rank);

    MPI_Finalize();
    return failed ? 1 : 0;
}
