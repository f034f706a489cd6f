/*
 * The node's collectives (src/coll), as the routes see them (routes.def):
 * the blocking collectives of intracommunicators, and the neighbour
 * allgather and alltoall. Each call runs through the communicator's area in
 * the shared heap (area.h tells how) when every process of the
 * communicator is on this (virtual) node and wisp can serve the call
 * (predefined operations on predefined types; any type for data that is
 * only moved); Barrier, Bcast, Reduce and Allreduce of a communicator that
 * spans nodes run in stages (hier.h); the neighbour collectives go through
 * the point-to-point engine (neighbor.c). Otherwise a call goes to the MPI,
 * with the waiting wildcard receives lent to it around the call, as p2p's
 * routes marked `lend` do (src/p2p/lend/lend.h). The decision depends only
 * on what every member passes alike (the communicator, the data's size,
 * the type of a reduction, the operation, the root), so every member takes
 * the same path. docs/coll.md has the algorithms, the decision and its
 * figures.
 */
#ifndef WISP_COLL_COLL_H
#define WISP_COLL_COLL_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

int wisp_coll_barrier(MPI_Comm comm);
int wisp_coll_bcast(void *buffer, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm,
                    bool large);
int wisp_coll_reduce(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type,
                     MPI_Op op, int root, MPI_Comm comm, bool large);
int wisp_coll_allreduce(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type,
                        MPI_Op op, MPI_Comm comm, bool large);

/* The counts and displacements of a vector collective: MPI_X's int arrays
 * or MPI_X_c's large-count ones, the other pair NULL (routes.def). */
struct wisp_coll_vec {
    const int *counts, *displs;
    const MPI_Count *lcounts;
    const MPI_Aint *ldispls;
    bool large; /* MPI_X_c's */
};
static inline struct wisp_coll_vec wisp_coll_vec(const int *counts, const int *displs)
{
    return (struct wisp_coll_vec){counts, displs, NULL, NULL, false};
}
static inline struct wisp_coll_vec wisp_coll_vec_c(const MPI_Count *counts, const MPI_Aint *displs)
{
    return (struct wisp_coll_vec){NULL, NULL, counts, displs, true};
}

int wisp_coll_gather(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                     bool large);
int wisp_coll_gatherv(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, struct wisp_coll_vec recv, MPI_Datatype recvtype, int root,
                      MPI_Comm comm);
int wisp_coll_scatter(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                      MPI_Comm comm, bool large);
int wisp_coll_scatterv(const void *sendbuf, struct wisp_coll_vec send, MPI_Datatype sendtype,
                       void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                       MPI_Comm comm);
int wisp_coll_allgather(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                        bool large);
int wisp_coll_allgatherv(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                         void *recvbuf, struct wisp_coll_vec recv, MPI_Datatype recvtype,
                         MPI_Comm comm);

/* MPI_Alltoall(v, w), MPI_Reduce_scatter(_block), MPI_Scan, MPI_Exscan
 * (alltoall.c, reduce_scatter.c, scan.c). The arrays of counts and
 * displacements are MPI_X's int ones, or MPI_X_c's MPI_Count and MPI_Aint
 * ones where `large`. */
int wisp_coll_alltoall(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                       bool large);
int wisp_coll_alltoallv(const void *sendbuf, const void *sendcounts, const void *sdispls,
                        MPI_Datatype sendtype, void *recvbuf, const void *recvcounts,
                        const void *rdispls, MPI_Datatype recvtype, MPI_Comm comm, bool large);
int wisp_coll_alltoallw(const void *sendbuf, const void *sendcounts, const void *sdispls,
                        const MPI_Datatype *sendtypes, void *recvbuf, const void *recvcounts,
                        const void *rdispls, const MPI_Datatype *recvtypes, MPI_Comm comm,
                        bool large);
int wisp_coll_reduce_scatter_block(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                   MPI_Datatype type, MPI_Op op, MPI_Comm comm, bool large);
int wisp_coll_reduce_scatter(const void *sendbuf, void *recvbuf, const void *recvcounts,
                             MPI_Datatype type, MPI_Op op, MPI_Comm comm, bool large);
int wisp_coll_scan(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type,
                   MPI_Op op, MPI_Comm comm, bool large);
int wisp_coll_exscan(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type,
                     MPI_Op op, MPI_Comm comm, bool large);

int wisp_coll_neighbor_allgather(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                 MPI_Comm comm, bool large);
int wisp_coll_neighbor_alltoall(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                MPI_Comm comm, bool large);

/* MPI_Ibarrier, MPI_Ibcast, MPI_Ireduce, MPI_Iallreduce,
 * MPI_Ireduce_scatter(_block), MPI_Iscan, MPI_Iexscan (nb.h): on a
 * communicator whose area is set up, wisp's algorithms on coroutines. */
int wisp_coll_ibarrier(MPI_Comm comm, MPI_Request *request);
int wisp_coll_ibcast(void *buffer, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm,
                     MPI_Request *request, bool large);
int wisp_coll_ireduce(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type,
                      MPI_Op op, int root, MPI_Comm comm, MPI_Request *request, bool large);
int wisp_coll_iallreduce(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type,
                         MPI_Op op, MPI_Comm comm, MPI_Request *request, bool large);
int wisp_coll_ireduce_scatter_block(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                    MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                                    MPI_Request *request, bool large);
int wisp_coll_ireduce_scatter(const void *sendbuf, void *recvbuf, const void *recvcounts,
                              MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request *request,
                              bool large);
int wisp_coll_iscan(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type,
                    MPI_Op op, MPI_Comm comm, MPI_Request *request, bool large);
int wisp_coll_iexscan(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type,
                      MPI_Op op, MPI_Comm comm, MPI_Request *request, bool large);
/* MPI_Igather(v), MPI_Iscatter(v), MPI_Iallgather(v) and MPI_Ialltoall(v, w)
 * (gather.c, scatter.c, allgather.c, alltoall.c): the blocking forms'
 * decisions and algorithms, blocks packed at the start and unpacked in the
 * user's call that completes them. */
int wisp_coll_igather(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                      MPI_Comm comm, MPI_Request *request, bool large);
int wisp_coll_igatherv(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, struct wisp_coll_vec recv, MPI_Datatype recvtype, int root,
                       MPI_Comm comm, MPI_Request *request);
int wisp_coll_iscatter(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                       MPI_Comm comm, MPI_Request *request, bool large);
int wisp_coll_iscatterv(const void *sendbuf, struct wisp_coll_vec send, MPI_Datatype sendtype,
                        void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                        MPI_Comm comm, MPI_Request *request);
int wisp_coll_iallgather(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                         void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                         MPI_Request *request, bool large);
int wisp_coll_iallgatherv(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                          void *recvbuf, struct wisp_coll_vec recv, MPI_Datatype recvtype,
                          MPI_Comm comm, MPI_Request *request);
int wisp_coll_ialltoall(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                        MPI_Request *request, bool large);
int wisp_coll_ialltoallv(const void *sendbuf, const void *sendcounts, const void *sdispls,
                         MPI_Datatype sendtype, void *recvbuf, const void *recvcounts,
                         const void *rdispls, MPI_Datatype recvtype, MPI_Comm comm,
                         MPI_Request *request, bool large);
int wisp_coll_ialltoallw(const void *sendbuf, const void *sendcounts, const void *sdispls,
                         const MPI_Datatype *sendtypes, void *recvbuf, const void *recvcounts,
                         const void *rdispls, const MPI_Datatype *recvtypes, MPI_Comm comm,
                         MPI_Request *request, bool large);

/* MPI_Barrier_init, MPI_Bcast_init, MPI_Reduce_init, MPI_Allreduce_init,
 * MPI_Reduce_scatter(_block)_init, MPI_Scan_init, MPI_Exscan_init
 * (persist.h): where the nonblocking form is wisp's, a lane of the
 * communicator's own per request; defined where the MPI declares them. */
int wisp_coll_barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request);
int wisp_coll_bcast_init(void *buffer, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm,
                         MPI_Info info, MPI_Request *request, bool large);
int wisp_coll_reduce_init(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type,
                          MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request,
                          bool large);
int wisp_coll_allreduce_init(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type,
                             MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request,
                             bool large);
int wisp_coll_reduce_scatter_block_init(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                        MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                        MPI_Request *request, bool large);
int wisp_coll_reduce_scatter_init(const void *sendbuf, void *recvbuf, const void *recvcounts,
                                  MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request, bool large);
int wisp_coll_scan_init(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type,
                        MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request, bool large);
int wisp_coll_exscan_init(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type,
                          MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request,
                          bool large);

/* MPI_Gather(v)_init, MPI_Scatter(v)_init, MPI_Allgather(v)_init,
 * MPI_Alltoall(v, w)_init (and their _c forms): the nonblocking forms'
 * algorithms through lanes (persist.h). */
int wisp_coll_gather_init(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                          void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                          MPI_Comm comm, MPI_Info info, MPI_Request *request, bool large);
int wisp_coll_gatherv_init(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                           void *recvbuf, struct wisp_coll_vec recv, MPI_Datatype recvtype,
                           int root, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int wisp_coll_scatter_init(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                           void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                           MPI_Comm comm, MPI_Info info, MPI_Request *request, bool large);
int wisp_coll_scatterv_init(const void *sendbuf, struct wisp_coll_vec send, MPI_Datatype sendtype,
                            void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                            MPI_Comm comm, MPI_Info info, MPI_Request *request);
int wisp_coll_allgather_init(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                             void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                             MPI_Comm comm, MPI_Info info, MPI_Request *request, bool large);
int wisp_coll_allgatherv_init(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void *recvbuf, struct wisp_coll_vec recv, MPI_Datatype recvtype,
                              MPI_Comm comm, MPI_Info info, MPI_Request *request);
int wisp_coll_alltoall_init(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                            void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                            MPI_Comm comm, MPI_Info info, MPI_Request *request, bool large);
int wisp_coll_alltoallv_init(const void *sendbuf, const void *sendcounts, const void *sdispls,
                             MPI_Datatype sendtype, void *recvbuf, const void *recvcounts,
                             const void *rdispls, MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Info info, MPI_Request *request, bool large);
int wisp_coll_alltoallw_init(const void *sendbuf, const void *sendcounts, const void *sdispls,
                             const MPI_Datatype *sendtypes, void *recvbuf, const void *recvcounts,
                             const void *rdispls, const MPI_Datatype *recvtypes, MPI_Comm comm,
                             MPI_Info info, MPI_Request *request, bool large);

/* The component's start and stop (core/component.h; start.c). */
void wisp_coll_start(int thread_level);
void wisp_coll_stop(void);
/* "served" (calls through the heap), "passed" (calls of the four that
 * went to the MPI) or "no_room" (persistent requests whose lane found no
 * room, persist.h); 0 for another name (wisp.h's wisp_coll_counter). */
uint64_t wisp_coll_counter_of(const char *name);

#pragma GCC visibility pop

#endif
