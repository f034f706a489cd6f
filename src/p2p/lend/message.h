/*
 * Lending, a waiting message's side (message.c), for the other files of
 * this folder: a message for a lent receive unblocks its sender, copied
 * aside or routed to the MPI (lend.h tells the story).
 */
#ifndef WISP_P2P_LEND_MESSAGE_H
#define WISP_P2P_LEND_MESSAGE_H

#include <stdbool.h>

#include "p2p/types.h"

#pragma GCC visibility push(hidden)

/* Is `msg` a copy whose bytes are still on their way? */
static inline bool wisp_p2p_copy_filling(const struct wisp_p2p_msg *msg)
{
    return msg->lend.copy != WISP_P2P_COPY_NONE && msg->lend.copy != WISP_P2P_COPY_WHOLE;
}

/* Is `msg` on its way to the MPI (any route but HERE)? */
static inline bool wisp_p2p_routed(const struct wisp_p2p_msg *msg)
{
    return msg->lend.route != WISP_P2P_ROUTE_HERE;
}

/* Rendezvous message `msg`, queued, belongs to a lent receive: copy it
 * aside or forward it, so that its sender does not wait for it. Lock held. */
void wisp_p2p_unblock_sender(struct wisp_p2p_comm *comm, struct wisp_p2p_msg *msg);
/* Copy unexpected rendezvous message `msg` into a private buffer that takes
 * its place, so that its sender completes; false, the message left as it
 * was, where there is no memory for the copy. Lock held. */
bool wisp_p2p_spill(struct wisp_p2p_msg *msg);
/* Receive `req` matched `copy` while it fills: FILLING -> TAKEN. */
void wisp_p2p_copy_take(struct wisp_p2p_msg *copy, struct wisp_p2p_req *req);
/* The copy is filled: -> WHOLE; returns the state it left. */
enum wisp_p2p_copy wisp_p2p_copy_whole(struct wisp_p2p_msg *copy);
/* Ask the sender of unexpected synchronous message `msg` to send it through
 * the MPI, after the earlier messages of the same sender queued before it
 * (wisp_p2p_route_queue), handed back to it in batches as records free up;
 * each stays among the unexpected ones, routed. Lock held. */
void wisp_p2p_forward(struct wisp_p2p_msg *msg);
/* Earlier message `earlier` of synchronous `msg`'s sender goes to the MPI
 * before it: HERE -> QUEUED (before wisp_p2p_forward). */
void wisp_p2p_route_queue(struct wisp_p2p_msg *earlier, struct wisp_p2p_msg *msg);
/* A receive takes routed `msg`: true if it was recalled (not sent to
 * the MPI yet: it is a rendezvous or returned message again), false if it
 * must be received from the MPI (then drop it). Lock held, from a thread
 * that may call the MPI. */
bool wisp_p2p_forward_recall(struct wisp_p2p_msg *msg);
/* Senders that sent a batch of records: the next batch; true if any. */
bool wisp_p2p_name_next_batches(void);
/* No one will read marked message `msg` (WISP_P2P_LEND_DROPPED): true if
 * lending keeps it (a copy still filling: freed when whole). */
bool wisp_p2p_lend_drop(struct wisp_p2p_msg *msg);
/* The MPI gave a message of local `source` with `tag` on `comm` to a
 * receive or probe here: the first routed one of that sender and tag is
 * gone (WISP_P2P_LEND_FROM_MPI). */
void wisp_p2p_forwarded_taken(struct wisp_p2p_comm *comm, int source, int tag);

#pragma GCC visibility pop

#endif
