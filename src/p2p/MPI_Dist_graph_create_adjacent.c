/* MPI_Dist_graph_create_adjacent: a new communicator gets a context of the engine (collective). */
#include "p2p/p2p.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                             const int sourceweights[], int outdegree,
                                             const int destinations[], const int destweights[],
                                             MPI_Info info, int reorder, MPI_Comm *comm_dist_graph)
{
    int rc =
        PMPI_Dist_graph_create_adjacent(comm_old, indegree, sources, sourceweights, outdegree,
                                        destinations, destweights, info, reorder, comm_dist_graph);
    return rc == MPI_SUCCESS ? wisp_p2p_comm_created(*comm_dist_graph) : rc;
}
