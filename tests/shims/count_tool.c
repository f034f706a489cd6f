/*
 * A profiling-interface tool of the smallest kind, as mpiP or a site's
 * monitor would be: it counts the application's MPI_Send calls (and those
 * on a communicator other than MPI_COMM_WORLD, where the test program sends
 * none) and prints the counts at MPI_Finalize. Preloaded beside libwisp by
 * tests/tool_order.sh.
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
    int rank = -1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("count_tool: rank %d: %ld MPI_Send, %ld elsewhere\n", rank, sends, elsewhere);
    fflush(stdout);
    return PMPI_Finalize();
}
