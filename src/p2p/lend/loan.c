/*
 * Lending, the receives' side (lend.h tells the whole story): around a
 * blocking call that only the MPI serves, the receives that wait for the
 * MPI in `remote` queues, and the local ones behind their wildcards, are
 * posted to the MPI (lent), and taken back after it, the last posted
 * first; the local messages that waited for them are matched again. Above
 * matching (match.c), whose queues it moves; a waiting message's side is
 * message.c's.
 */
#include "p2p/lend/lend.h"
#include "p2p/lend/message.h"

#include <stdlib.h>

#include "core/log.h"
#include "p2p/contexts.h"
#include "p2p/lock.h"
#include "p2p/match.h"
#include "p2p/queues.h"
#include "p2p/request.h"

static bool is_wildcard(const struct wisp_p2p_req *req)
{
    return req->where == WISP_P2P_RECV_WILDCARD;
}

/* ---- lending and taking back ---------------------------------------------- */

/* Blocking calls under way with receives lent: the last one to return
 * takes them back (another thread's may still need them, under
 * MPI_THREAD_MULTIPLE). */
static unsigned lenders;

/*
 * The receives of `comm` to lend, in `*order`: its `remote` queue, and the
 * receives for other processes of the node posted after its first
 * wildcard. Those can take a synchronous message forwarded to a lent
 * wildcard (message.c, forwardable) when the wildcard took another in the
 * MPI; held here, they would never see it, and its sender never get to
 * the blocking call. The order keeps both orders that decide a match: that
 * of `remote` (messages from other nodes) and that of `posted` (from this
 * node); wildcards are in both, and a local receive goes just before the
 * first wildcard posted after it.
 */
static size_t lend_order(struct wisp_p2p_comm *comm, struct wisp_p2p_req ***order)
{
    static struct wisp_p2p_req **v;
    static size_t room;
    size_t need = 0, n = 0;
    for (struct wisp_list *l = comm->posted.next; l != &comm->posted; l = l->next)
        need++;
    for (struct wisp_list *l = comm->remote.next; l != &comm->remote; l = l->next)
        need++;
    if (need > room) {
        struct wisp_p2p_req **bigger = realloc(v, need * sizeof *v);
        if (!bigger)
            wisp_fatal("out of memory for the receives lent to the MPI");
        v = bigger;
        room = need;
    }
    struct wisp_list *p = comm->posted.next;
    bool after_wildcard = false;
    for (struct wisp_list *l = comm->remote.next; l != &comm->remote; l = l->next) {
        struct wisp_p2p_req *req = wisp_list_entry(l, struct wisp_p2p_req, rlink);
        for (; is_wildcard(req) && p != &comm->posted; p = p->next) {
            struct wisp_p2p_req *local = wisp_list_entry(p, struct wisp_p2p_req, link);
            if (local == req) {
                p = p->next;
                break;
            }
            if (after_wildcard && !is_wildcard(local) && local->peer != comm->rank)
                v[n++] = local;
        }
        after_wildcard |= is_wildcard(req);
        v[n++] = req;
    }
    for (; after_wildcard && p != &comm->posted; p = p->next) {
        struct wisp_p2p_req *local = wisp_list_entry(p, struct wisp_p2p_req, link);
        if (!is_wildcard(local) && local->peer != comm->rank)
            v[n++] = local;
    }
    *order = v;
    return n;
}

bool wisp_p2p_lend_waiting(void)
{
    wisp_p2p_lock();
    for (struct wisp_list *c = wisp_p2p_remote_comms.next; c != &wisp_p2p_remote_comms;
         c = c->next) {
        struct wisp_p2p_comm *comm = wisp_list_entry(c, struct wisp_p2p_comm, remote_link);
        struct wisp_p2p_req **order;
        size_t n = lend_order(comm, &order);
        for (size_t i = 0; i < n; i++) {
            struct wisp_p2p_req *req = order[i];
            if (wisp_p2p_recv_lent(req) ||
                wisp_p2p_post_to_mpi(req, req->peer, req->tag) != MPI_SUCCESS)
                continue; /* a receive the MPI refuses stays wisp's */
            wisp_list_push(&wisp_p2p_lent, &req->lent);
        }
    }
    bool holds = !wisp_list_empty(&wisp_p2p_lent);
    lenders += holds;
    wisp_p2p_unlock();
    return holds;
}

/* A lent receive the MPI completed (its error code `rc`), or cancelled
 * for the user. */
static void lent_done(struct wisp_p2p_req *req, int rc, MPI_Status status)
{
    wisp_list_remove(&req->lent);
    int source = status.MPI_SOURCE, cancelled = 0;
    PMPI_Test_cancelled(&status, &cancelled); /* by the user: no message taken */
    if (!cancelled && wisp_p2p_local_source(req->comm, source))
        wisp_p2p_forwarded_taken(req->comm, source, status.MPI_TAG);
    wisp_p2p_hand_over(req);
    req->inner_status = status;
    req->from_inner = true;
    req->st_error = rc;
    wisp_p2p_req_move(req, WISP_P2P_COMPLETE); /* released, if the user freed it */
}

/* A lent receive back from the MPI: true if cancelled there (wisp's again,
 * as before), false if the MPI completed it (done). */
static bool unlend(struct wisp_p2p_req *req)
{
    MPI_Status status;
    PMPI_Cancel(&req->inner);
    int rc = PMPI_Wait(&req->inner, &status), cancelled = 0;
    PMPI_Test_cancelled(&status, &cancelled);
    if (rc == MPI_SUCCESS && cancelled) {
        wisp_list_remove(&req->lent);
        return true;
    }
    lent_done(req, rc, status);
    return false;
}

/* Local messages that waited for a lent receive go to the first match,
 * unless an earlier one that still waits could go to that receive too. */
static void rematch(struct wisp_p2p_comm *comm)
{
    for (struct wisp_list *l = comm->unexpected.next, *next; l != &comm->unexpected; l = next) {
        next = l->next;
        struct wisp_p2p_msg *msg = wisp_list_entry(l, struct wisp_p2p_msg, link);
        struct wisp_p2p_req *req = wisp_p2p_first_posted(comm, msg->source, msg->tag);
        if (req && !wisp_p2p_recv_lent(req) && !wisp_p2p_wanted_earlier(comm, req, &msg->link)) {
            wisp_p2p_unpost(req);
            wisp_list_remove(&msg->link);
            wisp_p2p_deliver(req, msg);
        }
    }
}

bool wisp_p2p_lent_test(struct wisp_p2p_req *req)
{
    MPI_Status status;
    int flag = 0, rc = PMPI_Test(&req->inner, &flag, &status);
    if (rc == MPI_SUCCESS && !flag)
        return false;
    lent_done(req, rc, status);
    rematch(req->comm);
    return true;
}

bool wisp_p2p_lent_cancel(struct wisp_p2p_req *req)
{
    if (wisp_p2p_req_done(req))
        return false;
    /* Settled with the MPI now. Local messages it was owed go to their
     * next match at once (that receive's thread may be what lets the
     * blocking call return). */
    bool cancelled = unlend(req) ? wisp_p2p_recv_cancel(req) : true;
    rematch(req->comm);
    return cancelled;
}

void wisp_p2p_reclaim(void)
{
    wisp_p2p_lock();
    if (--lenders) { /* another thread's blocking call still needs them */
        wisp_p2p_unlock();
        return;
    }
    /* The last posted first: a message that arrives meanwhile then goes to
     * the earliest receive still in the MPI, as MPI's order wants. In
     * posting order, a later receive would take the message an earlier,
     * already cancelled one waits for (seen in p2p_stress: receives of one
     * sender and tag completed out of order). The local messages that
     * waited for each go to their first match (rematch passes over those
     * still lent). */
    for (struct wisp_list *l = wisp_p2p_lent.prev, *prev; l != &wisp_p2p_lent; l = prev) {
        prev = l->prev;
        struct wisp_p2p_req *req = wisp_list_entry(l, struct wisp_p2p_req, lent);
        struct wisp_p2p_comm *comm = req->comm;
        unlend(req);
        rematch(comm);
    }
    wisp_p2p_unlock();
}

/* ---- a copy aside made whole --------------------------------------------- */

/* Unexpected copy `copy` is whole: a message of its sender behind it, still
 * in its slot (synchronous, or without memory for a copy), that could not
 * go through the MPI while the copy filled (wisp_p2p_returnable) may go now. */
static void unblock_behind(struct wisp_p2p_msg *copy)
{
    struct wisp_p2p_comm *comm = wisp_p2p_comm_of_ctx(copy->ctx);
    if (!comm)
        return;
    for (struct wisp_list *l = copy->link.next; l != &comm->unexpected; l = l->next) {
        struct wisp_p2p_msg *msg = wisp_list_entry(l, struct wisp_p2p_msg, link);
        if (msg->source != copy->source || wisp_p2p_routed(msg) || msg->slot < 0)
            continue;
        struct wisp_p2p_req *req = wisp_p2p_first_posted(comm, msg->source, msg->tag);
        if (req && wisp_p2p_recv_lent(req))
            wisp_p2p_unblock_sender(comm, msg);
    }
}

void wisp_p2p_spilled(struct wisp_p2p_req *fill)
{
    struct wisp_p2p_msg *copy = fill->spill;
    wisp_p2p_req_move(fill, WISP_P2P_DISCARD); /* never the user's */
    switch (wisp_p2p_copy_whole(copy)) {
    case WISP_P2P_COPY_DROPPED:
        free(copy);
        break;
    case WISP_P2P_COPY_TAKEN:
        copy->lend.taker->msg = NULL;
        wisp_p2p_deliver(copy->lend.taker, copy);
        break;
    default:
        unblock_behind(copy);
    }
}
