/*
 * The engine's fixed-size areas driven past their size (issue 26): each
 * must grow or fall back to a path that completes. Two processes; rank 0
 * sends, while rank 1 looks away, more than one ring holds (immediate
 * messages), more messages than a process has rendezvous slots (staged,
 * standard and synchronous), and messages larger than the staging area;
 * rank 1 then receives them all, in order, byte by byte.
 *
 * usage: p2p_limits   (2 processes)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h" /* tests/check.h */
#include "watchdog.h"

enum { WATCHDOG_S = 60 };

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(seed * 131u + i * 7u);
}

static int same(const unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != (unsigned char)(seed * 131u + i * 7u))
            return 0;
    return 1;
}

/* `count` messages of `len` bytes from rank 0 to rank 1, all sent (with
 * `sync`: synchronous) before rank 1 posts a receive. */
static void burst(int rank, int count, size_t len, int sync, int tag)
{
    unsigned char *buf = malloc((size_t)count * len);
    MPI_Request *r = malloc((size_t)count * sizeof *r);
    MPI_Status *st = malloc((size_t)count * sizeof *st);
    if (rank == 0) {
        for (int k = 0; k < count; k++) {
            fill(buf + (size_t)k * len, len, (unsigned)(tag + k));
            if (sync)
                MPI_Issend(buf + (size_t)k * len, (int)len, MPI_BYTE, 1, tag, MPI_COMM_WORLD,
                           &r[k]);
            else
                MPI_Isend(buf + (size_t)k * len, (int)len, MPI_BYTE, 1, tag, MPI_COMM_WORLD, &r[k]);
        }
        CHECK(MPI_Waitall(count, r, st) == MPI_SUCCESS);
    } else {
        sleep_ms(200); /* the sender fills what it can meanwhile */
        for (int k = 0; k < count; k++)
            MPI_Irecv(buf + (size_t)k * len, (int)len, MPI_BYTE, 0, tag, MPI_COMM_WORLD, &r[k]);
        CHECK(MPI_Waitall(count, r, st) == MPI_SUCCESS);
        for (int k = 0; k < count; k++)
            CHECK(same(buf + (size_t)k * len, len, (unsigned)(tag + k)));
    }
    free(buf);
    free(r);
    free(st);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "p2p_limits: needs 2 processes\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    watchdog_start("p2p_limits", WATCHDOG_S);
    burst(rank, 2000, 1024, 0, 1);    /* 2 MB of immediate messages: past any ring */
    burst(rank, 200, 8192, 0, 2);     /* staged, past the 64 slots */
    burst(rank, 200, 8192, 1, 3);     /* the same, synchronous */
    burst(rank, 100, 40 << 10, 0, 4); /* private, by cross-memory attach or staged */
    burst(rank, 8, 1 << 20, 0, 5);    /* past the staging area, chunk by chunk */
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("p2p_limits: %s\n", all ? "FAILED" : "ok");
    MPI_Finalize();
    return all != 0;
}
