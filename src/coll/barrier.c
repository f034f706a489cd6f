/*
 * MPI_Barrier through the area: one phase, every member publishes it and
 * waits until every other one has (area.h). Across nodes (hier.h): every
 * node's leader waits for its node, the leaders meet in the MPI's barrier,
 * and each leader then releases its node; MPI_Ibarrier the same on a
 * coroutine, the leaders through the MPI's MPI_Ibarrier (hier.h).
 */
#include "coll/area.h"
#include "coll/coll.h"
#include "coll/hier.h"
#include "coll/mpi.h"
#include "coll/nb.h"
#include "coll/persist.h"
#include "coll/node.h"
#include "coll/view.h"
#include "p2p/p2p.h"

void wisp_coll_arrive_all(struct wisp_coll_comm *c)
{
    uint64_t p = wisp_coll_next(c);
    wisp_coll_publish(c, p);
    wisp_coll_wait_all(c, p);
}

/* `nb`: in a nonblocking barrier's coroutine. */
static int barrier_across(struct wisp_coll_hier *h, bool nb)
{
    struct wisp_coll_comm *node = h->node.size > 1 ? &h->node : NULL;
    bool leader = wisp_coll_hier_leader(h);
    uint64_t arrived = 0;
    if (node) {
        arrived = wisp_coll_next(node);
        wisp_coll_publish(node, arrived);
        if (leader)
            wisp_coll_wait_all(node, arrived);
    }
    int rc = MPI_SUCCESS;
    if (leader && nb) {
        MPI_Request req = MPI_REQUEST_NULL;
        rc = wisp_coll_hier_finish(PMPI_Ibarrier(h->leaders, &req), &req);
    } else if (leader) {
        bool lent = wisp_p2p_lend();
        rc = PMPI_Barrier(h->leaders);
        if (lent)
            wisp_p2p_reclaim();
    }
    if (node) { /* the release: a member leaves once its leader published */
        wisp_coll_publish(node, arrived + 1);
        if (!leader)
            wisp_coll_wait(node, 0, arrived + 1);
    }
    return rc;
}

int wisp_coll_barrier(MPI_Comm comm)
{
    struct wisp_coll_comm *c = wisp_coll.on ? wisp_coll_view(comm) : NULL;
    if (!c)
        return wisp_coll_mpi_barrier(comm);
    wisp_coll_count(&wisp_coll.served);
    if (c->hier)
        return barrier_across(c->hier, false);
    wisp_coll_arrive_all(c);
    return MPI_SUCCESS;
}

static void arrive_all(struct wisp_coll_comm *c, void *unused)
{
    (void)unused;
    if (c->hier) {
        int rc = barrier_across(c->hier, true);
        if (rc != MPI_SUCCESS)
            wisp_coll_nb_error(rc);
        return;
    }
    wisp_coll_arrive_all(c);
}

int wisp_coll_ibarrier(MPI_Comm comm, MPI_Request *request)
{
    struct wisp_coll_comm *c = wisp_coll_view_nb_across(comm);
    if (!c)
        return PMPI_Ibarrier(comm, request);
    wisp_coll_count(&wisp_coll.served);
    return wisp_coll_nb_begin(c, arrive_all, NULL, NULL, request);
}

#ifdef WISP_HAVE_MPI_Barrier_init
static const struct wisp_coll_persist_ops barrier_persist = {.run = arrive_all};

/* The MPI's request first: the user's where wisp does not serve the call,
 * else its lane's backup (persist.h); so in every MPI_*_init. */
int wisp_coll_barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int rc = PMPI_Barrier_init(comm, info, request);
    struct wisp_coll_comm *c = rc == MPI_SUCCESS ? wisp_coll_view_nb(comm) : NULL;
    if (!c)
        return rc;
    return wisp_coll_persist_init(c, &barrier_persist, NULL, request);
}
#endif
