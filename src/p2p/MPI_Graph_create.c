/* MPI_Graph_create: a new communicator gets a context of the engine (collective). */
#include "p2p/p2p.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                               int reorder, MPI_Comm *comm_graph)
{
    int rc = PMPI_Graph_create(comm_old, nnodes, index, edges, reorder, comm_graph);
    return rc == MPI_SUCCESS ? wisp_p2p_comm_created(*comm_graph) : rc;
}
