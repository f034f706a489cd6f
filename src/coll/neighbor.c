/*
 * MPI_Neighbor_allgather and MPI_Neighbor_alltoall through wisp's
 * point-to-point engine (src/p2p): one send to each out-neighbour and one
 * receive from each in-neighbour, on a duplicate of the communicator that
 * only this layer uses (its tags never meet the program's), waited for
 * together. Between processes of a node the engine moves each block once,
 * from the sender's layout to the receiver's (single copy where the send
 * buffer is in the shared heap); to other nodes it hands them to the MPI.
 *
 * The neighbours, in the MPI's order, come from the topology (topo.h).
 *
 * The decision (alike in the members that exchange blocks): a communicator
 * with a topology that the engine serves, and blocks of at least
 * WISP_COLL_NEIGHBOR bytes; anything else is the MPI's, with the waiting
 * wildcard receives lent to it around the call.
 */
#include <limits.h>
#include <stdlib.h>

#include "coll/area.h"
#include "coll/coll.h"
#include "coll/mpi.h"
#include "coll/topo.h"
#include "coll/view.h"
#include "p2p/p2p.h"
#include "wisp_have.h"

/* The view's neighbours, made at the first call; NULL: the MPI's. */
static struct wisp_coll_neighbors *neighbors_of(MPI_Comm comm)
{
    struct wisp_coll_comm *c = wisp_coll_view_here(comm);
    if (!c)
        return NULL;
    if (!c->neighbors_tried) {
        c->neighbors_tried = true;
        c->neighbors = wisp_coll_neighbors_make(comm);
    }
    return c->neighbors && wisp_p2p_serves(c->neighbors->dup) ? c->neighbors : NULL;
}

/* Block k of `count` elements of `type` at `buf`. */
static const char *block(const void *buf, MPI_Count count, MPI_Datatype type, int k)
{
    MPI_Aint lb, extent;
    PMPI_Type_get_extent(type, &lb, &extent);
    return (const char *)buf + (MPI_Aint)k * (MPI_Aint)count * extent;
}

/* Every receive, then every send (each of `all` or of block k of
 * `sendbuf`), then the wait for all. */
static int exchange(struct wisp_coll_neighbors *n, const void *sendbuf, MPI_Count sendcount,
                    MPI_Datatype sendtype, bool all, void *recvbuf, MPI_Count recvcount,
                    MPI_Datatype recvtype)
{
    enum { ON_STACK = 64 };
    MPI_Request stack[ON_STACK], *reqs = stack;
    int total = n->in + n->out, posted = 0, rc = MPI_SUCCESS;
    if (total > ON_STACK && !(reqs = malloc(sizeof *reqs * (size_t)total)))
        return MPI_ERR_NO_MEM;
    for (int k = 0; k < n->in && rc == MPI_SUCCESS; k++)
        if (n->sources[k] != MPI_PROC_NULL)
            rc = wisp_p2p_irecv((void *)block(recvbuf, recvcount, recvtype, k), recvcount, recvtype,
                                n->sources[k], 0, n->dup, &reqs[posted++]);
    for (int k = 0; k < n->out && rc == MPI_SUCCESS; k++)
        if (n->dests[k] != MPI_PROC_NULL)
            rc = wisp_p2p_isend(all ? sendbuf : block(sendbuf, sendcount, sendtype, k), sendcount,
                                sendtype, n->dests[k], 0, n->dup, WISP_P2P_STANDARD,
                                &reqs[posted++]);
    if (rc != MPI_SUCCESS)
        posted--; /* the failed one made no request */
    int waited = wisp_p2p_waitall_mixed(posted, reqs, MPI_STATUSES_IGNORE, false, NULL, false);
    if (reqs != stack)
        free(reqs);
    return rc != MPI_SUCCESS ? rc : waited;
}

/* Blocks of at least WISP_COLL_NEIGHBOR bytes, sent or received. Alike in
 * every pair of neighbours where each is the other's source and
 * destination: all of a process's sources send it blocks of its receive
 * size, so two neighbours weigh the same two sizes. A distributed graph
 * may be one-way: there the size cannot decide, and every call goes
 * through the engine. */
static bool worth(const struct wisp_coll_neighbors *n, MPI_Count sendcount, MPI_Datatype sendtype,
                  MPI_Count recvcount, MPI_Datatype recvtype)
{
    int ssize, rsize;
    if (sendcount < 0 || recvcount < 0 || PMPI_Type_size(sendtype, &ssize) != MPI_SUCCESS ||
        PMPI_Type_size(recvtype, &rsize) != MPI_SUCCESS || ssize == MPI_UNDEFINED ||
        rsize == MPI_UNDEFINED)
        return false;
    uint64_t sent = (uint64_t)sendcount * (uint64_t)ssize;
    uint64_t received = (uint64_t)recvcount * (uint64_t)rsize;
    return !n->symmetric || (sent > received ? sent : received) >= wisp_coll.neighbor_min;
}

static int mpi_neighbor(bool all, const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                        bool large)
{
    bool lent = wisp_coll_mpi_enter();
    int rc;
    (void)large;
#if defined(WISP_HAVE_MPI_Neighbor_allgather_c) && defined(WISP_HAVE_MPI_Neighbor_alltoall_c)
    if (large)
        rc = all ? PMPI_Neighbor_allgather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                             recvtype, comm)
                 : PMPI_Neighbor_alltoall_c(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                            recvtype, comm);
    else
#endif
        rc = all ? PMPI_Neighbor_allgather(sendbuf, (int)sendcount, sendtype, recvbuf,
                                           (int)recvcount, recvtype, comm)
                 : PMPI_Neighbor_alltoall(sendbuf, (int)sendcount, sendtype, recvbuf,
                                          (int)recvcount, recvtype, comm);
    return wisp_coll_mpi_leave(lent, rc);
}

static int neighbor(bool all, const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                    void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                    bool large)
{
    /* The neighbours first, whatever the size: their set-up is collective. */
    struct wisp_coll_neighbors *n = wisp_coll.on ? neighbors_of(comm) : NULL;
    if (!n || !worth(n, sendcount, sendtype, recvcount, recvtype))
        return mpi_neighbor(all, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                            large);
    wisp_coll_count(&wisp_coll.served);
    int rc = exchange(n, sendbuf, sendcount, sendtype, all, recvbuf, recvcount, recvtype);
    if (rc != MPI_SUCCESS)
        PMPI_Comm_call_errhandler(comm, rc);
    return rc;
}

int wisp_coll_neighbor_allgather(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                 MPI_Comm comm, bool large)
{
    return neighbor(true, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, large);
}

int wisp_coll_neighbor_alltoall(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                MPI_Comm comm, bool large)
{
    return neighbor(false, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, large);
}
