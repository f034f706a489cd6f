/*
 * A small /dev/shm (tests/shm_small.sh mounts 64 MiB): every process
 * allocates far more than /dev/shm holds (argv[1] MiB, in blocks of argv[2]
 * MiB, 1 by default, from malloc and MPI_Alloc_mem) and writes every byte
 * (blocks of 1 MiB and more are committed by the first touch, within what
 * /dev/shm holds whole: no SIGBUS),
 * then every process sends to every other many messages at once: staged
 * ones (buffers from before MPI_Init, private), enough to fill every
 * rendezvous slot's staging area, and large ones from heap buffers. Every
 * byte is checked. Before wisp committed its segments at MPI_Init, the
 * heap took what was left of /dev/shm and the first touch of a slot page
 * raised SIGBUS.
 *
 * Prints one line per rank: "shm_small rank R: H MiB in heap, P MiB
 * private, intact" (or CORRUPTED).
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wisp.h"

enum {
    MIB = 1 << 20,
    STAGED = 96,            /* messages in flight per peer: more than the 64 slots */
    STAGED_SIZE = 64 << 10, /* the default staging area, filled by each */
    LARGE = 4,              /* large messages per peer */
    LARGE_SIZE = 2 * MIB,
};

static unsigned char pattern(int from, int to, int msg, size_t i)
{
    return (unsigned char)(from * 31 + to * 17 + msg * 7 + i + (i >> 9));
}

static void fill(unsigned char *p, size_t n, int from, int to, int msg)
{
    for (size_t i = 0; i < n; i++)
        p[i] = pattern(from, to, msg, i);
}

static int intact(const unsigned char *p, size_t n, int from, int to, int msg)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != pattern(from, to, msg, i))
            return 0;
    return 1;
}

int main(int argc, char **argv)
{
    int fill_mib = argc > 1 ? atoi(argv[1]) : 48, block_mib = argc > 2 ? atoi(argv[2]) : 1;
    int blocks = fill_mib / block_mib;
    size_t block_size = (size_t)block_mib * MIB;
    /* Before MPI_Init: glibc's memory, sent through the staging areas. */
    int size_guess = 16;
    unsigned char *staged_out = malloc((size_t)size_guess * STAGED * STAGED_SIZE);
    unsigned char *staged_in = malloc((size_t)size_guess * STAGED * STAGED_SIZE);
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > size_guess || !staged_out || !staged_in) {
        fprintf(stderr, "shm_small: at most %d processes\n", size_guess);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }

    /* Far more than /dev/shm: the heap takes what it may, the rest is private. */
    int in_heap = 0, bad = 0;
    unsigned char **block = malloc(sizeof *block * (size_t)blocks);
    for (int b = 0; b < blocks; b++) {
        /* MPI_Alloc_mem too: the heap serves it also where the sanitizer's malloc comes first */
        if (b % 2)
            block[b] = malloc(block_size);
        else if (MPI_Alloc_mem((MPI_Aint)block_size, MPI_INFO_NULL, &block[b]) != MPI_SUCCESS)
            block[b] = NULL;
        if (!block[b]) {
            fprintf(stderr, "shm_small: malloc failed at block %d\n", b);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        in_heap += wisp_heap_contains(block[b]) * block_mib;
        memset(block[b], b + 1, block_size);
    }
    MPI_Barrier(MPI_COMM_WORLD); /* every process has filled before any sends */

    /* Many staged messages at once to every peer, then large ones from the heap. */
    int nreq = 2 * (size - 1) * (STAGED + LARGE), r = 0;
    MPI_Request *req = malloc(sizeof *req * (size_t)(nreq + 1));
    unsigned char **large_out = malloc(sizeof *large_out * (size_t)size * LARGE);
    unsigned char **large_in = malloc(sizeof *large_in * (size_t)size * LARGE);
    for (int peer = 0; peer < size; peer++) {
        if (peer == rank)
            continue;
        for (int m = 0; m < STAGED; m++) {
            unsigned char *out = staged_out + ((size_t)peer * STAGED + m) * STAGED_SIZE;
            fill(out, STAGED_SIZE, rank, peer, m);
            MPI_Isend(out, STAGED_SIZE, MPI_BYTE, peer, m, MPI_COMM_WORLD, &req[r++]);
        }
    }
    for (int peer = 0; peer < size; peer++) {
        if (peer == rank)
            continue;
        for (int m = 0; m < STAGED; m++)
            MPI_Irecv(staged_in + ((size_t)peer * STAGED + m) * STAGED_SIZE, STAGED_SIZE, MPI_BYTE,
                      peer, m, MPI_COMM_WORLD, &req[r++]);
        for (int m = 0; m < LARGE; m++) {
            unsigned char *out = large_out[peer * LARGE + m] = malloc(LARGE_SIZE);
            unsigned char *in = large_in[peer * LARGE + m] = malloc(LARGE_SIZE);
            if (!out || !in)
                MPI_Abort(MPI_COMM_WORLD, 2);
            fill(out, LARGE_SIZE, rank, peer, STAGED + m);
            MPI_Irecv(in, LARGE_SIZE, MPI_BYTE, peer, STAGED + m, MPI_COMM_WORLD, &req[r++]);
            MPI_Isend(out, LARGE_SIZE, MPI_BYTE, peer, STAGED + m, MPI_COMM_WORLD, &req[r++]);
        }
    }
    MPI_Status *st = malloc(sizeof *st * (size_t)(nreq + 1)); /* GCC warns on MPI_STATUSES_IGNORE */
    MPI_Waitall(r, req, st);
    free(st);
    for (int peer = 0; peer < size; peer++) {
        if (peer == rank)
            continue;
        for (int m = 0; m < STAGED; m++)
            bad += !intact(staged_in + ((size_t)peer * STAGED + m) * STAGED_SIZE, STAGED_SIZE, peer,
                           rank, m);
        for (int m = 0; m < LARGE; m++) {
            bad += !intact(large_in[peer * LARGE + m], LARGE_SIZE, peer, rank, STAGED + m);
            free(large_out[peer * LARGE + m]);
            free(large_in[peer * LARGE + m]);
        }
    }
    for (int b = 0; b < blocks; b++) {
        bad += block[b][0] != b + 1 || block[b][block_size - 1] != b + 1;
        if (b % 2)
            free(block[b]);
        else
            MPI_Free_mem(block[b]);
    }
    printf("shm_small rank %d: %d MiB in heap, %d MiB private, %s\n", rank, in_heap,
           blocks * block_mib - in_heap, bad ? "CORRUPTED" : "intact");
    free(block);
    free(req);
    free(large_out);
    free(large_in);
    MPI_Finalize();
    free(staged_out);
    free(staged_in);
    return bad != 0;
}
