/*
 * neighbor.c - time per call of MPI_Neighbor_alltoall and
 * MPI_Neighbor_allgather on a Cartesian communicator over all processes
 * (one dimension, periodic from 3 processes, so that no process is a
 * neighbour twice), blocks of 8 B to 1 MiB from malloc (so in wisp's shared
 * heap when wisp is preloaded): a halo exchange written with neighbour
 * collectives. Each size as bench/chunks.h times it. Every result is
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

#include "chunks.h"

static void call(bool all, const char *send, char *recv, int bytes, MPI_Comm comm)
{
    if (all)
        MPI_Neighbor_allgather(send, bytes, MPI_BYTE, recv, bytes, MPI_BYTE, comm);
    else
        MPI_Neighbor_alltoall(send, bytes, MPI_BYTE, recv, bytes, MPI_BYTE, comm);
}

struct call_args {
    bool all;
    const char *send;
    char *recv;
    int bytes;
    MPI_Comm comm;
};

static void one_call(void *arg)
{
    struct call_args *a = arg;
    call(a->all, a->send, a->recv, a->bytes, a->comm);
}

/* Seconds per call (bench/chunks.h). */
static double timed(bool all, const char *send, char *recv, int bytes, MPI_Comm comm)
{
    struct call_args a = {all, send, recv, bytes, comm};
    return bench_chunks(one_call, &a, comm);
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
