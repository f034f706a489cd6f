/*
 * A communicator whose members are on several (virtual) nodes (hier.c).
 *
 * Its collectives run in stages: on each node through the node's part of
 * the communicator, which has an area of its own (area.h); between the
 * nodes through the MPI, on a communicator of the nodes' first members (the
 * leaders); and on each node again. So the heap serves what stays on a node
 * and the MPI only what crosses nodes, once per node rather than once per
 * process. Every stage's reduction folds in a fixed order (the node's in
 * rank order, the leaders' the MPI's, the same for the same layout): the
 * members of a node get the same bits, and the same layout the same bits
 * from run to run.
 *
 * Set up at the communicator's first collectives after WISP_COLL_AFTER
 * (collective: two MPI_Comm_split, one MPI_Bcast on each node, one
 * MPI_Allreduce and one MPI_Allgather), and only where it gains: some node
 * holds two members or more, and every node's part got its area. Otherwise
 * the communicator is the MPI's, alike in every member.
 */
#ifndef WISP_COLL_HIER_H
#define WISP_COLL_HIER_H

#include <mpi.h>
#include <stdbool.h>

#include "coll/area.h"

#pragma GCC visibility push(hidden)

struct wisp_coll_hier {
    /* This member's node: the view of the node's part (AREA), or one of a
     * single member (size 1, no area). */
    struct wisp_coll_comm node;
    MPI_Comm leaders; /* the nodes' first members; MPI_COMM_NULL elsewhere */
    /* Per member r of the communicator: where[2r], the rank in `leaders` of
     * its node's first member; where[2r + 1], its rank on its node. */
    int *where;
};

/* Collective over `c`, which spans nodes: HIER (c->hier set) or MPI. */
enum wisp_coll_state wisp_coll_hier_setup(struct wisp_coll_comm *c);
void wisp_coll_hier_free(struct wisp_coll_hier *h);

static inline bool wisp_coll_hier_leader(const struct wisp_coll_hier *h)
{
    return h->leaders != MPI_COMM_NULL;
}
/* The rank in `leaders` of member r's node's first member, and r's rank on
 * its node. */
static inline int wisp_coll_hier_leader_of(const struct wisp_coll_hier *h, int r)
{
    return h->where[2 * r];
}
static inline int wisp_coll_hier_node_rank_of(const struct wisp_coll_hier *h, int r)
{
    return h->where[2 * r + 1];
}
/* Is member r on this member's node? */
static inline bool wisp_coll_hier_here(const struct wisp_coll_hier *h, int me, int r)
{
    return h->where[2 * r] == h->where[2 * me];
}

#pragma GCC visibility pop

#endif
