/*
 * The MPI's own collectives, for the calls wisp does not serve: with the
 * waiting wildcard receives lent to the MPI around them (src/p2p/lend/lend.h),
 * and the large-count form where the caller came through one (`large`;
 * an MPI without them has no such entry point).
 */
#ifndef WISP_COLL_MPI_H
#define WISP_COLL_MPI_H

#include <mpi.h>
#include <stdbool.h>

#include "coll/area.h"
#include "p2p/p2p.h"
#include "wisp_have.h"

#pragma GCC visibility push(hidden)

/* Around every call of the MPI's that serves the user's collective (here,
 * mpi_more.h, and the layer's files): counted, the waiting wildcard
 * receives lent. */
static inline bool wisp_coll_mpi_enter(void)
{
    wisp_coll_count(&wisp_coll.passed);
    return wisp_p2p_lend();
}
static inline int wisp_coll_mpi_leave(bool lent, int rc)
{
    if (lent)
        wisp_p2p_reclaim();
    return rc;
}

static inline int wisp_coll_mpi_barrier(MPI_Comm comm)
{
    bool lent = wisp_coll_mpi_enter();
    int rc = PMPI_Barrier(comm);
    return wisp_coll_mpi_leave(lent, rc);
}

static inline int wisp_coll_mpi_bcast(void *buffer, MPI_Count count, MPI_Datatype type, int root,
                                      MPI_Comm comm, bool large)
{
    bool lent = wisp_coll_mpi_enter();
    int rc;
#ifdef WISP_HAVE_MPI_Bcast_c
    if (large)
        rc = PMPI_Bcast_c(buffer, count, type, root, comm);
    else
#endif
        rc = PMPI_Bcast(buffer, (int)count, type, root, comm);
    (void)large;
    return wisp_coll_mpi_leave(lent, rc);
}

static inline int wisp_coll_mpi_reduce(const void *sendbuf, void *recvbuf, MPI_Count count,
                                       MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm,
                                       bool large)
{
    bool lent = wisp_coll_mpi_enter();
    int rc;
#ifdef WISP_HAVE_MPI_Reduce_c
    if (large)
        rc = PMPI_Reduce_c(sendbuf, recvbuf, count, type, op, root, comm);
    else
#endif
        rc = PMPI_Reduce(sendbuf, recvbuf, (int)count, type, op, root, comm);
    (void)large;
    return wisp_coll_mpi_leave(lent, rc);
}

static inline int wisp_coll_mpi_allreduce(const void *sendbuf, void *recvbuf, MPI_Count count,
                                          MPI_Datatype type, MPI_Op op, MPI_Comm comm, bool large)
{
    bool lent = wisp_coll_mpi_enter();
    int rc;
#ifdef WISP_HAVE_MPI_Allreduce_c
    if (large)
        rc = PMPI_Allreduce_c(sendbuf, recvbuf, count, type, op, comm);
    else
#endif
        rc = PMPI_Allreduce(sendbuf, recvbuf, (int)count, type, op, comm);
    (void)large;
    return wisp_coll_mpi_leave(lent, rc);
}

#pragma GCC visibility pop

#endif
