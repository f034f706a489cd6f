/* MPI_Dist_graph_create: a new communicator gets a context of the engine (collective). */
#include "p2p/p2p.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[],
                                    const int degrees[], const int destinations[],
                                    const int weights[], MPI_Info info, int reorder,
                                    MPI_Comm *comm_dist_graph)
{
    int rc = PMPI_Dist_graph_create(comm_old, n, sources, degrees, destinations, weights, info,
                                    reorder, comm_dist_graph);
    return rc == MPI_SUCCESS ? wisp_p2p_comm_created(*comm_dist_graph) : rc;
}
