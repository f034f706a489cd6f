/*
 * Setting up and letting go of a communicator that spans nodes (hier.h).
 */
#include "coll/hier.h"

#include <stdlib.h>
#include <string.h>

#include "coll/area.h"
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
    /* Whether some member failed, the most members on one node, and
     * whether some member's MPI runs below MPI_THREAD_MULTIPLE (the MPI's,
     * not the level the application was given: wisp's threads call it). */
    int level = MPI_THREAD_SINGLE;
    PMPI_Query_thread(&level);
    int agreed[3] = {!ok || !kept, h.node.size, level != MPI_THREAD_MULTIPLE};
    PMPI_Allreduce(MPI_IN_PLACE, agreed, 3, MPI_INT, MPI_MAX, c->handle);
    if (agreed[0] || agreed[1] == 1) {
        release(&h);
        free(kept);
        return WISP_COLL_MPI;
    }
    *kept = h;
    kept->where = (int *)(kept + 1);
    kept->nb = !agreed[2];
    PMPI_Allgather(mine, 2, MPI_INT, kept->where, 2, MPI_INT, c->handle);
    c->hier = kept;
    return WISP_COLL_HIER;
}

void wisp_coll_hier_free(struct wisp_coll_hier *h)
{
    release(h);
    free(h);
}

struct leaders_wait {
    MPI_Request *request;
    int rc;
};

static bool leaders_done(void *arg)
{
    struct leaders_wait *w = arg;
    int flag = 0;
    w->rc = PMPI_Test(w->request, &flag, MPI_STATUS_IGNORE);
    return flag || w->rc != MPI_SUCCESS;
}

int wisp_coll_hier_finish(int rc, MPI_Request *request)
{
    if (rc != MPI_SUCCESS)
        return rc;
    struct leaders_wait w = {request, MPI_SUCCESS};
    wisp_coll_wait_for(leaders_done, &w);
    return w.rc;
}
