/*
 * Every protocol boundary of the point-to-point engine, byte by byte: sizes
 * around each threshold (one less, equal, one more), from private memory
 * (mmap, as stack, static and pre-MPI_Init memory are) and from the shared
 * heap, into private and heap receive buffers. Each message is checked in
 * every byte and in its status count, and a synchronous send into a receive
 * posted beforehand must take the protocol its size and buffer call for, by
 * wisp's counters. Then, per size, a window of nonblocking sends that fills
 * the ring and the slots, received late and out of posting order of the
 * tags; and, up to the staging area, both processes send before they
 * receive (eager, as the MPIs are: a cross-memory attach message is taken
 * back when its receiver is late).
 *
 * Usage: p2p_sizes IMMEDIATE SINGLE_COPY CMA_MIN STAGE SYNERGY [nocma]
 * (the engine's WISP_SHM_* values in bytes; two processes of one node).
 */
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "check.h"
#include "ptrace_scope.h"
#include "wisp.h"

enum { WINDOW = 24, MAX_SIZES = 64 };

static uint64_t immediate, single_copy, cma_min, stage, synergy;
static int cma;

static void *map(size_t n)
{
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        MPI_Abort(MPI_COMM_WORLD, 2);
    return p;
}

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(1 + (i * 7 + seed) % 251);
}

/* Returns the first wrong byte's offset, or -1. */
static long first_wrong(const unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != (unsigned char)(1 + (i * 7 + seed) % 251))
            return (long)i;
    return -1;
}

static void check_message(const unsigned char *buf, size_t n, unsigned seed, MPI_Status *st,
                          const char *what)
{
    int count = -1;
    MPI_Get_count(st, MPI_BYTE, &count);
    long bad = first_wrong(buf, n, seed);
    if (count != (int)n || bad >= 0) {
        fprintf(stderr, "p2p_sizes: %s of %zu bytes: count %d, first wrong byte %ld\n", what, n,
                count, bad);
        failures++;
    }
}

/* The counter a synchronous send of `n` bytes into a posted receive bumps. */
static const char *protocol(size_t n, int heap_send, int heap_recv)
{
    if (heap_send && n && n >= single_copy)
        return n >= synergy && (heap_recv || cma) ? "synergistic" : "single_copy";
    if (!heap_send && cma && n >= cma_min)
        return n >= synergy ? "synergistic" : "single_copy";
    return "staged";
}

/* One message from rank 0 to rank 1, received into a receive posted first. */
static void one(int rank, unsigned char *sbuf, unsigned char *rbuf, size_t n, int heap_send,
                int heap_recv, int sync, unsigned seed)
{
    if (rank == 0) {
        MPI_Recv(NULL, 0, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        fill(sbuf, n, seed);
        if (sync)
            MPI_Ssend(sbuf, (int)n, MPI_BYTE, 1, 2, MPI_COMM_WORLD);
        else
            MPI_Send(sbuf, (int)n, MPI_BYTE, 1, 2, MPI_COMM_WORLD);
        return;
    }
    memset(rbuf, 0, n);
    const char *want = sync                                 ? protocol(n, heap_send, heap_recv)
                       : heap_send && n && n >= single_copy ? NULL /* it may be taken back */
                       : !heap_send && cma && n >= cma_min  ? NULL
                       : n <= immediate                     ? "immediate"
                                                            : "staged";
    unsigned long long before = want ? wisp_shm_counter(want) : 0;
    MPI_Request req;
    MPI_Status st;
    MPI_Irecv(rbuf, (int)n, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &req);
    MPI_Send(NULL, 0, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
    MPI_Wait(&req, &st);
    check_message(rbuf, n, seed, &st, sync ? "synchronous send" : "send");
    if (want && wisp_shm_counter(want) != before + 1) {
        fprintf(stderr, "p2p_sizes: %zu bytes from %s into %s memory (%s): not %s\n", n,
                heap_send ? "heap" : "private", heap_recv ? "heap" : "private",
                sync ? "Ssend" : "Send", want);
        failures++;
    }
}

/* WINDOW sends at once, received after a barrier, the last tag first. */
static void window(int rank, unsigned char *sbuf, unsigned char *rbuf, size_t n, unsigned seed)
{
    MPI_Request req[WINDOW];
    MPI_Status st[WINDOW];
    for (int i = 0; i < WINDOW; i++) {
        if (rank == 0) {
            fill(sbuf + (size_t)i * n, n, seed + (unsigned)i);
            MPI_Isend(sbuf + (size_t)i * n, (int)n, MPI_BYTE, 1, 10 + i, MPI_COMM_WORLD, &req[i]);
        } else {
            memset(rbuf + (size_t)i * n, 0, n);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1)
        for (int i = WINDOW - 1; i >= 0; i--)
            MPI_Irecv(rbuf + (size_t)i * n, (int)n, MPI_BYTE, 0, 10 + i, MPI_COMM_WORLD, &req[i]);
    MPI_Waitall(WINDOW, req, st);
    if (rank == 1)
        for (int i = 0; i < WINDOW; i++)
            check_message(rbuf + (size_t)i * n, n, seed + (unsigned)i, &st[i], "window");
}

/* Both send first, then receive: completes only if the sends are eager. */
static void both_send_first(int rank, unsigned char *sbuf, unsigned char *rbuf, size_t n,
                            unsigned seed)
{
    fill(sbuf, n, seed + (unsigned)rank);
    memset(rbuf, 0, n);
    MPI_Status st;
    MPI_Send(sbuf, (int)n, MPI_BYTE, 1 - rank, 3, MPI_COMM_WORLD);
    MPI_Recv(rbuf, (int)n, MPI_BYTE, 1 - rank, 3, MPI_COMM_WORLD, &st);
    check_message(rbuf, n, seed + (unsigned)(1 - rank), &st, "eager send");
}

static int add_around(size_t *sizes, int k, uint64_t b)
{
    for (uint64_t s = b ? b - 1 : 0; s <= b + 1 && k < MAX_SIZES; s++)
        sizes[k++] = (size_t)s;
    return k;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nprocs;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc < 6 || nprocs != 2) {
        fprintf(stderr, "usage: p2p_sizes IMMEDIATE SINGLE_COPY CMA_MIN STAGE SYNERGY [nocma] "
                        "(2 processes)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    immediate = strtoull(argv[1], NULL, 0);
    single_copy = strtoull(argv[2], NULL, 0);
    cma_min = strtoull(argv[3], NULL, 0);
    stage = strtoull(argv[4], NULL, 0);
    synergy = strtoull(argv[5], NULL, 0);
    cma = !(argc > 6 && !strcmp(argv[6], "nocma")) && ptrace_open();
    CHECK(wisp_node_size() == 2);

    size_t sizes[MAX_SIZES];
    int k = 0;
    uint64_t edges[] = {0,    16,          48,        64,      1008,  2048,
                        4096, single_copy, immediate, cma_min, stage, synergy};
    for (size_t e = 0; e < sizeof edges / sizeof *edges; e++)
        k = add_around(sizes, k, edges[e]);
    size_t max = 0;
    for (int i = 0; i < k; i++)
        max = sizes[i] > max ? sizes[i] : max;

    unsigned char *priv_s = map(max * WINDOW), *priv_r = map(max * WINDOW);
    unsigned char *heap_s, *heap_r;
    MPI_Alloc_mem((MPI_Aint)(max * WINDOW), MPI_INFO_NULL, &heap_s);
    MPI_Alloc_mem((MPI_Aint)(max * WINDOW), MPI_INFO_NULL, &heap_r);
    CHECK(wisp_heap_contains(heap_s) && !wisp_heap_contains(priv_s));

    unsigned seed = 1;
    for (int i = 0; i < k; i++) {
        size_t n = sizes[i];
        for (int hs = 0; hs < 2; hs++)
            for (int hr = 0; hr < 2; hr++)
                for (int sync = 0; sync < 2; sync++)
                    one(rank, hs ? heap_s : priv_s, hr ? heap_r : priv_r, n, hs, hr, sync, seed++);
        int windows = n * WINDOW <= ((size_t)4 << 20); /* the synergy sizes: one at a time */
        for (int hs = 0; hs < 2 && windows; hs++, seed += WINDOW)
            window(rank, hs ? heap_s : priv_s, priv_r, n, seed);
        for (int hs = 0; hs < 2 && n <= stage; hs++, seed += 2)
            both_send_first(rank, hs ? heap_s : priv_s, priv_r, n, seed);
    }
    MPI_Free_mem(heap_s);
    MPI_Free_mem(heap_r);
    munmap(priv_s, max * WINDOW);
    munmap(priv_r, max * WINDOW);
    MPI_Finalize();
    return failures != 0;
}
