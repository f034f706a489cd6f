/*
 * wisp: a runtime that makes MPI fast on many-core nodes, loaded under an
 * unmodified MPI application (LD_PRELOAD=libwisp-<mpi>.so, or -lwisp-<mpi> before
 * the MPI; <mpi> is mpich or openmpi).
 *
 * An unmodified MPI application needs none of this header. It lets a
 * program or a tool ask what wisp sees: which processes share its node (a
 * virtual node when WISP_VNODE_SIZE is set) and what the machine offers;
 * and a program that runs user-level threads (wisp_ult_*, WISP_THREAD_ULT
 * below) needs it: such a program compiles with wisp's include directory
 * and links with -lwisp-<mpi> (pkg-config --cflags --libs wisp-<mpi>, or
 * CMake's wisp::wisp; docs/ult.md).
 */
#ifndef WISP_H
#define WISP_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

#define WISP_API __attribute__((visibility("default")))

/** @return wisp's version, e.g. "0.1.0". */
WISP_API const char *wisp_version(void);

/** @return this process's rank among the processes of its node, or -1
 *  outside MPI_Init ... MPI_Finalize. Node ranks follow world ranks. */
WISP_API int wisp_node_rank(void);

/** @return the number of processes on this process's node, or -1 outside
 *  MPI_Init ... MPI_Finalize. */
WISP_API int wisp_node_size(void);

/** @return the index of this process's node, 0 .. wisp_node_count() - 1;
 *  nodes are numbered in the order of their lowest world rank. -1 outside
 *  MPI_Init ... MPI_Finalize. */
WISP_API int wisp_node_id(void);

/** @return the number of nodes of the job, or -1 outside MPI_Init ... MPI_Finalize. */
WISP_API int wisp_node_count(void);

/** @param node_rank a rank in 0 .. wisp_node_size() - 1.
 *  @return the MPI_COMM_WORLD rank of that process, or -1 if node_rank is out
 *  of range or wisp is not initialized. */
WISP_API int wisp_node_peer(int node_rank);

/** @return a communicator over the processes of this node, ordered by node
 *  rank; owned by wisp (do not free it), MPI_COMM_NULL outside
 *  MPI_Init ... MPI_Finalize. */
WISP_API MPI_Comm wisp_node_comm(void);

/** @return the number of cores of this machine (hwloc), 0 before MPI_Init. */
WISP_API int wisp_machine_cores(void);

/** @return the number of NUMA nodes of this machine (hwloc), 0 before MPI_Init. */
WISP_API int wisp_machine_numa_nodes(void);

/** @return the number of cores this process is allowed to run on (its
 *  binding), 0 before MPI_Init. */
WISP_API int wisp_bound_cores(void);

/** @return 1 if `p` points into the node's shared heap (memory that every
 *  process of the node can reach at the same address: what the malloc family
 *  and MPI_Alloc_mem return between MPI_Init and MPI_Finalize unless
 *  WISP_SHM=off or the partition was full), else 0. */
WISP_API int wisp_heap_contains(const void *p);

/** @return a counter of the point-to-point messages this process received
 *  from processes of its node through wisp's shared memory: `name` is one of
 *  "immediate", "staged", "single_copy", "synergistic", "self" (messages by
 *  protocol), "copies" (copies their payloads took, the sender's included:
 *  1 per single-copy or synergistic message, 2 per other) or "bytes";
 *  or "mpi_allocations", the malloc family's calls from the MPI's own code
 *  that the shared heap left to glibc (WISP_HEAP_MPI; counted only with
 *  WISP_STATS); 0 for another name. */
WISP_API unsigned long long wisp_shm_counter(const char *name);

/** @return a counter of the datatype engine's idle threads inside parallel
 *  regions (docs/datatypes.md, libomp's OMPT): `name` is "shared_inside"
 *  (packs, unpacks and copies that threads parked at a barrier were offered),
 *  "parked_ranges" or "parked_bytes" (the ranges and bytes those threads
 *  did); 0 for another name. */
WISP_API unsigned long long wisp_dt_counter(const char *name);

/** @return a counter of the node's collectives (docs/coll.md): `name` is
 *  "served" (MPI_Barrier, MPI_Bcast, MPI_Reduce and MPI_Allreduce calls that
 *  wisp ran through the shared heap) or "passed" (calls of those four that
 *  went to the MPI), or "no_room" (persistent collectives whose lane found no
 *  room in the shared heap: the MPI's own request runs their rounds); 0 for
 *  another name. */
WISP_API unsigned long long wisp_coll_counter(const char *name);

/* ---- user-level threads (docs/ult.md) ---------------------------------
 *
 * Many user-level threads (ULTs) run on few kernel threads; a blocking MPI
 * call made in a ULT yields to the others while it waits. The API works
 * with or without MPI_Init. ULTs placed on the thread that first used the
 * API run while that thread yields, joins or waits in MPI; with
 * WISP_ULT_THREADS=N, N - 1 threads of wisp run the others. */

/** A user-level thread, from wisp_ult_fork until wisp_ult_join. */
typedef struct wisp_ult *wisp_ult_t;

/** Ask MPI_Init_thread for this level to run many ULTs that call MPI on
 *  one kernel thread: wisp takes no lock on entry, asks the MPI for
 *  MPI_THREAD_SERIALIZED (MPI_THREAD_MULTIPLE with WISP_ULT_THREADS > 1),
 *  converts blocking collectives where every process asked for it, and
 *  returns this level in `provided` (so `provided` is 22357, 0x5755, when
 *  it is granted: compare it with WISP_THREAD_ULT, not with MPI_THREAD_*;
 *  a lower MPI_THREAD_* level if the MPI gave less than wisp needs).
 *  MPI_Query_thread answers the same. */
#define WISP_THREAD_ULT 0x5755

/** Start `fn(arg)` in a new ULT (its stack: WISP_ULT_STACK bytes).
 *  @return 0, EINVAL (no fn or ult, or a bad WISP_ULT_* value, printed on
 *  stderr), or ENOMEM. */
WISP_API int wisp_ult_fork(void (*fn)(void *), void *arg, wisp_ult_t *ult);

/** Wait until `ult` has returned, running the other ULTs of this thread
 *  meanwhile, and free it. Each ULT is joined exactly once.
 *  @return 0, EINVAL (NULL), EDEADLK (the caller itself), or ESRCH (in the
 *  child of fork(), a ULT of the parent other than the caller: like the
 *  parent's other threads, it does not run in the child). */
WISP_API int wisp_ult_join(wisp_ult_t ult);

/** Let the next ready ULT of this kernel thread run; returns at once when
 *  there is none. */
WISP_API void wisp_ult_yield(void);

/** @return the calling ULT, or NULL outside one. */
WISP_API wisp_ult_t wisp_ult_self(void);

/** @return the number of kernel threads that run ULTs (starting them), 0 if
 *  they cannot start. */
WISP_API int wisp_ult_threads(void);

#ifdef __cplusplus
}
#endif

#endif
