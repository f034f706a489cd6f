/*
 * Counts above INT_MAX (MPI-4's large-count functions, MPI_Send_c ...)
 * between processes of one node: wisp must carry them itself, since the
 * receiver looks for a local sender only in wisp's queues (they once went
 * to the MPI, where a receive with a large count waited forever for a
 * small message that wisp carried).
 *   small: an 8-byte MPI_Send into an MPI_Recv_c with a count of 3 Gi
 *          (a buffer reserved, never touched beyond the message);
 *   big:   INT_MAX + 4097 bytes by MPI_Isend_c / MPI_Recv_c, every byte checked.
 * Open MPI 4.1 has no large-count functions: the program checks nothing there.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "../check.h"

#if MPI_VERSION >= 4
static unsigned char pattern(MPI_Count i)
{
    return (unsigned char)(i * 2654435761u >> 13);
}

static void *reserve(MPI_Count bytes)
{
    void *p = mmap(NULL, (size_t)bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static void small_into_large(int rank)
{
    const MPI_Count cap = 3ll << 30;
    if (rank == 0) {
        uint64_t v = 0x1122334455667788u;
        CHECK(MPI_Send(&v, 8, MPI_BYTE, 1, 7, MPI_COMM_WORLD) == MPI_SUCCESS);
    } else if (rank == 1) {
        unsigned char *buf = reserve(cap);
        MPI_Status st;
        MPI_Count n = -1;
        CHECK(MPI_Recv_c(buf, cap, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
        MPI_Get_count_c(&st, MPI_BYTE, &n);
        CHECK(n == 8 && *(uint64_t *)buf == 0x1122334455667788u);
        munmap(buf, (size_t)cap);
    }
}

static void big(int rank)
{
    const MPI_Count n = (MPI_Count)INT32_MAX + 4097;
    unsigned char *buf = reserve(n);
    if (!buf) {
        fprintf(stderr, "cannot reserve %lld bytes\n", (long long)n);
        failures++;
        return;
    }
    if (rank == 0) {
        for (MPI_Count i = 0; i < n; i++)
            buf[i] = pattern(i);
        MPI_Request req;
        CHECK(MPI_Isend_c(buf, n, MPI_BYTE, 1, 8, MPI_COMM_WORLD, &req) == MPI_SUCCESS);
        CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    } else if (rank == 1) {
        MPI_Status st;
        MPI_Count got = -1, bad = 0;
        CHECK(MPI_Recv_c(buf, n, MPI_BYTE, 0, 8, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
        MPI_Get_count_c(&st, MPI_BYTE, &got);
        CHECK(got == n);
        for (MPI_Count i = 0; i < n; i++)
            bad += buf[i] != pattern(i);
        CHECK(bad == 0);
    }
    munmap(buf, (size_t)n);
}
#endif

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#if MPI_VERSION >= 4
    small_into_large(rank);
    big(rank);
#endif
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("large_count: %s\n", all ? "FAILED" : "ok");
    MPI_Finalize();
    return all != 0;
}
