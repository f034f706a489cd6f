/*
 * Matching, with MPI's rules. Per communicator, `posted` holds receives in
 * the order they were posted and `unexpected` the local messages in the
 * order they arrived; a ring is read in the order it was written, so
 * messages of one sender on one communicator never overtake each other.
 * The queues and the lookup of the posted receive a message takes are
 * queues.c's, below the transport: the rings' reader asks it by name for
 * an immediate message, which it copies straight from the cells.
 *
 * A receive that may match a remote sender belongs to the MPI, but it may
 * not be handed over while an earlier wildcard receive (MPI_ANY_SOURCE,
 * which wisp keeps) could take the same message: the MPI would match the
 * later one first. Such receives wait in the communicator's `remote` queue;
 * a wildcard at its head asks the MPI with a matched probe (MPI_Improbe,
 * then MPI_Imrecv), so no receive ever has to be cancelled while wisp is
 * inside the MPI on its own terms.
 *
 * A blocking call the MPI serves alone (a collective) would leave those
 * probes unasked, and a remote sender waiting for its wildcard would wait
 * forever. Around such a call the receives are lent to the MPI: lend/lend.h
 * tells that story; lend/loan.c moves the queues here through match.h's
 * second part, and matching tells lending, through the one `lending`
 * event (state.h), of a local message that a lent receive matches (its
 * sender must not wait for it) or that lending marked (a copy aside, a
 * message on its way to the MPI) when a receive takes it.
 */
#include "p2p/match.h"

#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "p2p/contexts.h"
#include "p2p/datatype.h"
#include "p2p/layout.h"
#include "p2p/lock.h"
#include "p2p/queues.h"
#include "p2p/recv.h"
#include "p2p/request.h"
#include "p2p/send.h"
#include "p2p/state.h"

/* ---- where a receive waits (types.h, enum wisp_p2p_recv_where) ---------- */

#define WHERE(w) WISP_P2P_WHERE(w)
#define QUEUED   (WHERE(POSTED) | WHERE(WILDCARD) | WHERE(HELD))

static bool in_posted(const struct wisp_p2p_req *req)
{
    return (WHERE(POSTED) | WHERE(WILDCARD)) & 1u << req->where;
}

/* Could one message match both receives? */
static bool overlap(const struct wisp_p2p_req *a, const struct wisp_p2p_req *b)
{
    bool tags = a->tag == MPI_ANY_TAG || b->tag == MPI_ANY_TAG || a->tag == b->tag;
    bool sources = a->peer == MPI_ANY_SOURCE || b->peer == MPI_ANY_SOURCE || a->peer == b->peer;
    return tags && sources;
}

/* A receive held back in `remote` (not posted) is let go. */
static void unhold(struct wisp_p2p_req *req)
{
    wisp_p2p_leave_remote(req);
    wisp_p2p_count_add(&wisp_p2p.outstanding, -1);
}

void wisp_p2p_incoming(struct wisp_p2p_comm *comm, struct wisp_p2p_msg *msg)
{
    struct wisp_p2p_req *req = wisp_p2p_first_posted(comm, msg->source, msg->tag);
    if (req && wisp_p2p_may_take(comm, req)) {
        wisp_p2p_unpost(req);
        wisp_p2p_deliver(req, msg);
        return;
    }
    wisp_list_push(&comm->unexpected, &msg->link);
    if (req && msg->slot >= 0) /* its sender waits for a lent receive */
        wisp_p2p_up.lending(&(struct wisp_p2p_lend_event){
            .kind = WISP_P2P_LEND_WAITS, .comm = comm, .req = req, .msg = msg});
}

int wisp_p2p_recv_prepare(struct wisp_p2p_req *req)
{
    bool contig, predefined;
    MPI_Aint offset;
    int rc = wisp_p2p_type_bytes(req->type, req->count, &req->cap, &contig, &offset, &predefined);
    if (rc != MPI_SUCCESS)
        return rc;
    if (predefined)
        req->type_ref = WISP_P2P_TYPE_PREDEFINED;
    req->unpack = false;
    if (contig) {
        req->dst = (char *)req->rbuf + offset;
    } else if (wisp_dt_desc_get(req->type, &req->layout) == WISP_DT_OK) {
        req->dst = NULL; /* the engine writes into the layout */
    } else {
        req->layout = NULL;
        req->unpack = true; /* a type the engine does not describe: the MPI unpacks */
        req->tmp = malloc(req->cap ? req->cap : 1);
        if (!req->tmp)
            return MPI_ERR_NO_MEM;
        req->dst = req->tmp;
    }
    return MPI_SUCCESS;
}

/* Post receive `req` to the MPI for a message from `source` with `tag`. */
int wisp_p2p_post_to_mpi(struct wisp_p2p_req *req, int source, int tag)
{
    return WISP_P2P_MPI(Irecv, req->count, req->rbuf, req->count, req->type, source, tag,
                        req->handle, &req->inner);
}

/* Receive `req`, out of every queue, goes to the MPI for good. */
static int to_mpi(struct wisp_p2p_req *req, unsigned from)
{
    wisp_p2p_recv_move(req, from, WISP_P2P_RECV_MPI);
    return wisp_p2p_post_to_mpi(req, req->peer, req->tag);
}

void wisp_p2p_deliver(struct wisp_p2p_req *req, struct wisp_p2p_msg *msg)
{
    unsigned from = WHERE(IDLE) | WHERE(POSTED) | WHERE(WILDCARD) | WHERE(MATCHED);
    uint64_t n = msg->size < req->cap ? msg->size : req->cap;
    req->st_source = msg->source;
    req->st_tag = msg->tag;
    req->st_bytes = n;
    req->st_error = msg->size > req->cap ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
    if (msg->waiter)
        wisp_p2p_send_matched(msg->waiter);
    if (wisp_p2p_lending_marked(&msg->lend) &&
        wisp_p2p_up.lending(
            &(struct wisp_p2p_lend_event){.kind = WISP_P2P_LEND_TAKEN, .req = req, .msg = msg}))
        return; /* lending delivers it: a copy still filling, or through the MPI */
    wisp_p2p_recv_move(req, from, WISP_P2P_RECV_MATCHED);
    if (msg->slot >= 0) {
        req->msg = msg;
        wisp_p2p_recv_advance(req);
        return;
    }
    wisp_p2p_recv_put(req, 0, msg->data, n);
    wisp_stats_shm.bytes += n;
    free(msg);
    wisp_p2p_recv_finish(req);
}

/* Is `req` held back by an earlier receive in the `remote` queue? */
static bool held_back(const struct wisp_p2p_req *req)
{
    const struct wisp_list *q = &req->comm->remote;
    for (const struct wisp_list *l = q->next; l != q && l != &req->rlink; l = l->next)
        if (overlap(wisp_list_entry(l, struct wisp_p2p_req, rlink), req))
            return true;
    return false;
}

static void queue_remote(struct wisp_p2p_req *req)
{
    if (wisp_list_empty(&req->comm->remote)) {
        wisp_list_push(&wisp_p2p_remote_comms, &req->comm->remote_link);
        wisp_p2p_count_add(&wisp_p2p_remote_count, 1);
    }
    wisp_list_push(&req->comm->remote, &req->rlink);
}

int wisp_p2p_recv_start(struct wisp_p2p_req *req)
{
    struct wisp_p2p_comm *comm = req->comm;
    if (req->peer == MPI_PROC_NULL) {
        req->st_source = MPI_PROC_NULL;
        req->st_tag = MPI_ANY_TAG;
        req->st_bytes = 0;
        req->st_error = MPI_SUCCESS;
        wisp_p2p_req_move(req, WISP_P2P_COMPLETE);
        return MPI_SUCCESS;
    }
    if (req->peer != MPI_ANY_SOURCE && comm->node_of[req->peer] < 0) {
        if (wisp_list_empty(&comm->remote))
            return to_mpi(req, WHERE(IDLE));
        wisp_p2p_recv_move(req, WHERE(IDLE), WISP_P2P_RECV_HELD);
        queue_remote(req); /* maybe behind a wildcard */
        wisp_p2p_count_add(&wisp_p2p.outstanding, 1);
        if (!held_back(req)) {
            unhold(req);
            return to_mpi(req, WHERE(HELD));
        }
        return MPI_SUCCESS;
    }
    int rc = wisp_p2p_recv_prepare(req);
    if (rc != MPI_SUCCESS)
        return rc;
    /* No progress pass first: a matching message still in its ring is
     * matched to this receive when it is drained, straight from the cells. */
    struct wisp_p2p_msg *msg = wisp_p2p_probe_local(comm, req->peer, req->tag);
    if (msg) {
        wisp_list_remove(&msg->link);
        wisp_p2p_deliver(req, msg);
        return MPI_SUCCESS;
    }
    wisp_list_push(&comm->posted, &req->link);
    wisp_p2p_count_add(&wisp_p2p.outstanding, 1);
    if (req->peer == MPI_ANY_SOURCE && comm->has_remote) {
        wisp_p2p_recv_move(req, WHERE(IDLE), WISP_P2P_RECV_WILDCARD);
        queue_remote(req);
    } else {
        wisp_p2p_recv_move(req, WHERE(IDLE), WISP_P2P_RECV_POSTED);
    }
    return MPI_SUCCESS;
}

/* The MPI gave a message of local `source` to a receive or probe here: one
 * its sender sent there for a lent receive (lending, FROM_MPI). */
static void from_mpi(struct wisp_p2p_comm *comm, int source, int tag)
{
    if (wisp_p2p_local_source(comm, source))
        wisp_p2p_up.lending(&(struct wisp_p2p_lend_event){
            .kind = WISP_P2P_LEND_FROM_MPI, .comm = comm, .source = source, .tag = tag});
}

/* The receive, first in posting order, that a message the MPI holds from
 * `source` with `tag` belongs to (MPI: the earliest posted receive that
 * matches). Not a lent one: a receive posted in the MPI takes a matching
 * message before any probe sees it, so a lent receive that this message
 * matches has taken another already (another thread's blocking call lent
 * it; handing it this one too would overwrite what the MPI writes there).
 * A local sender's message there is one it forwarded that no lent receive
 * took: it may belong to a receive for that sender too, which wisp holds. */
static struct wisp_p2p_req *first_taker(struct wisp_p2p_comm *comm, int source, int tag)
{
    if (wisp_p2p_local_source(comm, source)) {
        for (struct wisp_list *l = comm->posted.next; l != &comm->posted; l = l->next) {
            struct wisp_p2p_req *req = wisp_list_entry(l, struct wisp_p2p_req, link);
            if (!wisp_p2p_recv_lent(req) && wisp_p2p_matches(req->peer, req->tag, source, tag))
                return req;
        }
        return NULL;
    }
    for (struct wisp_list *l = comm->remote.next; l != &comm->remote; l = l->next) {
        struct wisp_p2p_req *req = wisp_list_entry(l, struct wisp_p2p_req, rlink);
        if (!wisp_p2p_recv_lent(req) && wisp_p2p_matches(req->peer, req->tag, source, tag))
            return req;
    }
    return NULL;
}

/* Receive `req` is the MPI's now: out of `posted` and/or `remote`. */
void wisp_p2p_hand_over(struct wisp_p2p_req *req)
{
    if (in_posted(req)) {
        wisp_p2p_unpost(req);
        free(req->tmp);
        req->tmp = NULL;
    } else {
        unhold(req);
    }
    wisp_p2p_recv_move(req, QUEUED, WISP_P2P_RECV_MPI);
}

/* Hand a message the MPI matched for us (MPI_Improbe), from `source` with
 * `tag`, to `req`. */
static void take(struct wisp_p2p_req *req, MPI_Message *message, int source, int tag)
{
    wisp_p2p_hand_over(req);
    wisp_p2p_req_fail_on(req, WISP_P2P_MPI(Imrecv, req->count, req->rbuf, req->count, req->type,
                                           message, &req->inner));
    from_mpi(req->comm, source, tag);
}

/* A probe saw a message from `source` with `tag` that a receive of ours
 * matches: the first such receive takes the first message of that sender
 * it matches. That one may come before this one: a probe of a later
 * receive's pattern sees what arrived during an earlier receive's own probe
 * (fuzz seed 129: a wildcard took the second of a sender's messages).
 * False if the MPI no longer has it (another thread took it). */
static bool claim(struct wisp_p2p_comm *comm, int source, int tag)
{
    struct wisp_p2p_req *taker = first_taker(comm, source, tag);
    int flag = 0;
    MPI_Status status;
    for (;;) { /* each turn an earlier receive, or the same one and done */
        PMPI_Iprobe(source, taker->tag, comm->handle, &flag, &status);
        if (!flag || status.MPI_TAG == tag)
            break;
        tag = status.MPI_TAG;
        taker = first_taker(comm, source, tag);
    }
    MPI_Message message;
    PMPI_Improbe(source, tag, comm->handle, &flag, &message, &status);
    if (flag)
        take(taker, &message, source, tag);
    return flag;
}

/* The patterns one pass over a `remote` queue asked the MPI for in vain: a
 * later receive of the queue whose pattern one of them covers need not ask
 * again in that pass (a message that came meanwhile is found by the next
 * pass, as if it had come after this one). So a poll of several wildcards
 * that finds nothing costs one call into the MPI, not one per receive. */
enum { ASKED_MAX = 8 };
struct asked {
    int n;
    int source[ASKED_MAX], tag[ASKED_MAX];
};

static bool asked_covers(const struct asked *a, int source, int tag)
{
    for (int i = 0; i < a->n; i++)
        if (wisp_p2p_matches(a->source[i], a->tag[i], source, tag))
            return true;
    return false;
}

static void asked_add(struct asked *a, int source, int tag)
{
    if (a->n < ASKED_MAX) {
        a->source[a->n] = source;
        a->tag[a->n++] = tag;
    }
}

/* One pass over a communicator's `remote` queue; true if anything moved. A
 * receive no earlier one overlaps goes to the MPI. The others ask the MPI
 * with a probe of their own pattern, and what it finds goes to the first
 * receive in the queue that it matches (claim): an earlier wildcard if that
 * one matches it too, as MPI's order wants. So a receive held back behind a
 * wildcard still gets its message (the sender may wait for it, in MPI_Ssend
 * say, before it sends what the wildcard waits for). */
static bool advance_remote(struct wisp_p2p_comm *comm)
{
    struct asked asked = {.n = 0};
    for (struct wisp_list *l = comm->remote.next; l != &comm->remote; l = l->next) {
        struct wisp_p2p_req *req = wisp_list_entry(l, struct wisp_p2p_req, rlink);
        if (wisp_p2p_recv_lent(req))
            continue; /* another thread's blocking call has it in the MPI */
        if (req->where == WISP_P2P_RECV_HELD && !held_back(req)) {
            unhold(req);
            wisp_p2p_req_fail_on(req, to_mpi(req, WHERE(HELD)));
            return true;
        }
        int source = req->peer, flag = 0;
        if (asked_covers(&asked, source, req->tag))
            continue;
        MPI_Status status;
        PMPI_Iprobe(source, req->tag, comm->handle, &flag, &status);
        if (flag && claim(comm, status.MPI_SOURCE, status.MPI_TAG))
            return true;
        asked_add(&asked, source, req->tag);
    }
    return false;
}

bool wisp_p2p_remote_pass(void)
{
    bool moved = false;
    for (struct wisp_list *c = wisp_p2p_remote_comms.next, *cnext; c != &wisp_p2p_remote_comms;
         c = cnext) {
        cnext = c->next;
        struct wisp_p2p_comm *comm = wisp_list_entry(c, struct wisp_p2p_comm, remote_link);
        /* Each pass changes the queue: start over until nothing moves. */
        while (!wisp_list_empty(&comm->remote) && advance_remote(comm))
            moved = true;
    }
    return moved;
}

int wisp_p2p_probe_remote(struct wisp_p2p_comm *comm, int source, int tag, int *flag,
                          MPI_Message *message, MPI_Status *status)
{
    wisp_p2p_remote_advance(); /* earlier receives take what is there first */
    MPI_Status st;
    int rc = PMPI_Iprobe(source, tag, comm->handle, flag, &st);
    if (rc != MPI_SUCCESS || !*flag)
        return rc;
    /* It came just now, for an earlier receive? */
    if (first_taker(comm, st.MPI_SOURCE, st.MPI_TAG)) {
        claim(comm, st.MPI_SOURCE, st.MPI_TAG);
        *flag = 0;
        return MPI_SUCCESS;
    }
    if (message) { /* the first of that sender with that tag: the one seen */
        rc = PMPI_Improbe(st.MPI_SOURCE, st.MPI_TAG, comm->handle, flag, message, &st);
        if (rc != MPI_SUCCESS || !*flag)
            return rc;
        from_mpi(comm, st.MPI_SOURCE, st.MPI_TAG);
    }
    if (status != MPI_STATUS_IGNORE)
        *status = st;
    return MPI_SUCCESS;
}

struct wisp_p2p_msg *wisp_p2p_probe_local(struct wisp_p2p_comm *comm, int source, int tag)
{
    for (struct wisp_list *l = comm->unexpected.next; l != &comm->unexpected; l = l->next) {
        struct wisp_p2p_msg *msg = wisp_list_entry(l, struct wisp_p2p_msg, link);
        /* A message that a posted receive matches waits for it (a lent one:
         * any other took it when it came): no later receive or probe may
         * have it (another thread's, under MPI_THREAD_MULTIPLE). */
        if (wisp_p2p_matches(source, tag, msg->source, msg->tag) &&
            (wisp_list_empty(&wisp_p2p_lent) ||
             !wisp_p2p_first_posted(comm, msg->source, msg->tag)))
            return msg;
    }
    return NULL;
}

bool wisp_p2p_recv_cancel(struct wisp_p2p_req *req)
{
    if (wisp_p2p_req_done(req))
        return false;
    switch ((enum wisp_p2p_recv_where)req->where) {
    case WISP_P2P_RECV_MPI:
        PMPI_Cancel(&req->inner);
        return true; /* the MPI's status will say */
    case WISP_P2P_RECV_POSTED:
    case WISP_P2P_RECV_WILDCARD:
        wisp_p2p_unpost(req);
        free(req->tmp);
        req->tmp = NULL;
        break;
    case WISP_P2P_RECV_HELD:
        unhold(req);
        break;
    default: /* matched, or not waiting at all */
        return false;
    }
    wisp_p2p_recv_move(req, QUEUED, WISP_P2P_RECV_IDLE);
    req->st_cancelled = true;
    req->st_source = MPI_ANY_SOURCE;
    req->st_tag = MPI_ANY_TAG;
    req->st_bytes = 0;
    req->st_error = MPI_SUCCESS;
    wisp_p2p_req_move(req, WISP_P2P_COMPLETE);
    return true;
}
