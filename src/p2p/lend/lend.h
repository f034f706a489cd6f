/*
 * Lending: what happens when a wildcard receive is lent to the MPI.
 *
 * Why. A receive that may match a sender on another node waits in its
 * communicator's `remote` queue when a wildcard (MPI_ANY_SOURCE) comes
 * before it, asking the MPI with matched probes (match.c). While the
 * process sits in a call that only the MPI serves (a blocking collective,
 * communicator creation, a fence: the routes marked `lend` in routes.def),
 * nobody asks, and a remote sender waiting for that wildcard would never
 * reach the same collective. So around such a call the receives are lent:
 * posted to the MPI for the call, taken back after it.
 *
 * A lent receive (loan.c; the request's `lent`, which links it into
 * queues.h's wisp_p2p_lent: it keeps its place in matching's queues and
 * its `where`, and nothing moves it while it is lent). wisp_p2p_lend
 * (p2p.h) posts, per communicator, its `remote` queue and the receives
 * for other processes of the node posted after its first wildcard (they
 * can take a synchronous message forwarded for that wildcard when the
 * wildcard took another one in the MPI), in an order that keeps both
 * orders that decide a match: `remote`'s and `posted`'s (lend_order). A
 * receive the MPI refuses stays wisp's.
 *
 * A local message for a lent receive (message.c). It waits as unexpected: no
 * later receive may take it, the MPI may be giving that receive another
 * one. Its sender must not wait for it, as it may be on its way into the
 * same call (wisp_p2p_unblock_sender):
 *   - a standard one is copied aside into private memory that takes its
 *     place (wisp_p2p_spill; the copy's life is enum wisp_p2p_copy), and
 *     its sender completes, as the MPI's eager protocol would let it;
 *   - a synchronous one, or a standard one without memory for its copy, is
 *     forwarded: its sender is asked, through its rendezvous slot, to send
 *     it through the MPI, where the lent receive can take it
 *     (wisp_p2p_forward; its route is enum wisp_p2p_route). Only where the
 *     MPI then matches it as wisp would: every lent receive it can match
 *     comes before every other one it can match, and every earlier message
 *     of its sender that stays here and could match one of those lent
 *     receives goes to the MPI first.
 *
 * The hand-back records (handback.c, handback.h). Those earlier messages
 * are here, not with their sender: the receiver hands each back through a
 * record of its own in the node's segment (a share per sender, so a
 * sender waits only for records it frees itself), named in the forwarded
 * message's slot. The sender claims the records in the order named, sends
 * their bytes through the MPI, then the synchronous message. More than a
 * share go in batches (the slot's HANDING, then FORWARD again). A receive
 * here that takes a routed message first recalls it (its record, or the
 * slot's FORWARD back to POSTED) if the sender has not sent it yet, and
 * else receives it from the MPI with its own buffer (FORWARDED).
 *
 * Taken back (loan.c). After the call, wisp_p2p_reclaim cancels each lent
 * receive in the MPI, the last posted first: a message that arrives
 * meanwhile then goes to the earliest receive still there, as MPI's order
 * wants. Cancelled, a receive is wisp's again as before; completed, the
 * MPI took a message for it (a local one: the first routed message of that
 * sender and tag is gone). The local messages that waited are then matched
 * again; while some receives are still lent, one already back takes no
 * message that comes after one it matches that still waits for a lent
 * receive (wisp_p2p_wanted_earlier). Another thread may test or cancel a
 * lent receive meanwhile (wisp_p2p_lent_test, wisp_p2p_lent_cancel); the
 * last of several threads' blocking calls takes them back.
 *
 * The files, one folder (the rest of the engine includes this header
 * alone): message.c, a waiting message's side (its copy aside, its route
 * to the MPI, its sender unblocked); loan.c, the receives' side (which are
 * lent, in what order, taken back; above matching, whose queues it moves);
 * handback.c, the records; forward.c, the sender's side (a forwarded
 * message and the ones handed back sent through the MPI); lend.c, the one
 * entry from below and lending's pass. Lending's parts of a message and a
 * slot, data only, are at the ground beside types.h, which embeds them
 * (p2p/lend_parts.h); only these files write them. Matching and the
 * transport come here only through wisp_p2p_up.lending (state.h), and only
 * for a message lending marked or one that meets a lent receive: an
 * ordinary receive never enters these files. docs/p2p.md, "Blocking collectives", tells the cases
 * and the tests that hold them.
 */
#ifndef WISP_P2P_LEND_H
#define WISP_P2P_LEND_H

#include <stdbool.h>
#include <stddef.h>

#include "p2p/state.h"
#include "p2p/types.h"

#pragma GCC visibility push(hidden)

/* ---- what the rest of the engine calls ------------------------------------ */

/* Around a blocking call that only the MPI serves (a collective): post the
 * receives waiting in `remote` queues to the MPI (true if any; the routes
 * ask through wisp_p2p_lend, p2p.h), and take them back afterwards (loan.c). */
bool wisp_p2p_lend_waiting(void);
void wisp_p2p_reclaim(void);
/* Is lent receive `req` complete (another thread tests it while the
 * blocking call of the thread that lent it goes on)? Then it is wisp's
 * again, done. */
bool wisp_p2p_lent_test(struct wisp_p2p_req *req);
/* Cancel lent receive `req` (another thread's blocking call lent it):
 * false if it was done already. */
bool wisp_p2p_lent_cancel(struct wisp_p2p_req *req);
/* Spill every unexpected rendezvous message from node rank `from` (the
 * synchronous ones complete at their match all the same), whose slots it
 * needs for sends waiting behind them (progress.c). Lock held. */
void wisp_p2p_spill_held(int from);
/* What matching and the transport report (wisp_p2p_up.lending; the events
 * and what each returns: lend_parts.h). Lock held. */
bool wisp_p2p_lend_on(const struct wisp_p2p_lend_event *event);
/* Lending's part of a progress pass: forwarded messages sent, the next
 * batches of records named, records streamed; true if any moved. Inline:
 * every pass asks, and mostly none is under way. */
bool wisp_p2p_lend_pass(void);
extern unsigned wisp_p2p_lend_batched; /* forwarded messages with batches to name (message.c) */
extern int wisp_p2p_handback_npiped;   /* records streamed through pipes (handback.c) */
static inline bool wisp_p2p_lend_progress(void)
{
    return (wisp_p2p.forward_asked || wisp_p2p_lend_batched || wisp_p2p_handback_npiped) &&
           wisp_p2p_lend_pass();
}
/* The node's table of hand-back records: the region it takes in the
 * segment, and this process's part set up (handback.c). */
size_t wisp_p2p_handback_size(int node_size);
void wisp_p2p_handback_init(void *region, int node_rank, int node_size);

/* ---- within this folder ---------------------------------------------------- */

/* The copy of wisp_p2p_spill is whole: `fill` is done (loan.c). */
void wisp_p2p_spilled(struct wisp_p2p_req *fill);
/* The slots the receivers asked to send through the MPI (SLOT_FORWARD),
 * sent; true if any moved (forward.c). */
bool wisp_p2p_forward_sends(void);

#pragma GCC visibility pop

#endif
