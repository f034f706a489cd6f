/*
 * neighbor.c - time per call of MPI_Neighbor_alltoall and
 * MPI_Neighbor_allgather on a Cartesian communicator over all processes
 * (one dimension, periodic from 3 processes, so that no process is a
 * neighbour twice), blocks of 8 B to 1 MiB from malloc (so in wisp's shared
 * heap when wisp is preloaded): a halo exchange written with neighbour
 * collectives. Each size: a warm-up, then TRIALS chunks of about
 * TARGET_S / TRIALS, each after a barrier; a chunk's time per call is the
 * largest over the ranks, the figure the median chunk. Every result is
 * checked once after the timing (exit 1 if wrong).
 *
 * Usage: neighbor [SIZE ...]    (block sizes in bytes; default 8 B to 1 MiB
 * by powers of 4)
 * Rank 0 prints lines that bench/run.py reads:
 *   metric neighbor_alltoall_<size>B <microseconds> us lower   (and _allgather_)
 */
#include <mpi.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TARGET_S 0.2
#define TRIALS   7

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void call(bool all, const char *send, char *recv, int bytes, MPI_Comm comm)
{
    if (all)
        MPI_Neighbor_allgather(send, bytes, MPI_BYTE, recv, bytes, MPI_BYTE, comm);
    else
        MPI_Neighbor_alltoall(send, bytes, MPI_BYTE, recv, bytes, MPI_BYTE, comm);
}

/* Median over the chunks of the largest time per call over the ranks. */
static double timed(bool all, const char *send, char *recv, int bytes, MPI_Comm comm)
{
    int calls = 1;
    for (;;) { /* the warm-up: calls per chunk, rank 0's count for all */
        double t0 = MPI_Wtime();
        for (int i = 0; i < calls; i++)
            call(all, send, recv, bytes, comm);
        double t = MPI_Wtime() - t0;
        int more = t < TARGET_S / TRIALS;
        MPI_Bcast(&more, 1, MPI_INT, 0, comm);
        if (!more)
            break;
        calls *= 2;
    }
    double chunks[TRIALS];
    for (int c = 0; c < TRIALS; c++) {
        MPI_Barrier(comm);
        double t0 = MPI_Wtime();
        for (int i = 0; i < calls; i++)
            call(all, send, recv, bytes, comm);
        double t = (MPI_Wtime() - t0) / calls, worst;
        MPI_Allreduce(&t, &worst, 1, MPI_DOUBLE, MPI_MAX, comm);
        chunks[c] = worst;
    }
    qsort(chunks, TRIALS, sizeof chunks[0], cmp);
    return chunks[TRIALS / 2];
}

/* Block k of a process's send buffer holds (rank, k) in every byte pair. */
static bool check(bool all, const char *recv, int bytes, const int *sources, int deg)
{
    for (int k = 0; k < deg; k++) {
        if (sources[k] == MPI_PROC_NULL)
            continue;
        int block = all ? 0 : (k % 2 == 0 ? k + 1 : k - 1); /* sent up from below, and back */
        for (int i = 0; i < bytes; i++)
            if (recv[(size_t)k * (size_t)bytes + (size_t)i] != (char)(sources[k] * 3 + block))
                return false;
    }
    return true;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int sizes[32], nsizes = 0;
    for (int a = 1; a < argc && nsizes < 32; a++)
        sizes[nsizes++] = atoi(argv[a]);
    if (!nsizes)
        for (int s = 8; s <= 1 << 20; s *= 4)
            sizes[nsizes++] = s;
    int dims = np, periods = np >= 3;
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 1, &dims, &periods, 0, &cart);
    int sources[2];
    MPI_Cart_shift(cart, 0, 1, &sources[0], &sources[1]);
    int status = 0;
    for (int s = 0; s < nsizes; s++) {
        int bytes = sizes[s];
        char *send = malloc(2 * (size_t)bytes), *recv = malloc(2 * (size_t)bytes);
        for (int all = 0; all < 2; all++) {
            for (int k = 0; k < 2; k++)
                memset(send + (size_t)k * (size_t)bytes, me * 3 + (all ? 0 : k), (size_t)bytes);
            double t = timed(all, send, recv, bytes, cart);
            memset(recv, -1, 2 * (size_t)bytes);
            call(all, send, recv, bytes, cart);
            int ok = check(all, recv, bytes, sources, 2), all_ok;
            MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, cart);
            if (!all_ok)
                status = 1;
            if (me == 0)
                printf("metric neighbor_%s_%dB %.3f us lower\n", all ? "allgather" : "alltoall",
                       bytes, t * 1e6);
        }
        free(send);
        free(recv);
    }
    if (me == 0 && status)
        fprintf(stderr, "neighbor: a result was wrong\n");
    MPI_Comm_free(&cart);
    MPI_Finalize();
    return status;
}
