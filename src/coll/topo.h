/*
 * A communicator's neighbours, from its topology (topo.c), as its
 * neighbour collectives (neighbor.c) need them: made at its first one,
 * kept in its view, freed with it.
 *
 * The neighbours and the order of their blocks are the MPI's (MPI-4.1
 * section 8.6): a Cartesian communicator's are, for each dimension, the
 * one below and the one above (MPI_Cart_shift by 1; MPI_PROC_NULL where
 * there is none); a graph's, its neighbours in order; a distributed
 * graph's, its sources and its destinations. Where a process is a
 * neighbour twice (a repeated edge; a periodic dimension of one or two
 * processes), the MPIs match the messages between the two in orders of
 * their own (MPICH 4.0.2's graph neighbour collectives not in the order
 * posted), so such a communicator is the MPI's: every member agrees, in
 * one MPI_Allreduce when the neighbours are found.
 */
#ifndef WISP_COLL_TOPO_H
#define WISP_COLL_TOPO_H

#include <mpi.h>
#include <stdbool.h>

#pragma GCC visibility push(hidden)

struct wisp_coll_neighbors {
    MPI_Comm dup; /* wisp's own duplicate, which the engine serves */
    int in, out;  /* degrees */
    int *sources, *dests;
    bool symmetric; /* every neighbour both a source and a destination */
};

/* Collective over `comm` (the duplicate, the agreement): NULL where the
 * communicator has no topology, a process is a neighbour twice or some
 * member ran out of memory (the MPI's then, alike in every member). */
struct wisp_coll_neighbors *wisp_coll_neighbors_make(MPI_Comm comm);
void wisp_coll_neighbors_free(struct wisp_coll_neighbors *n);

#pragma GCC visibility pop

#endif
