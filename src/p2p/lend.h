/*
 * Lending's share of the engine (lend.c): a waiting message copied aside,
 * and a message's route to the MPI.
 */
#ifndef WISP_P2P_LEND_H
#define WISP_P2P_LEND_H

#include <stdbool.h>

#include "p2p/types.h"

#pragma GCC visibility push(hidden)

/* Done with a message of the ring/slot transport that no one will read (lend.c). */
void wisp_p2p_msg_drop(struct wisp_p2p_msg *msg);
/* Copy unexpected rendezvous message `msg` into a private buffer that takes
 * its place, so that its sender completes (match.c says when); false, the
 * message left as it was, where there is no memory for the copy. Lock held. */
bool wisp_p2p_spill(struct wisp_p2p_msg *msg);
/* Receive `req` matched `copy` while it fills: FILLING -> TAKEN. */
void wisp_p2p_copy_take(struct wisp_p2p_msg *copy, struct wisp_p2p_req *req);
/* The copy is filled: -> WHOLE; returns the state it left. */
enum wisp_p2p_copy wisp_p2p_copy_whole(struct wisp_p2p_msg *copy);
/* Earlier message `earlier` of synchronous `msg`'s sender goes to the MPI
 * before it: HERE -> QUEUED (match.c, before wisp_p2p_forward). */
void wisp_p2p_route_queue(struct wisp_p2p_msg *earlier, struct wisp_p2p_msg *msg);
/* Ask the sender of unexpected synchronous message `msg` to send it through
 * the MPI (match.c says when), after the earlier messages of the same
 * sender queued before it (wisp_p2p_route_queue), handed back to it in
 * batches as records free up; each stays among the unexpected ones,
 * routed. Lock held. */
void wisp_p2p_forward(struct wisp_p2p_msg *msg);
/* A receive takes routed `msg`: true if it was recalled (not sent to
 * the MPI yet: it is a rendezvous or returned message again), false if it
 * must be received from the MPI (then drop it). Lock held, from a thread
 * that may call the MPI. */
bool wisp_p2p_forward_recall(struct wisp_p2p_msg *msg);
/* Senders that sent a batch of records: the next batch; true if any. */
bool wisp_p2p_name_next_batches(void);

#pragma GCC visibility pop

#endif
