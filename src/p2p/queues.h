/*
 * A served communicator's queues (types.h: `posted`, `unexpected`,
 * `remote`) and the engine's lists of them (queues.c), with the lookups
 * that both the transport and matching make. Below the transport, so that
 * the rings' reader (recv.c) asks by name, on the immediate message's hot
 * path, which posted receive takes a message straight from its cells; the
 * rules that deliver a message, and where a receive waits, are matching's
 * (match.c).
 */
#ifndef WISP_P2P_QUEUES_H
#define WISP_P2P_QUEUES_H

#include <stdbool.h>

#include "p2p/state.h"
#include "p2p/types.h"

#pragma GCC visibility push(hidden)

/* The communicators with receives in their `remote` queue. */
extern struct wisp_list wisp_p2p_remote_comms;
/* The receives lent to the MPI at the moment, in the order posted there
 * (by their `lent`). */
extern struct wisp_list wisp_p2p_lent;

/* Sets of where a receive waits, for wisp_p2p_recv_move. */
#define WISP_P2P_WHERE(w) (1u << WISP_P2P_RECV_##w)
/* Every change of where a receive waits: from one of the states in `from`
 * (a set of WISP_P2P_WHERE), checked in the debug and sanitizer builds.
 * Matching makes most; match_posted below and recv.c (a finish deferred)
 * the others. */
void wisp_p2p_recv_move(struct wisp_p2p_req *req, unsigned from, enum wisp_p2p_recv_where to);

/* Is receive `req` in its communicator's `remote` queue? */
static inline bool wisp_p2p_in_remote(const struct wisp_p2p_req *req)
{
    return (WISP_P2P_WHERE(WILDCARD) | WISP_P2P_WHERE(HELD)) & 1u << req->where;
}

/* Out of the communicator's `remote` queue; the communicator leaves the
 * engine's list of those with `remote` work when its queue empties. */
static inline void wisp_p2p_leave_remote(struct wisp_p2p_req *req)
{
    wisp_list_remove(&req->rlink);
    if (wisp_list_empty(&req->comm->remote)) {
        wisp_list_remove(&req->comm->remote_link);
        wisp_p2p_count_add(&wisp_p2p_remote_count, -1);
    }
}

/* The first posted receive of `comm` that a message from `source` with
 * `tag` matches, or NULL (inline: every message that arrives asks). */
static inline struct wisp_p2p_req *wisp_p2p_first_posted(struct wisp_p2p_comm *comm, int source,
                                                         int tag)
{
    for (struct wisp_list *l = comm->posted.next; l != &comm->posted; l = l->next) {
        struct wisp_p2p_req *req = wisp_list_entry(l, struct wisp_p2p_req, link);
        if (wisp_p2p_matches(req->peer, req->tag, source, tag))
            return req;
    }
    return NULL;
}

/* Can receive `req` match a message queued before `end` in the unexpected
 * queue (one that waits for a lent receive)? */
bool wisp_p2p_wanted_earlier(struct wisp_p2p_comm *comm, const struct wisp_p2p_req *req,
                             const struct wisp_list *end);

/* May posted receive `req` take a message that comes now? Not a lent one
 * (the MPI may be taking it: wait until reclaimed), nor one an earlier
 * message waits for (only while some are lent). */
static inline bool wisp_p2p_may_take(struct wisp_p2p_comm *comm, const struct wisp_p2p_req *req)
{
    return !wisp_p2p_recv_lent(req) && (wisp_list_empty(&wisp_p2p_lent) ||
                                        !wisp_p2p_wanted_earlier(comm, req, &comm->unexpected));
}

/* Out of `posted` (and `remote`, a wildcard); the caller says where to. */
void wisp_p2p_unpost(struct wisp_p2p_req *req);
/* The posted receive that takes a message from `source` with `tag` now,
 * out of its queue and MATCHED; NULL: none (the message is matching's to
 * queue). */
struct wisp_p2p_req *wisp_p2p_match_posted(struct wisp_p2p_comm *comm, int source, int tag);

#pragma GCC visibility pop

#endif
