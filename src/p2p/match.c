/*
 * Matching, with MPI's rules. Per communicator, `posted` holds receives in
 * the order they were posted and `unexpected` the local messages in the
 * order they arrived; a ring is read in the order it was written, so
 * messages of one sender on one communicator never overtake each other.
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
 * forever. Around such a call the `remote` queues are lent to the MPI:
 * every receive in them is posted there, in queue order; a local message
 * that a lent receive matches waits as unexpected (no later receive may
 * take it); afterwards each lent receive is cancelled, or was completed by
 * the MPI, and the waiting local messages are matched again. Meanwhile the
 * sender of such a message must not wait for it (unblock_sender): it may be
 * on its way into the same call.
 */
#include "p2p/match.h"

#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/states.h"
#include "p2p/contexts.h"
#include "p2p/datatype.h"
#include "p2p/layout.h"
#include "p2p/lend.h"
#include "p2p/lock.h"
#include "p2p/recv.h"
#include "p2p/request.h"
#include "p2p/send.h"
#include "p2p/state.h"

/* The communicators with `remote` work; their number is wisp_p2p_remote_count. */
static struct wisp_list remote_comms = {&remote_comms, &remote_comms};
/* Receives lent to the MPI at the moment, in the order posted there. */
static struct wisp_list lent = {&lent, &lent};

/* ---- where a receive waits (types.h, enum wisp_p2p_recv_where) ---------- */

#define WHERE(w) (1u << WISP_P2P_RECV_##w)
#define QUEUED   (WHERE(POSTED) | WHERE(WILDCARD) | WHERE(HELD))
#define LENT     (WHERE(LENT_POSTED) | WHERE(LENT_WILDCARD) | WHERE(LENT_HELD))
enum { LENT_APART = WISP_P2P_RECV_LENT_POSTED - WISP_P2P_RECV_POSTED };

/* Every change of where a receive waits: from one of the states in `from`
 * (a mask of WHERE(...)), checked in the debug and sanitizer builds. */
static void recv_move(struct wisp_p2p_req *req, unsigned from, enum wisp_p2p_recv_where to)
{
    static const char *const names[] = {
        "IDLE",          "POSTED",    "WILDCARD", "HELD",      "LENT_POSTED",
        "LENT_WILDCARD", "LENT_HELD", "MATCHED",  "FORWARDED", "MPI"};
    wisp_state_check("a receive", names, req->where, from, to);
    req->where = (uint8_t)to;
}

static bool in_posted(const struct wisp_p2p_req *req)
{
    return (WHERE(POSTED) | WHERE(WILDCARD) | WHERE(LENT_POSTED) | WHERE(LENT_WILDCARD)) &
           1u << req->where;
}

static bool in_remote(const struct wisp_p2p_req *req)
{
    return (WHERE(WILDCARD) | WHERE(HELD) | WHERE(LENT_WILDCARD) | WHERE(LENT_HELD)) &
           1u << req->where;
}

static bool is_wildcard(const struct wisp_p2p_req *req)
{
    return req->where == WISP_P2P_RECV_WILDCARD || req->where == WISP_P2P_RECV_LENT_WILDCARD;
}

static bool matches(int want_source, int want_tag, int source, int tag)
{
    return (want_source == MPI_ANY_SOURCE || want_source == source) &&
           (want_tag == MPI_ANY_TAG || want_tag == tag);
}

/* Could one message match both receives? */
static bool overlap(const struct wisp_p2p_req *a, const struct wisp_p2p_req *b)
{
    bool tags = a->tag == MPI_ANY_TAG || b->tag == MPI_ANY_TAG || a->tag == b->tag;
    bool sources = a->peer == MPI_ANY_SOURCE || b->peer == MPI_ANY_SOURCE || a->peer == b->peer;
    return tags && sources;
}

/* Out of the communicator's `remote` queue; the communicator leaves the
 * engine's list of those with `remote` work when its queue empties. */
static void leave_remote(struct wisp_p2p_req *req)
{
    wisp_list_remove(&req->rlink);
    if (wisp_list_empty(&req->comm->remote)) {
        wisp_list_remove(&req->comm->remote_link);
        wisp_p2p_count_add(&wisp_p2p_remote_count, -1);
    }
}

/* A receive held back in `remote` (not posted) is let go. */
static void unhold(struct wisp_p2p_req *req)
{
    leave_remote(req);
    wisp_p2p_count_add(&wisp_p2p.outstanding, -1);
}

/* Out of `posted` (and `remote`, a wildcard); the caller says where to. */
static void unpost(struct wisp_p2p_req *req)
{
    wisp_list_remove(&req->link);
    wisp_p2p_count_add(&wisp_p2p.outstanding, -1);
    if (in_remote(req))
        leave_remote(req);
}

static struct wisp_p2p_req *first_posted(struct wisp_p2p_comm *comm, int source, int tag)
{
    for (struct wisp_list *l = comm->posted.next; l != &comm->posted; l = l->next) {
        struct wisp_p2p_req *req = wisp_list_entry(l, struct wisp_p2p_req, link);
        if (matches(req->peer, req->tag, source, tag))
            return req;
    }
    return NULL;
}

/*
 * Can receive `req` match a message queued before `end` in the unexpected
 * queue? Such a message waits for a lent receive posted before `req` (or
 * for one that waits so): the MPI may give that receive another message,
 * and then this one is `req`'s. A later message must not take `req` first
 * (fuzz seed 199: a wildcard unlent before an earlier one took a later
 * synchronous message while the one it was due waited).
 */
static bool wanted_earlier(struct wisp_p2p_comm *comm, const struct wisp_p2p_req *req,
                           const struct wisp_list *end)
{
    for (const struct wisp_list *l = comm->unexpected.next; l != end; l = l->next) {
        const struct wisp_p2p_msg *e = wisp_list_entry(l, struct wisp_p2p_msg, link);
        if (matches(req->peer, req->tag, e->source, e->tag))
            return true;
    }
    return false;
}

/* May posted receive `req` take a message that comes now? Not a lent one
 * (the MPI may be taking it: wait until reclaimed), nor one an earlier
 * message waits for (only while some are lent). */
static bool may_take(struct wisp_p2p_comm *comm, const struct wisp_p2p_req *req)
{
    return !wisp_p2p_recv_lent(req) &&
           (wisp_list_empty(&lent) || !wanted_earlier(comm, req, &comm->unexpected));
}

struct wisp_p2p_req *wisp_p2p_match_posted(struct wisp_p2p_comm *comm, int source, int tag)
{
    struct wisp_p2p_req *req = first_posted(comm, source, tag);
    if (!req || !may_take(comm, req))
        return NULL;
    unpost(req);
    return req;
}

/* Does every lent receive that `msg` can match come before every other
 * receive it can match? (The MPI sees only the lent ones.) */
static bool lent_first(struct wisp_p2p_comm *comm, const struct wisp_p2p_msg *msg)
{
    bool unlent = false;
    for (struct wisp_list *l = comm->posted.next; l != &comm->posted; l = l->next) {
        struct wisp_p2p_req *req = wisp_list_entry(l, struct wisp_p2p_req, link);
        if (!matches(req->peer, req->tag, msg->source, msg->tag))
            continue;
        if (wisp_p2p_recv_lent(req) && unlent)
            return false;
        unlent |= !wisp_p2p_recv_lent(req);
    }
    return true;
}

/* Can messages `a` and `b` both match one lent receive? */
static bool share_lent(struct wisp_p2p_comm *comm, const struct wisp_p2p_msg *a,
                       const struct wisp_p2p_msg *b)
{
    for (struct wisp_list *l = comm->posted.next; l != &comm->posted; l = l->next) {
        struct wisp_p2p_req *req = wisp_list_entry(l, struct wisp_p2p_req, link);
        if (wisp_p2p_recv_lent(req) && matches(req->peer, req->tag, a->source, a->tag) &&
            matches(req->peer, req->tag, b->source, b->tag))
            return true;
    }
    return false;
}

/* The earlier messages of `msg`'s sender that stay here and can match one
 * of the lent receives `msg` can match (the MPI would let `msg` overtake
 * them): call `each` on each, in order, or only count them (`each` NULL).
 * -1: one of them cannot go to the MPI as wisp would match it. */
static int earlier_for_mpi(struct wisp_p2p_comm *comm, struct wisp_p2p_msg *msg,
                           void (*each)(struct wisp_p2p_msg *earlier, struct wisp_p2p_msg *msg))
{
    int n = 0;
    for (struct wisp_list *m = comm->unexpected.next; m != &msg->link; m = m->next) {
        struct wisp_p2p_msg *earlier = wisp_list_entry(m, struct wisp_p2p_msg, link);
        if (earlier->source != msg->source || wisp_p2p_routed(earlier) ||
            !share_lent(comm, earlier, msg))
            continue;
        if (!wisp_p2p_returnable(earlier) || !lent_first(comm, earlier))
            return -1;
        if (each)
            each(earlier, msg);
        n++;
    }
    return n;
}

/* May message `msg`, queued, whose first matching receive is lent, go
 * through the MPI? Only where the MPI then matches it as wisp
 * would: lent_first, and every earlier message of its sender that stays
 * here and can match one of the same lent receives goes there first:
 * handed back to the sender (queued behind `msg`, in batches as records
 * free up: lend.c), which sends it just before. (A message forwarded
 * that no lent receive took waits in the MPI, where a matched probe of
 * another thread may find it: first_taker.) */
static bool forwardable(struct wisp_p2p_comm *comm, struct wisp_p2p_msg *msg)
{
    if (!lent_first(comm, msg) || earlier_for_mpi(comm, msg, NULL) < 0)
        return false;
    earlier_for_mpi(comm, msg, wisp_p2p_route_queue);
    return true;
}

/* Rendezvous message `msg`, queued, belongs to a lent receive: its sender
 * may be on its way into the same blocking call and must not wait for that
 * receive. A standard message is copied aside; a synchronous one (which
 * cannot complete before its match), or a standard one without memory for
 * its copy, goes through the MPI. */
static void unblock_sender(struct wisp_p2p_comm *comm, struct wisp_p2p_msg *msg)
{
    static bool told;
    /* A standard message that fits the staging area completes without its
     * receive even uncopied: staged, or staged late by its sender. */
    if (!wisp_p2p_msg_sync(msg) && (wisp_p2p_spill(msg) || msg->size <= wisp_p2p.stage))
        return;
    if (forwardable(comm, msg)) {
        wisp_p2p_forward(msg);
        return;
    }
    if (!told) {
        told = true;
        wisp_log(1,
                 "a send from node rank %d waits for a receive lent to the MPI during a blocking "
                 "call and cannot go through the MPI in order (a receive that is not lent comes "
                 "first for it or for an earlier message of its sender); if the sender must "
                 "finish it before joining that call, the job hangs (docs/p2p.md)",
                 msg->from);
    }
}

static void spill_queue(struct wisp_list *queue, void *from)
{
    for (struct wisp_list *l = queue->next, *next; l != queue; l = next) {
        next = l->next;
        struct wisp_p2p_msg *msg = wisp_list_entry(l, struct wisp_p2p_msg, link);
        if (msg->from == *(int *)from && msg->slot >= 0 && !wisp_p2p_routed(msg))
            wisp_p2p_spill(msg); /* its copy takes its place, before `next` */
    }
}

void wisp_p2p_spill_held(int from)
{
    wisp_p2p_comm_each_unexpected(spill_queue, &from);
}

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
        struct wisp_p2p_req *req = first_posted(comm, msg->source, msg->tag);
        if (req && wisp_p2p_recv_lent(req))
            unblock_sender(comm, msg);
    }
}

void wisp_p2p_incoming(struct wisp_p2p_comm *comm, struct wisp_p2p_msg *msg)
{
    struct wisp_p2p_req *req = first_posted(comm, msg->source, msg->tag);
    if (req && may_take(comm, req)) {
        unpost(req);
        wisp_p2p_deliver(req, msg);
        return;
    }
    wisp_list_push(&comm->unexpected, &msg->link);
    if (req && msg->slot >= 0)
        unblock_sender(comm, msg); /* it waits for a lent receive */
}

int wisp_p2p_recv_prepare(struct wisp_p2p_req *req)
{
    bool contig;
    MPI_Aint offset;
    int rc = wisp_p2p_type_bytes(req->type, req->count, &req->cap, &contig, &offset,
                                 &req->predefined_type);
    if (rc != MPI_SUCCESS)
        return rc;
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
static int post_to_mpi_from(struct wisp_p2p_req *req, int source, int tag)
{
    return WISP_P2P_MPI(Irecv, req->count, req->rbuf, req->count, req->type, source, tag,
                        req->handle, &req->inner);
}

/* Receive `req`, out of every queue, goes to the MPI for good. */
static int to_mpi(struct wisp_p2p_req *req, unsigned from)
{
    recv_move(req, from, WISP_P2P_RECV_MPI);
    return post_to_mpi_from(req, req->peer, req->tag);
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
    if (wisp_p2p_copy_filling(msg)) { /* delivered when whole: wisp_p2p_spilled */
        recv_move(req, from, WISP_P2P_RECV_MATCHED);
        wisp_p2p_copy_take(msg, req);
        req->msg = msg;
        return;
    }
    if (msg->sync_seq)
        wisp_p2p_sync_matched(msg);
    if (wisp_p2p_routed(msg) && !wisp_p2p_forward_recall(msg)) {
        /* Its sender sent it through the MPI: receive it there, exactly. */
        free(req->tmp);
        req->tmp = NULL;
        recv_move(req, from, WISP_P2P_RECV_FORWARDED);
        wisp_p2p_req_fail_on(req, post_to_mpi_from(req, msg->source, msg->tag));
        wisp_p2p_msg_drop(msg);
        return;
    }
    recv_move(req, from, WISP_P2P_RECV_MATCHED);
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

void wisp_p2p_spilled(struct wisp_p2p_req *fill)
{
    struct wisp_p2p_msg *copy = fill->spill;
    wisp_p2p_req_release(fill);
    switch (wisp_p2p_copy_whole(copy)) {
    case WISP_P2P_COPY_DROPPED:
        free(copy);
        break;
    case WISP_P2P_COPY_TAKEN:
        copy->taker->msg = NULL;
        wisp_p2p_deliver(copy->taker, copy);
        break;
    default:
        unblock_behind(copy);
    }
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
        wisp_list_push(&remote_comms, &req->comm->remote_link);
        wisp_p2p_count_add(&wisp_p2p_remote_count, 1);
    }
    wisp_list_push(&req->comm->remote, &req->rlink);
}

int wisp_p2p_recv_start(struct wisp_p2p_req *req)
{
    struct wisp_p2p_comm *comm = req->comm;
    recv_move(req, WHERE(IDLE) | WHERE(MATCHED) | WHERE(FORWARDED) | WHERE(MPI),
              WISP_P2P_RECV_IDLE); /* a persistent one's next round */
    req->done = false;
    req->inner = MPI_REQUEST_NULL;
    req->from_inner = false;
    req->st_cancelled = false;
    if (req->peer == MPI_PROC_NULL) {
        req->st_source = MPI_PROC_NULL;
        req->st_tag = MPI_ANY_TAG;
        req->st_bytes = 0;
        req->st_error = MPI_SUCCESS;
        req->done = true;
        return MPI_SUCCESS;
    }
    if (req->peer != MPI_ANY_SOURCE && comm->node_of[req->peer] < 0) {
        if (wisp_list_empty(&comm->remote))
            return to_mpi(req, WHERE(IDLE));
        recv_move(req, WHERE(IDLE), WISP_P2P_RECV_HELD);
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
        recv_move(req, WHERE(IDLE), WISP_P2P_RECV_WILDCARD);
        queue_remote(req);
    } else {
        recv_move(req, WHERE(IDLE), WISP_P2P_RECV_POSTED);
    }
    return MPI_SUCCESS;
}

/* The MPI gave a local message to a receive of ours (a lent one, or one a
 * matched probe found it for) or to the user's matched probe: one its
 * sender forwarded or had handed back, the first marked one of that sender
 * and tag (the MPI matches a sender's messages in the order they were
 * sent, and they were sent in the order they are queued here). Its sender
 * may let go of it. */
static void forwarded_taken(struct wisp_p2p_comm *comm, int source, int tag)
{
    for (struct wisp_list *l = comm->unexpected.next; l != &comm->unexpected; l = l->next) {
        struct wisp_p2p_msg *msg = wisp_list_entry(l, struct wisp_p2p_msg, link);
        if (wisp_p2p_routed(msg) && msg->source == source && msg->tag == tag) {
            wisp_list_remove(&msg->link);
            wisp_p2p_msg_drop(msg);
            return;
        }
    }
}

static bool local_source(const struct wisp_p2p_comm *comm, int source)
{
    return source >= 0 && source < comm->size && comm->node_of[source] >= 0;
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
    if (local_source(comm, source)) {
        for (struct wisp_list *l = comm->posted.next; l != &comm->posted; l = l->next) {
            struct wisp_p2p_req *req = wisp_list_entry(l, struct wisp_p2p_req, link);
            if (!wisp_p2p_recv_lent(req) && matches(req->peer, req->tag, source, tag))
                return req;
        }
        return NULL;
    }
    for (struct wisp_list *l = comm->remote.next; l != &comm->remote; l = l->next) {
        struct wisp_p2p_req *req = wisp_list_entry(l, struct wisp_p2p_req, rlink);
        if (!wisp_p2p_recv_lent(req) && matches(req->peer, req->tag, source, tag))
            return req;
    }
    return NULL;
}

/* Receive `req` is the MPI's now: out of `posted` and/or `remote`. */
static void hand_over(struct wisp_p2p_req *req)
{
    if (in_posted(req)) {
        unpost(req);
        free(req->tmp);
        req->tmp = NULL;
    } else {
        unhold(req);
    }
    recv_move(req, QUEUED, WISP_P2P_RECV_MPI);
}

/* Hand a message the MPI matched for us (MPI_Improbe), from `source` with
 * `tag`, to `req`. */
static void take(struct wisp_p2p_req *req, MPI_Message *message, int source, int tag)
{
    hand_over(req);
    wisp_p2p_req_fail_on(req, WISP_P2P_MPI(Imrecv, req->count, req->rbuf, req->count, req->type,
                                           message, &req->inner));
    if (local_source(req->comm, source))
        forwarded_taken(req->comm, source, tag);
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
        if (matches(a->source[i], a->tag[i], source, tag))
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
    for (struct wisp_list *c = remote_comms.next, *cnext; c != &remote_comms; c = cnext) {
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
        if (local_source(comm, st.MPI_SOURCE))
            forwarded_taken(comm, st.MPI_SOURCE, st.MPI_TAG);
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
        if (matches(source, tag, msg->source, msg->tag) &&
            (wisp_list_empty(&lent) || !first_posted(comm, msg->source, msg->tag)))
            return msg;
    }
    return NULL;
}

static bool unlend(struct wisp_p2p_req *req);
static void rematch(struct wisp_p2p_comm *comm);

bool wisp_p2p_recv_cancel(struct wisp_p2p_req *req)
{
    if (req->done)
        return false;
    /* Lent for another thread's blocking call: settled with the MPI now.
     * Local messages it was owed go to their next match at once (that
     * receive's thread may be what lets the blocking call return). */
    bool was_lent = wisp_p2p_recv_lent(req);
    if (was_lent && !unlend(req)) {
        rematch(req->comm);
        return true;
    }
    switch ((enum wisp_p2p_recv_where)req->where) {
    case WISP_P2P_RECV_MPI:
        PMPI_Cancel(&req->inner);
        return true; /* the MPI's status will say */
    case WISP_P2P_RECV_POSTED:
    case WISP_P2P_RECV_WILDCARD:
        unpost(req);
        free(req->tmp);
        req->tmp = NULL;
        break;
    case WISP_P2P_RECV_HELD:
        unhold(req);
        break;
    default: /* matched, or not waiting at all */
        return false;
    }
    recv_move(req, QUEUED, WISP_P2P_RECV_IDLE);
    req->st_cancelled = true;
    req->st_source = MPI_ANY_SOURCE;
    req->st_tag = MPI_ANY_TAG;
    req->st_bytes = 0;
    req->st_error = MPI_SUCCESS;
    req->done = true;
    if (was_lent)
        rematch(req->comm);
    return true;
}

/* ---- lending the `remote` queues to the MPI around a blocking call ------ */

/* Blocking calls under way with receives lent: the last one to return
 * takes them back (another thread's may still need them, under
 * MPI_THREAD_MULTIPLE). */
static unsigned lenders;

/*
 * The receives of `comm` to lend, in `*order`: its `remote` queue, and the
 * receives for other processes of the node posted after its first
 * wildcard. Those can take a synchronous message forwarded to a lent
 * wildcard (match.c, forwardable) when the wildcard took another in the
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
    for (struct wisp_list *c = remote_comms.next; c != &remote_comms; c = c->next) {
        struct wisp_p2p_comm *comm = wisp_list_entry(c, struct wisp_p2p_comm, remote_link);
        struct wisp_p2p_req **order;
        size_t n = lend_order(comm, &order);
        for (size_t i = 0; i < n; i++) {
            struct wisp_p2p_req *req = order[i];
            if (wisp_p2p_recv_lent(req) ||
                post_to_mpi_from(req, req->peer, req->tag) != MPI_SUCCESS)
                continue; /* a receive the MPI refuses stays wisp's */
            recv_move(req, QUEUED, req->where + LENT_APART);
            wisp_list_push(&lent, &req->llink);
        }
    }
    bool holds = !wisp_list_empty(&lent);
    lenders += holds;
    wisp_p2p_unlock();
    return holds;
}

/* A lent receive the MPI completed (its error code `rc`), or cancelled
 * for the user. */
static void lent_done(struct wisp_p2p_req *req, int rc, MPI_Status status)
{
    recv_move(req, LENT, req->where - LENT_APART);
    wisp_list_remove(&req->llink);
    int source = status.MPI_SOURCE, cancelled = 0;
    PMPI_Test_cancelled(&status, &cancelled); /* by the user: no message taken */
    if (!cancelled && local_source(req->comm, source))
        forwarded_taken(req->comm, source, status.MPI_TAG);
    hand_over(req);
    req->inner_status = status;
    req->from_inner = true;
    req->st_error = rc;
    req->done = true;
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
        recv_move(req, LENT, req->where - LENT_APART);
        wisp_list_remove(&req->llink);
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
        struct wisp_p2p_req *req = first_posted(comm, msg->source, msg->tag);
        if (req && !wisp_p2p_recv_lent(req) && !wanted_earlier(comm, req, &msg->link)) {
            unpost(req);
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
    for (struct wisp_list *l = lent.prev, *prev; l != &lent; l = prev) {
        prev = l->prev;
        struct wisp_p2p_req *req = wisp_list_entry(l, struct wisp_p2p_req, llink);
        struct wisp_p2p_comm *comm = req->comm;
        if (!unlend(req) && req->user_freed && !req->engine_holds)
            wisp_p2p_req_release(req);
        rematch(comm);
    }
    wisp_p2p_unlock();
}
