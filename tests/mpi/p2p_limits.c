/*
 * The engine's fixed-size areas driven past their size (issue 26): each
 * must grow or fall back to a path that completes. Two processes; rank 0
 * sends, while rank 1 looks away, more than one ring holds (immediate
 * messages), more messages than a process has rendezvous slots (staged,
 * standard and synchronous), and messages larger than the staging area;
 * rank 1 then receives them all, in order, byte by byte. Then more
 * messages than slots while rank 1 waits for a later one (starved).
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

/*
 * Past the slots, with the receiver waiting for a later message first (the
 * differential tester's seeds 144, 1015, 1241 and 1272 hung so): rank 0
 * sends `count` messages of 128 KiB (each holds a slot until its receive;
 * `sync_big`: synchronous, so they complete only once rank 1 matched them)
 * and then a small one (`sync_small`: synchronous); rank 1 has posted the small
 * one's receive and waits for it first (`in_barrier`: sits in a barrier,
 * the MPI's own call, which rank 0 joins once its small send is done).
 * MPI's progress rule completes the small send and its receive, whatever
 * else is pending.
 */
static void starved(int rank, int count, int sync_big, int sync_small, int in_barrier, int tag)
{
    enum { LEN = 128 << 10 };
    unsigned char *buf = malloc((size_t)count * LEN);
    MPI_Request *r = malloc((size_t)count * sizeof *r), small_req;
    MPI_Status *st = malloc((size_t)count * sizeof *st);
    int small = 0;
    if (rank == 0) {
        for (int k = 0; k < count; k++) {
            fill(buf + (size_t)k * LEN, LEN, (unsigned)(tag + k));
            if (sync_big)
                MPI_Issend(buf + (size_t)k * LEN, LEN, MPI_BYTE, 1, tag, MPI_COMM_WORLD, &r[k]);
            else
                MPI_Isend(buf + (size_t)k * LEN, LEN, MPI_BYTE, 1, tag, MPI_COMM_WORLD, &r[k]);
        }
        small = 42;
        if (sync_small)
            MPI_Ssend(&small, 1, MPI_INT, 1, tag + 1, MPI_COMM_WORLD);
        else
            MPI_Send(&small, 1, MPI_INT, 1, tag + 1, MPI_COMM_WORLD);
        if (in_barrier)
            MPI_Barrier(MPI_COMM_WORLD);
        /* Rank 1 posts no receive of `tag` before the barrier below: a
         * synchronous send must not complete meanwhile (copied aside or not). */
        for (int round = 0; sync_big && round < 100; round++) {
            int flag = 1;
            MPI_Testall(count, r, &flag, st);
            CHECK(!flag);
            sleep_ms(2);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        for (int k = 0; k < count; k++)
            CHECK(MPI_Wait(&r[k], MPI_STATUS_IGNORE) == MPI_SUCCESS);
    } else {
        MPI_Irecv(&small, 1, MPI_INT, 0, tag + 1, MPI_COMM_WORLD, &small_req);
        if (in_barrier)
            MPI_Barrier(MPI_COMM_WORLD);
        CHECK(MPI_Wait(&small_req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        CHECK(small == 42);
        MPI_Barrier(MPI_COMM_WORLD);
        for (int k = 0; k < count; k++) {
            MPI_Recv(buf + (size_t)k * LEN, LEN, MPI_BYTE, 0, tag, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            CHECK(same(buf + (size_t)k * LEN, LEN, (unsigned)(tag + k)));
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
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
    starved(rank, 80, 0, 0, 0, 10);
    starved(rank, 200, 0, 1, 0, 20);
    starved(rank, 80, 0, 1, 1, 30);
    starved(rank, 80, 1, 0, 0, 40);
    starved(rank, 200, 1, 1, 1, 50);
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("p2p_limits: %s\n", all ? "FAILED" : "ok");
    MPI_Finalize();
    return all != 0;
}
