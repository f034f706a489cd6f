/*
 * overhead.c - wrapper-overhead microbenchmark for wisp.
 *
 * Measures what an interposition layer adds to the cheapest MPI calls, with
 * the method of the MPI+ULT paper (section IV-B): the call rate of
 *   MPI_Send(buf, 0, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_WORLD),
 *   MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status)
 *     with nothing pending, and
 *   MPI_Testany(8, reqs, &index, &flag, &status)
 *     over 8 receives of the MPI's own that nothing will match (posted on
 *     MPI_COMM_SELF, which wisp leaves to the MPI), and
 *   MPI_Get of one double from the process itself, in a lock_all epoch on
 *     a window of MPI_Win_allocate over MPI_COMM_SELF (Open MPI 4.1 makes
 *     no MPI_Win_create window of one process), with
 *     MPI_Win_flush_local after every 64 (a Global Arrays code's small
 *     gets; the window is the MPI's own unless ghosts serve it),
 * which all return almost at once inside the MPI library, so any time a
 * wrapper adds shows up directly in the per-call cost.
 *
 * Each call type is also timed through its PMPI_ name, which no wrapper
 * intercepts, in the same process: rounds of the two loops alternate
 * (ROUNDS of each, the order swapped every round), so that a busy machine
 * slows both alike, and <name>_vs_pmpi is the median MPI_ rate over the
 * median PMPI_ rate, the wrapper's rate relative to the MPI's own in one
 * run: about 1 natively, and what the wrapper keeps of it under wisp,
 * whatever the launcher (wisprun or a plain LD_PRELOAD). <name>_added_ns
 * states the same as a cost: the median over rounds of the nanoseconds a
 * call through MPI_ took beyond one through PMPI_ in the same round (the
 * slowest rank's), about 0 natively.
 *
 * Usage: overhead [iterations]      (default 2000000 per call type and name)
 *
 * Rank 0 prints the slowest rank's figures (MPI_MIN over ranks) as lines
 * that bench/run.py reads:
 *   metric <name> <value> <unit> <higher|lower>
 */
#include <mpi.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#define DEFAULT_ITERS 2000000L
#define ROUNDS        11 /* timed rounds of each name; odd: a true median */
#define PENDING       8  /* receives under MPI_Testany */

/* A loop of `iters` calls through MPI_ (pmpi = 0) or PMPI_ (pmpi = 1);
 * returns non-zero if any call misbehaved. */
typedef int (*loop_fn)(long iters, int pmpi);

/* OR-ing every return code both catches failures and gives each call a used
 * result, so no call can be treated as dead code. */
static int send_proc_null_loop(long iters, int pmpi)
{
    static char buf[1];
    int err = MPI_SUCCESS;
    if (pmpi)
        for (long i = 0; i < iters; i++)
            err |= PMPI_Send(buf, 0, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
    else
        for (long i = 0; i < iters; i++)
            err |= MPI_Send(buf, 0, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
    return err != MPI_SUCCESS;
}

static int iprobe_empty_loop(long iters, int pmpi)
{
    MPI_Status status;
    int err = MPI_SUCCESS, found = 0;
    for (long i = 0; i < iters; i++) {
        int flag = 0;
        if (pmpi)
            err |= PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status);
        else
            err |= MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status);
        found |= flag;
    }
    /* Nobody sends, so a match means the measurement is not of the empty
     * case (or a wrapper invented a message). */
    return err != MPI_SUCCESS || found;
}

static MPI_Request pending[PENDING];

static int testany_pending_loop(long iters, int pmpi)
{
    MPI_Status status;
    int err = MPI_SUCCESS, found = 0;
    for (long i = 0; i < iters; i++) {
        int flag = 0, index = 0;
        if (pmpi)
            err |= PMPI_Testany(PENDING, pending, &index, &flag, &status);
        else
            err |= MPI_Testany(PENDING, pending, &index, &flag, &status);
        found |= flag;
    }
    return err != MPI_SUCCESS || found; /* nothing is sent: none may complete */
}

/* Receives from self on MPI_COMM_SELF with tags nobody sends. */
static void post_pending(void)
{
    static int bufs[PENDING];
    for (int i = 0; i < PENDING; i++)
        MPI_Irecv(&bufs[i], 1, MPI_INT, 0, 1000 + i, MPI_COMM_SELF, &pending[i]);
}

/* Returns non-zero unless every pending receive ends cancelled. */
static int cancel_pending(void)
{
    int failed = 0;
    for (int i = 0; i < PENDING; i++) {
        MPI_Status status;
        int cancelled = 0;
        MPI_Cancel(&pending[i]);
        failed |= MPI_Wait(&pending[i], &status) != MPI_SUCCESS;
        MPI_Test_cancelled(&status, &cancelled);
        failed |= !cancelled;
    }
    return failed;
}

enum { GETS_PER_FLUSH = 64 };
static MPI_Win self_win;

static int get_self_loop(long iters, int pmpi)
{
    int (*flush)(int, MPI_Win) = pmpi ? PMPI_Win_flush_local : MPI_Win_flush_local;
    double got = 0.0;
    int err = MPI_SUCCESS;
    for (long i = 0; i < iters; i++) {
        int at = (int)(i % GETS_PER_FLUSH);
        if (pmpi)
            err |= PMPI_Get(&got, 1, MPI_DOUBLE, 0, at, 1, MPI_DOUBLE, self_win);
        else
            err |= MPI_Get(&got, 1, MPI_DOUBLE, 0, at, 1, MPI_DOUBLE, self_win);
        if (at == GETS_PER_FLUSH - 1)
            err |= flush(0, self_win);
    }
    err |= flush(0, self_win);
    return err != MPI_SUCCESS || got != 1.0; /* every element holds 1.0 */
}

/* Returns the iteration count, or -1 (after a message) if argv is invalid. */
static long parse_iters(int argc, char **argv, int rank)
{
    if (argc < 2)
        return DEFAULT_ITERS;

    char *end = NULL;
    errno = 0;
    long n = strtol(argv[1], &end, 10);
    if (argc > 2 || errno != 0 || end == argv[1] || *end != '\0' || n < ROUNDS) {
        if (rank == 0)
            fprintf(stderr, "usage: %s [iterations >= %d]\n", argv[0], ROUNDS);
        return -1;
    }
    return n;
}

static double rate_of(loop_fn loop, long iters, int pmpi, int *failed)
{
    double t0 = MPI_Wtime();
    *failed |= loop(iters, pmpi);
    double elapsed = MPI_Wtime() - t0;
    /* Only reachable with tiny counts on a coarse clock; avoids a division
     * by zero rather than reporting an infinite rate. */
    return (double)iters / (elapsed > 0.0 ? elapsed : MPI_Wtick());
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    return v[n / 2];
}

/* Runs one call type on every rank and prints its metrics on rank 0.
 * Returns non-zero if any rank saw a failure. */
static int measure(const char *name, loop_fn loop, long iters, int rank)
{
    int failed = 0;
    long chunk = iters / ROUNDS;

    /* Warm-up: first calls pay for lazy initialisation, page faults and
     * cold caches, in the MPI library and in the wrapper alike. */
    failed |= loop(iters / 10 + 1, 0);
    failed |= loop(iters / 10 + 1, 1);
    /* Start all ranks together so they contend for the cores the same way
     * in every run. */
    MPI_Barrier(MPI_COMM_WORLD);
    double rates[2][ROUNDS];
    for (int r = 0; r < ROUNDS; r++)
        for (int k = 0; k < 2; k++) {
            int pmpi = (r + k) % 2;
            rates[pmpi][r] = rate_of(loop, chunk, pmpi, &failed);
        }
    /* The nanoseconds a call through MPI_ costs beyond one through PMPI_,
     * round by round (the two loops of a round ran back to back). */
    double added[ROUNDS];
    for (int r = 0; r < ROUNDS; r++)
        added[r] = 1e9 / rates[0][r] - 1e9 / rates[1][r];
    double mine[2] = {median(rates[0], ROUNDS), 0.0}, least[2];
    mine[1] = mine[0] / median(rates[1], ROUNDS);
    double my_added = median(added, ROUNDS), most_added = 0.0;

    int any_failed = 0;
    MPI_Reduce(mine, least, 2, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    MPI_Reduce(&my_added, &most_added, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);

    if (rank == 0 && any_failed)
        fprintf(stderr, "overhead: %s: a call failed or found a message\n", name);
    if (rank == 0 && !any_failed) {
        printf("metric %s_rate %.1f calls/s higher\n", name, least[0]);
        printf("metric %s_ns %.3f ns lower\n", name, 1e9 / least[0]);
        printf("metric %s_vs_pmpi %.3f ratio higher\n", name, least[1]);
        printf("metric %s_added_ns %.2f ns lower\n", name, most_added);
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
        printf("# overhead: np=%d iterations=%ld per name\n", size, iters);

    int failed = 0;
    failed |= measure("send_proc_null", send_proc_null_loop, iters, rank);
    failed |= measure("iprobe_empty", iprobe_empty_loop, iters, rank);
    post_pending();
    failed |= measure("testany_pending8", testany_pending_loop, iters, rank);
    failed |= cancel_pending();
    double *self_mem;
    MPI_Win_allocate(GETS_PER_FLUSH * sizeof *self_mem, sizeof *self_mem, MPI_INFO_NULL,
                     MPI_COMM_SELF, &self_mem, &self_win);
    for (int i = 0; i < GETS_PER_FLUSH; i++)
        self_mem[i] = 1.0;
    MPI_Win_lock_all(0, self_win);
    failed |= measure("get_self", get_self_loop, iters, rank);
    MPI_Win_unlock_all(self_win);
    MPI_Win_free(&self_win);

    MPI_Finalize();
    return failed ? 1 : 0;
}
