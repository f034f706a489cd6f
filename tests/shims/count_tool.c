/*
 * A profiling-interface tool of the smallest kind, as mpiP or a site's
 * monitor would be: it counts the application's MPI_Send calls (and those
 * on a communicator other than MPI_COMM_WORLD, where the test program sends
 * none) and prints them at MPI_Finalize with its rank and the world's size,
 * which its PMPI_ calls ask (with ghosts, the application's world must
 * answer). Beside libwisp in tests/tool_order.sh.
 */
#include <mpi.h>
#include <stdio.h>

#define EXPORT __attribute__((visibility("default"))) /* the build hides by default */

static long sends, elsewhere;

EXPORT int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    sends++;
    elsewhere += comm != MPI_COMM_WORLD;
    return PMPI_Send(buf, count, type, dest, tag, comm);
}

EXPORT int MPI_Finalize(void)
{
    int rank = -1, size = -1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    printf("count_tool: rank %d of %d: %ld MPI_Send, %ld elsewhere\n", rank, size, sends,
           elsewhere);
    fflush(stdout);
    return PMPI_Finalize();
}
