/*
 * Matching, with MPI's rules (match.c): per communicator, posted receives
 * and unexpected local messages, and the `remote` queues of receives that
 * wait for the MPI behind wildcards. Lending those receives to the MPI
 * around a blocking call is lend/lend.h's story; its files use the queues
 * through the second part below.
 */
#ifndef WISP_P2P_MATCH_H
#define WISP_P2P_MATCH_H

#include <mpi.h>
#include <stdbool.h>

#include "p2p/queues.h"
#include "p2p/state.h"
#include "p2p/types.h"

#pragma GCC visibility push(hidden)

/* A message arrived from a local sender (or self): match or queue it (the
 * engine's callback wisp_p2p_up.incoming, state.h). */
void wisp_p2p_incoming(struct wisp_p2p_comm *comm, struct wisp_p2p_msg *msg);
/* Give a matched message to a receive (copies, or starts the rendezvous). */
void wisp_p2p_deliver(struct wisp_p2p_req *req, struct wisp_p2p_msg *msg);
/* Set the receive's destination from its buffer, count and type. */
int wisp_p2p_recv_prepare(struct wisp_p2p_req *req);
/* Post a new receive (req->peer may be MPI_ANY_SOURCE). */
int wisp_p2p_recv_start(struct wisp_p2p_req *req);
/* Hand receives blocked behind wildcards to the MPI when allowed (inline:
 * every progress pass asks, and mostly none wait). */
bool wisp_p2p_remote_pass(void);
static inline bool wisp_p2p_remote_advance(void)
{
    return wisp_p2p_remote_waiting() && wisp_p2p_remote_pass();
}
/* Probe the MPI (MPI_Iprobe, or MPI_Improbe with `message`) on a
 * communicator whose `remote` queue is not empty: a message that an
 * earlier receive waiting there matches goes to it, not to the probe. */
int wisp_p2p_probe_remote(struct wisp_p2p_comm *comm, int source, int tag, int *flag,
                          MPI_Message *message, MPI_Status *status);
/* Probe: the first matching unexpected local message, or NULL. */
struct wisp_p2p_msg *wisp_p2p_probe_local(struct wisp_p2p_comm *comm, int source, int tag);
/* Cancel a receive not yet matched and not lent (a lent one:
 * wisp_p2p_lent_cancel); false when too late. */
bool wisp_p2p_recv_cancel(struct wisp_p2p_req *req);

/* ---- the queues, for lending (lend/; their lists are queues.h's) ---------- */

/* Is `source` a member of `comm` on this node? */
static inline bool wisp_p2p_local_source(const struct wisp_p2p_comm *comm, int source)
{
    return source >= 0 && source < comm->size && comm->node_of[source] >= 0;
}
/* Receive `req` is the MPI's now: out of `posted` and/or `remote`. */
void wisp_p2p_hand_over(struct wisp_p2p_req *req);
/* Post receive `req` to the MPI for a message from `source` with `tag`. */
int wisp_p2p_post_to_mpi(struct wisp_p2p_req *req, int source, int tag);

#pragma GCC visibility pop

#endif
