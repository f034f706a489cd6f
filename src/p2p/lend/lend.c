/*
 * Lending's one entry from below, and its pass in every progress pass
 * (lend.h tells the story). Matching and the transport report an event
 * through wisp_p2p_up.lending only for a message lending marked
 * (wisp_p2p_lending_marked) or one that meets a lent receive, so the
 * receive of a program that never lends never comes here. At the top of
 * this folder: it calls the waiting message's side (message.c), the
 * receives' side (loan.c), the sender's side (forward.c) and matching.
 */
#include "p2p/lend/lend.h"

#include <stdlib.h>

#include "p2p/lend/handback.h"
#include "p2p/lend/message.h"
#include "p2p/match.h"
#include "p2p/queues.h"
#include "p2p/recv.h"
#include "p2p/request.h"

/* Receive `req` takes marked message `msg` (wisp_p2p_deliver): a copy still
 * filling is delivered when whole (wisp_p2p_spilled); a synchronous copy's
 * sender hears of its match; a message its sender sent through the MPI is
 * received there, exactly. True if lending took the delivery over. */
static bool taken(struct wisp_p2p_req *req, struct wisp_p2p_msg *msg)
{
    const unsigned from = WISP_P2P_WHERE(IDLE) | WISP_P2P_WHERE(POSTED) | WISP_P2P_WHERE(WILDCARD) |
                          WISP_P2P_WHERE(MATCHED);
    if (wisp_p2p_copy_filling(msg)) {
        wisp_p2p_recv_move(req, from, WISP_P2P_RECV_MATCHED);
        wisp_p2p_copy_take(msg, req);
        req->msg = msg;
        return true;
    }
    if (msg->lend.sync_seq)
        wisp_p2p_sync_matched(msg);
    if (!wisp_p2p_routed(msg) || wisp_p2p_forward_recall(msg))
        return false; /* here after all: matching delivers it */
    free(req->tmp);
    req->tmp = NULL;
    wisp_p2p_recv_move(req, from, WISP_P2P_RECV_FORWARDED);
    wisp_p2p_req_fail_on(req, wisp_p2p_post_to_mpi(req, msg->source, msg->tag));
    wisp_p2p_msg_drop(msg);
    return true;
}

bool wisp_p2p_lend_on(const struct wisp_p2p_lend_event *event)
{
    switch (event->kind) {
    case WISP_P2P_LEND_WAITS:
        wisp_p2p_unblock_sender(event->comm, event->msg);
        return true;
    case WISP_P2P_LEND_TAKEN:
        return taken(event->req, event->msg);
    case WISP_P2P_LEND_DROPPED:
        return wisp_p2p_lend_drop(event->msg);
    case WISP_P2P_LEND_WHOLE:
        wisp_p2p_spilled(event->req);
        return true;
    case WISP_P2P_LEND_FROM_MPI:
        wisp_p2p_forwarded_taken(event->comm, event->source, event->tag);
        return true;
    }
    return false;
}

bool wisp_p2p_lend_pass(void)
{
    bool moved = wisp_p2p_forward_sends();
    moved |= wisp_p2p_name_next_batches();
    if (wisp_p2p_handback_npiped)
        moved |= wisp_p2p_handback_pump();
    return moved;
}
