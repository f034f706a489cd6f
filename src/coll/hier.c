/*
 * Setting up and letting go of a communicator that spans nodes (hier.h).
 */
#include "coll/hier.h"

#include <stdlib.h>
#include <string.h>

#include "core/topo.h"

/* Let go of what set-up made: the node's area, the two communicators. */
static void release(struct wisp_coll_hier *h)
{
    wisp_coll_area_leave(&h->node);
    PMPI_Comm_free(&h->node.handle);
    if (h->leaders != MPI_COMM_NULL)
        PMPI_Comm_free(&h->leaders);
}

enum wisp_coll_state wisp_coll_hier_setup(struct wisp_coll_comm *c)
{
    if (wisp_topo.node_rank < 0)
        return WISP_COLL_MPI; /* no topology: alike in every member */
    /* Made here, kept on the heap only once every member agreed. */
    struct wisp_coll_hier h = {.leaders = MPI_COMM_NULL};
    PMPI_Comm_split(c->handle, wisp_topo.node_id, c->rank, &h.node.handle);
    PMPI_Comm_rank(h.node.handle, &h.node.rank);
    PMPI_Comm_size(h.node.handle, &h.node.size);
    PMPI_Comm_split(c->handle, h.node.rank == 0 ? 0 : MPI_UNDEFINED, c->rank, &h.leaders);
    int mine[2] = {-1, h.node.rank};
    if (h.leaders != MPI_COMM_NULL)
        PMPI_Comm_rank(h.leaders, &mine[0]);
    bool ok = true;
    if (h.node.size > 1) {
        PMPI_Bcast(&mine[0], 1, MPI_INT, 0, h.node.handle);
        h.node.state = wisp_coll_area_setup(&h.node, true);
        ok = h.node.state == WISP_COLL_AREA;
    }
    struct wisp_coll_hier *kept = malloc(sizeof *kept + sizeof(int) * 2 * (size_t)c->size);
    /* Whether some member failed, and the most members on one node. */
    int agreed[2] = {!ok || !kept, h.node.size};
    PMPI_Allreduce(MPI_IN_PLACE, agreed, 2, MPI_INT, MPI_MAX, c->handle);
    if (agreed[0] || agreed[1] == 1) {
        release(&h);
        free(kept);
        return WISP_COLL_MPI;
    }
    *kept = h;
    kept->where = (int *)(kept + 1);
    PMPI_Allgather(mine, 2, MPI_INT, kept->where, 2, MPI_INT, c->handle);
    c->hier = kept;
    return WISP_COLL_HIER;
}

void wisp_coll_hier_free(struct wisp_coll_hier *h)
{
    release(h);
    free(h);
}
