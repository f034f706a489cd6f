/*
 * A program linked with -lwisp instead of run with LD_PRELOAD: wisp must
 * still take over MPI_Init (so its queries answer), serve malloc and
 * MPI_Alloc_mem from the shared heap with nothing set in the environment,
 * and pass everything else through. Prints "linked: ok" when it does.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "wisp.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, sum = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    char *p = malloc(1 << 16);
    void *mem = NULL;
    MPI_Alloc_mem(1 << 16, MPI_INFO_NULL, &mem);
    int heap = wisp_heap_contains(p) && wisp_heap_contains(mem);
    free(p);
    MPI_Free_mem(mem);
    int ok = wisp_node_size() == size && wisp_node_rank() == rank && sum == size * (size - 1) / 2;
    if (!heap)
        fprintf(stderr, "rank %d: the shared heap does not serve\n", rank);
    ok = ok && heap;
    MPI_Finalize();
    if (rank == 0)
        printf("linked: %s (wisp %s)\n", ok ? "ok" : "FAILED", wisp_version());
    return !ok;
}
