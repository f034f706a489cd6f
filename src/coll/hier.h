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
 *
 * Its nonblocking barrier, broadcast, reduce and allreduce (nb.h) run the
 * same stages on a coroutine, the leaders' through the MPI's nonblocking
 * collective on `leaders`, which the coroutine tests at each move
 * (wisp_coll_hier_finish) and never waits in. Two rules make that safe:
 *   - order: the MPI's collectives on `leaders` must start in the same
 *     order in every leader. A communicator's nonblocking collectives run
 *     one after another in the order started (its queue, nb.h), and a
 *     blocking one first drains the queue: so a leader starts its stages
 *     in the order of the user's calls, which is every member's;
 *   - threads: whoever moves the coroutine calls the MPI, the rescuer
 *     included while the application blocks in a call the MPI serves alone
 *     (an MPI_Comm_dup that needs a peer that waits for this collective
 *     first: without the leaders' stage moving there the job would hang).
 *     So they are wisp's only where the MPI runs at MPI_THREAD_MULTIPLE in
 *     every member (`nb`, agreed at the set-up), and only under
 *     WISP_COLL=on (slower than the MPI's at 8 B on a quiet node, view.c);
 *     elsewhere the MPI's.
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
    /* The nonblocking forms are wisp's: the MPI is MPI_THREAD_MULTIPLE in
     * every member (above). */
    bool nb;
};

/* Collective over `c`, which spans nodes: HIER (c->hier set) or MPI. */
enum wisp_coll_state wisp_coll_hier_setup(struct wisp_coll_comm *c);
void wisp_coll_hier_free(struct wisp_coll_hier *h);

/* The leaders' stage of a nonblocking collective, in its coroutine: `rc`
 * and `*request` as the MPI's nonblocking call on `leaders` left them; waits
 * until the request completes, testing it at each move and going back to
 * the mover between (wisp_coll_wait_for). The MPI's error code. */
int wisp_coll_hier_finish(int rc, MPI_Request *request);

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
