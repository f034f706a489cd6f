/*
 * A served communicator's queues and the engine's lists of them
 * (queues.h): the lookups that the rings' reader (recv.c) makes by name
 * for a message it can copy straight from the cells, and that matching
 * (match.c) and lending (lend/loan.c) make on their way; and every move of where
 * a receive waits (types.h has the diagram).
 */
#include "p2p/queues.h"

#include "core/states.h"

/* The communicators with `remote` work; their number is wisp_p2p_remote_count. */
struct wisp_list wisp_p2p_remote_comms = {&wisp_p2p_remote_comms, &wisp_p2p_remote_comms};
/* Receives lent to the MPI at the moment, in the order posted there. */
struct wisp_list wisp_p2p_lent = {&wisp_p2p_lent, &wisp_p2p_lent};

void wisp_p2p_unpost(struct wisp_p2p_req *req)
{
    wisp_list_remove(&req->link);
    wisp_p2p_count_add(&wisp_p2p.outstanding, -1);
    if (wisp_p2p_in_remote(req))
        wisp_p2p_leave_remote(req);
}

/*
 * Can receive `req` match a message queued before `end` in the unexpected
 * queue? Such a message waits for a lent receive posted before `req` (or
 * for one that waits so): the MPI may give that receive another message,
 * and then this one is `req`'s. A later message must not take `req` first
 * (fuzz seed 199: a wildcard unlent before an earlier one took a later
 * synchronous message while the one it was due waited).
 */
bool wisp_p2p_wanted_earlier(struct wisp_p2p_comm *comm, const struct wisp_p2p_req *req,
                             const struct wisp_list *end)
{
    for (const struct wisp_list *l = comm->unexpected.next; l != end; l = l->next) {
        const struct wisp_p2p_msg *e = wisp_list_entry(l, struct wisp_p2p_msg, link);
        if (wisp_p2p_matches(req->peer, req->tag, e->source, e->tag))
            return true;
    }
    return false;
}

struct wisp_p2p_req *wisp_p2p_match_posted(struct wisp_p2p_comm *comm, int source, int tag)
{
    struct wisp_p2p_req *req = wisp_p2p_first_posted(comm, source, tag);
    if (!req || !wisp_p2p_may_take(comm, req))
        return NULL;
    wisp_p2p_unpost(req);
    wisp_p2p_recv_move(req, WISP_P2P_WHERE(POSTED) | WISP_P2P_WHERE(WILDCARD),
                       WISP_P2P_RECV_MATCHED);
    return req;
}

void wisp_p2p_recv_move(struct wisp_p2p_req *req, unsigned from, enum wisp_p2p_recv_where to)
{
    static const char *const names[] = {
#define X(where) #where,
        WISP_P2P_RECV_WHERES(X)
#undef X
    };
    /* A lent receive is lending's until lend/loan.c takes it back. */
    wisp_state_check("a receive", names, req->where, wisp_p2p_recv_lent(req) ? 0 : from, to);
    req->where = to;
}
