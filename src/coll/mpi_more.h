/*
 * The MPI's own all-to-alls, reduce-scatters and scans, for the calls wisp
 * does not serve (alltoall.c, reduce_scatter.c, scan.c), as mpi.h's: with
 * the waiting wildcard receives lent to the MPI around them, and the
 * large-count form where the caller came through one (`large`: the arrays
 * of counts are then MPI_Count, of displacements MPI_Aint).
 */
#ifndef WISP_COLL_MPI_MORE_H
#define WISP_COLL_MPI_MORE_H

#include <mpi.h>
#include <stdbool.h>

#include "coll/area.h"
#include "coll/mpi.h"
#include "wisp_have.h"

#pragma GCC visibility push(hidden)

static inline int wisp_coll_mpi_alltoall(const void *sendbuf, MPI_Count sendcount,
                                         MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                                         MPI_Datatype recvtype, MPI_Comm comm, bool large)
{
    bool lent = wisp_coll_mpi_enter();
#ifdef WISP_HAVE_MPI_Alltoall_c
    if (large)
        return wisp_coll_mpi_leave(lent, PMPI_Alltoall_c(sendbuf, sendcount, sendtype, recvbuf,
                                                         recvcount, recvtype, comm));
#endif
    (void)large;
    return wisp_coll_mpi_leave(lent, PMPI_Alltoall(sendbuf, (int)sendcount, sendtype, recvbuf,
                                                   (int)recvcount, recvtype, comm));
}

static inline int wisp_coll_mpi_alltoallv(const void *sendbuf, const void *sendcounts,
                                          const void *sdispls, MPI_Datatype sendtype, void *recvbuf,
                                          const void *recvcounts, const void *rdispls,
                                          MPI_Datatype recvtype, MPI_Comm comm, bool large)
{
    bool lent = wisp_coll_mpi_enter();
#ifdef WISP_HAVE_MPI_Alltoallv_c
    if (large)
        return wisp_coll_mpi_leave(lent,
                                   PMPI_Alltoallv_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                                    recvcounts, rdispls, recvtype, comm));
#endif
    (void)large;
    return wisp_coll_mpi_leave(lent, PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                                    recvcounts, rdispls, recvtype, comm));
}

static inline int wisp_coll_mpi_alltoallw(const void *sendbuf, const void *sendcounts,
                                          const void *sdispls, const MPI_Datatype *sendtypes,
                                          void *recvbuf, const void *recvcounts,
                                          const void *rdispls, const MPI_Datatype *recvtypes,
                                          MPI_Comm comm, bool large)
{
    bool lent = wisp_coll_mpi_enter();
#ifdef WISP_HAVE_MPI_Alltoallw_c
    if (large)
        return wisp_coll_mpi_leave(lent,
                                   PMPI_Alltoallw_c(sendbuf, sendcounts, sdispls, sendtypes,
                                                    recvbuf, recvcounts, rdispls, recvtypes, comm));
#endif
    (void)large;
    return wisp_coll_mpi_leave(lent, PMPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes,
                                                    recvbuf, recvcounts, rdispls, recvtypes, comm));
}

static inline int wisp_coll_mpi_reduce_scatter_block(const void *sendbuf, void *recvbuf,
                                                     MPI_Count recvcount, MPI_Datatype type,
                                                     MPI_Op op, MPI_Comm comm, bool large)
{
    bool lent = wisp_coll_mpi_enter();
#ifdef WISP_HAVE_MPI_Reduce_scatter_block_c
    if (large)
        return wisp_coll_mpi_leave(
            lent, PMPI_Reduce_scatter_block_c(sendbuf, recvbuf, recvcount, type, op, comm));
#endif
    (void)large;
    return wisp_coll_mpi_leave(
        lent, PMPI_Reduce_scatter_block(sendbuf, recvbuf, (int)recvcount, type, op, comm));
}

static inline int wisp_coll_mpi_reduce_scatter(const void *sendbuf, void *recvbuf,
                                               const void *recvcounts, MPI_Datatype type, MPI_Op op,
                                               MPI_Comm comm, bool large)
{
    bool lent = wisp_coll_mpi_enter();
#ifdef WISP_HAVE_MPI_Reduce_scatter_c
    if (large)
        return wisp_coll_mpi_leave(
            lent, PMPI_Reduce_scatter_c(sendbuf, recvbuf, recvcounts, type, op, comm));
#endif
    (void)large;
    return wisp_coll_mpi_leave(lent,
                               PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm));
}

/* `exclusive`: MPI_Exscan. */
static inline int wisp_coll_mpi_scan(const void *sendbuf, void *recvbuf, MPI_Count count,
                                     MPI_Datatype type, MPI_Op op, MPI_Comm comm, bool exclusive,
                                     bool large)
{
    bool lent = wisp_coll_mpi_enter();
    int rc;
#if defined(WISP_HAVE_MPI_Scan_c) && defined(WISP_HAVE_MPI_Exscan_c)
    if (large)
        rc = exclusive ? PMPI_Exscan_c(sendbuf, recvbuf, count, type, op, comm)
                       : PMPI_Scan_c(sendbuf, recvbuf, count, type, op, comm);
    else
#endif
        rc = exclusive ? PMPI_Exscan(sendbuf, recvbuf, (int)count, type, op, comm)
                       : PMPI_Scan(sendbuf, recvbuf, (int)count, type, op, comm);
    (void)large;
    return wisp_coll_mpi_leave(lent, rc);
}

#pragma GCC visibility pop

#endif
