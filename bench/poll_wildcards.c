/*
 * poll_wildcards.c - the cost of an MPI_Testany that finds nothing, over
 * receives from MPI_ANY_SOURCE: the empty poll of random_access.c alone.
 *
 * Rank 0 posts RECVS receives (MPI_ANY_SOURCE, MPI_ANY_TAG) on
 * MPI_COMM_WORLD that nothing will match and times rounds of MPI_Testany
 * over them; the other ranks nap (a probe every 2 ms) until it is done.
 * Under wisp the receives are wisp's when the world is served: with every
 * peer on the node (wisp looks at its rings) or with some on another node
 * (WISP_VNODE_SIZE, where it also asks the MPI for the wildcards); with
 * WISP_VNODE_SIZE=1 they are the MPI's own. At the end the receives are
 * cancelled; one that completed, or did not end cancelled, exits 1.
 *
 * Usage: poll_wildcards [calls per round]      (default 1000000)
 *
 * Rank 0 prints the median of ROUNDS rounds as a line bench/run.py reads:
 *   metric testany_wild4_ns <ns per call> ns lower
 */
#include <mpi.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define RECVS         4
#define ROUNDS        9 /* odd: a true median */
#define TAG_DONE      1
#define DEFAULT_CALLS 1000000L

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void nap_ms(long ms)
{
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

/* Rank 0: ns per empty MPI_Testany, the median round; -1 if one found a message. */
static double measure(long calls, MPI_Request *reqs)
{
    double ns[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        int found = 0, err = MPI_SUCCESS;
        double t0 = MPI_Wtime();
        for (long i = 0; i < calls; i++) {
            int index, flag;
            err |= MPI_Testany(RECVS, reqs, &index, &flag, MPI_STATUS_IGNORE);
            found |= flag;
        }
        ns[r] = (MPI_Wtime() - t0) / (double)calls * 1e9;
        if (found || err != MPI_SUCCESS)
            return -1;
    }
    qsort(ns, ROUNDS, sizeof *ns, by_value);
    return ns[ROUNDS / 2];
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char *end = NULL;
    errno = 0;
    long calls = argc > 1 ? strtol(argv[1], &end, 10) : DEFAULT_CALLS;
    if (argc > 2 || (argc > 1 && (errno || end == argv[1] || *end || calls < 1))) {
        if (rank == 0)
            fprintf(stderr, "usage: %s [calls per round >= 1]\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    int failed = 0;
    if (rank == 0) {
        static char bufs[RECVS][8];
        MPI_Request reqs[RECVS];
        for (int i = 0; i < RECVS; i++)
            MPI_Irecv(bufs[i], 8, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &reqs[i]);
        double ns = measure(calls, reqs);
        for (int i = 0; i < RECVS; i++) {
            MPI_Status st;
            int cancelled = 0;
            MPI_Cancel(&reqs[i]);
            MPI_Wait(&reqs[i], &st);
            MPI_Test_cancelled(&st, &cancelled);
            failed |= !cancelled;
        }
        for (int p = 1; p < size; p++)
            MPI_Send(NULL, 0, MPI_BYTE, p, TAG_DONE, MPI_COMM_WORLD);
        if (ns < 0 || failed) {
            fprintf(stderr, "poll_wildcards: a receive got a message, or a call failed\n");
            failed = 1;
        } else {
            printf("# poll_wildcards: %d processes, MPI_Testany over %d wildcard receives\n", size,
                   RECVS);
            printf("metric testany_wild4_ns %.2f ns lower\n", ns);
        }
    } else { /* nap, so that rank 0 has a core of its own */
        for (int flag = 0; !flag;) {
            MPI_Iprobe(0, TAG_DONE, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
            if (!flag)
                nap_ms(2);
        }
        MPI_Recv(NULL, 0, MPI_BYTE, 0, TAG_DONE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return failed;
}
