/*
 * The persistent collectives of MPI-4 (MPI_Barrier_init, MPI_Bcast_init,
 * MPI_Reduce_init, MPI_Allreduce_init, MPI_Reduce_scatter(_block)_init,
 * MPI_Scan_init, MPI_Exscan_init), where the MPI has them: a persistent
 * request of the engine's (kind ABOVE) that keeps the call's arguments;
 * each MPI_Start makes the nonblocking call with them (nb.h), whose request
 * is the round's (`child`): wisp's where wisp serves the communicator then,
 * the MPI's MPI_I* elsewhere. Every member starts its rounds in the same
 * order (MPI's rule), and the nonblocking routes decide on what every
 * member passes alike, so every round takes the same path everywhere.
 *
 * The MPI's own persistent request, made at the init with the same
 * arguments, is kept as the request's anchor: it holds the communicator,
 * the types and the operation for as long as the request lives (the user
 * may free them after the init), and it checks the arguments as the MPI
 * does.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"
#include "core/log.h"
#include "p2p/lock.h"
#include "p2p/p2p.h"
#include "wisp_have.h"

enum kind { BARRIER, BCAST, REDUCE, ALLREDUCE, REDUCE_SCATTER_BLOCK, REDUCE_SCATTER, SCAN, EXSCAN };

/* A persistent collective's arguments (the engine's request keeps them). */
struct persistent {
    enum kind kind;
    const void *sendbuf;
    void *recvbuf; /* MPI_Bcast_init's buffer */
    MPI_Count count;
    const void *counts; /* MPI_Reduce_scatter_init's, int or MPI_Count */
    MPI_Datatype type;
    MPI_Op op;
    int root;
    MPI_Comm comm;
    bool large;
};

/* MPI_Start of one of them (wisp_p2p_above_persistent). */
static int start_round(void *arg, MPI_Request *round)
{
    const struct persistent *p = arg;
    switch (p->kind) {
    case BARRIER:
        return wisp_coll_ibarrier(p->comm, round);
    case BCAST:
        return wisp_coll_ibcast(p->recvbuf, p->count, p->type, p->root, p->comm, round, p->large);
    case REDUCE:
        return wisp_coll_ireduce(p->sendbuf, p->recvbuf, p->count, p->type, p->op, p->root, p->comm,
                                 round, p->large);
    case ALLREDUCE:
        return wisp_coll_iallreduce(p->sendbuf, p->recvbuf, p->count, p->type, p->op, p->comm,
                                    round, p->large);
    case REDUCE_SCATTER_BLOCK:
        return wisp_coll_ireduce_scatter_block(p->sendbuf, p->recvbuf, p->count, p->type, p->op,
                                               p->comm, round, p->large);
    case REDUCE_SCATTER:
        return wisp_coll_ireduce_scatter(p->sendbuf, p->recvbuf, p->counts, p->type, p->op, p->comm,
                                         round, p->large);
    case SCAN:
        return wisp_coll_iscan(p->sendbuf, p->recvbuf, p->count, p->type, p->op, p->comm, round,
                               p->large);
    case EXSCAN:
        return wisp_coll_iexscan(p->sendbuf, p->recvbuf, p->count, p->type, p->op, p->comm, round,
                                 p->large);
    }
    return MPI_ERR_INTERN;
}

/* The MPI made its own request (`rc`, `anchor`): wisp's keeps it and `p`,
 * and a copy of MPI_Reduce_scatter_init's counts, which the caller may free
 * once the init returns, as the MPI reads them there (mpi4py does: its
 * Reduce_scatter_init keeps no counts). (Unused where the MPI has none of
 * these functions: Open MPI 4.1.) */
__attribute__((unused)) static int keep(int rc, MPI_Request anchor, struct persistent p,
                                        MPI_Request *request)
{
    if (rc != MPI_SUCCESS) {
        *request = anchor;
        return rc;
    }
    size_t counts = 0;
    if (p.counts) {
        int n = 0;
        PMPI_Comm_size(p.comm, &n);
        counts = (size_t)n * (p.large ? sizeof(MPI_Count) : sizeof(int));
    }
    struct persistent *kept = malloc(sizeof *kept + counts); /* freed with the request */
    if (!kept) {
        wisp_log_error("a persistent collective: no memory");
        PMPI_Abort(p.comm, 1);
    }
    *kept = p;
    if (counts)
        kept->counts = memcpy(kept + 1, p.counts, counts);
    wisp_p2p_lock();
    wisp_p2p_above_persistent(kept, start_round, p.comm, anchor, request);
    wisp_p2p_unlock();
    return MPI_SUCCESS;
}

#ifdef WISP_HAVE_MPI_Barrier_init
int wisp_coll_barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    MPI_Request anchor = MPI_REQUEST_NULL;
    int rc = PMPI_Barrier_init(comm, info, &anchor);
    return keep(rc, anchor, (struct persistent){.kind = BARRIER, .comm = comm}, request);
}
#endif

#ifdef WISP_HAVE_MPI_Bcast_init
int wisp_coll_bcast_init(void *buffer, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm,
                         MPI_Info info, MPI_Request *request, bool large)
{
    MPI_Request anchor = MPI_REQUEST_NULL;
    int rc;
#ifdef WISP_HAVE_MPI_Bcast_init_c
    if (large)
        rc = PMPI_Bcast_init_c(buffer, count, type, root, comm, info, &anchor);
    else
#endif
        rc = PMPI_Bcast_init(buffer, (int)count, type, root, comm, info, &anchor);
    return keep(rc, anchor,
                (struct persistent){.kind = BCAST,
                                    .recvbuf = buffer,
                                    .count = count,
                                    .type = type,
                                    .root = root,
                                    .comm = comm,
                                    .large = large},
                request);
}
#endif

#ifdef WISP_HAVE_MPI_Reduce_init
int wisp_coll_reduce_init(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type,
                          MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request,
                          bool large)
{
    MPI_Request anchor = MPI_REQUEST_NULL;
    int rc;
#ifdef WISP_HAVE_MPI_Reduce_init_c
    if (large)
        rc = PMPI_Reduce_init_c(sendbuf, recvbuf, count, type, op, root, comm, info, &anchor);
    else
#endif
        rc = PMPI_Reduce_init(sendbuf, recvbuf, (int)count, type, op, root, comm, info, &anchor);
    return keep(rc, anchor,
                (struct persistent){.kind = REDUCE,
                                    .sendbuf = sendbuf,
                                    .recvbuf = recvbuf,
                                    .count = count,
                                    .type = type,
                                    .op = op,
                                    .root = root,
                                    .comm = comm,
                                    .large = large},
                request);
}
#endif

/* MPI_Allreduce_init, MPI_Reduce_scatter_block_init, MPI_Scan_init and
 * MPI_Exscan_init take the same arguments. */
#define REDUCTION_INIT(fn, mpi, kind_)                                                             \
    int fn(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type, MPI_Op op,      \
           MPI_Comm comm, MPI_Info info, MPI_Request *request, bool large)                         \
    {                                                                                              \
        MPI_Request anchor = MPI_REQUEST_NULL;                                                     \
        int rc = large ? mpi##_c(sendbuf, recvbuf, count, type, op, comm, info, &anchor)           \
                       : mpi(sendbuf, recvbuf, (int)count, type, op, comm, info, &anchor);         \
        return keep(rc, anchor,                                                                    \
                    (struct persistent){.kind = kind_,                                             \
                                        .sendbuf = sendbuf,                                        \
                                        .recvbuf = recvbuf,                                        \
                                        .count = count,                                            \
                                        .type = type,                                              \
                                        .op = op,                                                  \
                                        .comm = comm,                                              \
                                        .large = large},                                           \
                    request);                                                                      \
    }
#ifdef WISP_HAVE_MPI_Allreduce_init_c
REDUCTION_INIT(wisp_coll_allreduce_init, PMPI_Allreduce_init, ALLREDUCE)
REDUCTION_INIT(wisp_coll_reduce_scatter_block_init, PMPI_Reduce_scatter_block_init,
               REDUCE_SCATTER_BLOCK)
REDUCTION_INIT(wisp_coll_scan_init, PMPI_Scan_init, SCAN)
REDUCTION_INIT(wisp_coll_exscan_init, PMPI_Exscan_init, EXSCAN)
#endif

#ifdef WISP_HAVE_MPI_Reduce_scatter_init
int wisp_coll_reduce_scatter_init(const void *sendbuf, void *recvbuf, const void *recvcounts,
                                  MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request, bool large)
{
    MPI_Request anchor = MPI_REQUEST_NULL;
    int rc;
#ifdef WISP_HAVE_MPI_Reduce_scatter_init_c
    if (large)
        rc =
            PMPI_Reduce_scatter_init_c(sendbuf, recvbuf, recvcounts, type, op, comm, info, &anchor);
    else
#endif
        rc = PMPI_Reduce_scatter_init(sendbuf, recvbuf, recvcounts, type, op, comm, info, &anchor);
    return keep(rc, anchor,
                (struct persistent){.kind = REDUCE_SCATTER,
                                    .sendbuf = sendbuf,
                                    .recvbuf = recvbuf,
                                    .counts = recvcounts,
                                    .type = type,
                                    .op = op,
                                    .comm = comm,
                                    .large = large},
                request);
}
#endif
