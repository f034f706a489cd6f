/*
 * Matching, with MPI's rules (match.c): per communicator, posted receives
 * and unexpected local messages, and the `remote` queues of receives that
 * wait for the MPI behind wildcards.
 */
#ifndef WISP_P2P_MATCH_H
#define WISP_P2P_MATCH_H

#include <mpi.h>
#include <stdbool.h>

#include "p2p/state.h"
#include "p2p/types.h"

#pragma GCC visibility push(hidden)

/* A message arrived from a local sender (or self): match or queue it. */
void wisp_p2p_incoming(struct wisp_p2p_comm *comm, struct wisp_p2p_msg *msg);
/* A message in a ring, matched before it is copied out: NULL if no posted
 * receive takes it. */
struct wisp_p2p_req *wisp_p2p_match_posted(struct wisp_p2p_comm *comm, int source, int tag);
/* Give a matched message to a receive (copies, or starts the rendezvous). */
void wisp_p2p_deliver(struct wisp_p2p_req *req, struct wisp_p2p_msg *msg);
/* Set the receive's destination from its buffer, count and type. */
int wisp_p2p_recv_prepare(struct wisp_p2p_req *req);
/* The receive finished copying: unpack, complete (recv.c). */
void wisp_p2p_recv_finish(struct wisp_p2p_req *req);
/* Post a receive (req->peer may be MPI_ANY_SOURCE). */
int wisp_p2p_recv_start(struct wisp_p2p_req *req);
/* Hand receives blocked behind wildcards to the MPI when allowed (inline:
 * every progress pass asks, and mostly none wait). */
bool wisp_p2p_remote_pass(void);
static inline bool wisp_p2p_remote_advance(void)
{
    return wisp_p2p_remote_waiting() && wisp_p2p_remote_pass();
}
/* Around a blocking call that only the MPI serves (a collective): post the
 * receives waiting in `remote` queues to the MPI (true if any), and take
 * them back afterwards (match.c explains). Inline: every such call asks (a
 * program that polls MPI_Win_flush_local_all, millions of times), and
 * mostly nothing is in flight. */
bool wisp_p2p_lend_waiting(void);
static inline bool wisp_p2p_lend(void)
{
    return wisp_p2p_busy() && wisp_p2p_lend_waiting();
}
void wisp_p2p_reclaim(void);
/* Is lent receive `req` complete (another thread tests it while the
 * blocking call of the thread that lent it goes on)? Then it is wisp's
 * again, done. */
bool wisp_p2p_lent_test(struct wisp_p2p_req *req);
/* Probe the MPI (MPI_Iprobe, or MPI_Improbe with `message`) on a
 * communicator whose `remote` queue is not empty: a message that an
 * earlier receive waiting there matches goes to it, not to the probe. */
int wisp_p2p_probe_remote(struct wisp_p2p_comm *comm, int source, int tag, int *flag,
                          MPI_Message *message, MPI_Status *status);
/* Probe: the first matching unexpected local message, or NULL. */
struct wisp_p2p_msg *wisp_p2p_probe_local(struct wisp_p2p_comm *comm, int source, int tag);
/* Cancel a receive not yet matched; false when too late. */
bool wisp_p2p_recv_cancel(struct wisp_p2p_req *req);
/* Spill every unexpected rendezvous message from node rank `from` (the
 * synchronous ones complete at their match all the same), whose slots it
 * needs for sends waiting behind them (match.c). Lock held. */
void wisp_p2p_spill_held(int from);
/* The copy of wisp_p2p_spill is whole: `fill` is done (match.c). Lock held. */
void wisp_p2p_spilled(struct wisp_p2p_req *fill);

#pragma GCC visibility pop

#endif
