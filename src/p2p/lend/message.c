/*
 * Lending, a waiting message's side (lend.h tells the whole story): a
 * message that a lent receive matches, so that its sender does not wait
 * for it (unblock_sender), copied aside into private memory (or one whose
 * sender is out of slots), the copy's life, and a message's route to the
 * MPI when its sender must send it there (forwarded, and the earlier ones
 * handed back first: handback.c). Below loan.c; matching reaches it only
 * through lend.c's entry; the receives lent are loan.c's.
 */
#include "p2p/lend/message.h"

#include <stdlib.h>

#include "core/clock.h"
#include "core/log.h"
#include "p2p/contexts.h"
#include "p2p/lend/handback.h"
#include "p2p/lock.h"
#include "p2p/recv.h"
#include "p2p/request.h"
#include "p2p/transport.h"

/* Synchronous messages from local senders forwarded ahead of more earlier
 * messages than one batch of records names (wisp_p2p_forward), in the
 * order they were asked for. */
static struct wisp_list batched = {&batched, &batched};
unsigned wisp_p2p_lend_batched; /* their number */

/* ---- a message for a lent receive: its sender must not wait ------------ */

/* Can this process hand unexpected message `msg` back to its sender (its
 * bytes are here, whole)? */
static bool returnable(const struct wisp_p2p_msg *msg)
{
    return msg->slot < 0 && !wisp_p2p_copy_filling(msg) && !msg->waiter && !msg->lend.sync_seq;
}

/* Does every lent receive that `msg` can match come before every other
 * receive it can match? (The MPI sees only the lent ones.) */
static bool lent_first(struct wisp_p2p_comm *comm, const struct wisp_p2p_msg *msg)
{
    bool unlent = false;
    for (struct wisp_list *l = comm->posted.next; l != &comm->posted; l = l->next) {
        struct wisp_p2p_req *req = wisp_list_entry(l, struct wisp_p2p_req, link);
        if (!wisp_p2p_matches(req->peer, req->tag, msg->source, msg->tag))
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
        if (wisp_p2p_recv_lent(req) && wisp_p2p_matches(req->peer, req->tag, a->source, a->tag) &&
            wisp_p2p_matches(req->peer, req->tag, b->source, b->tag))
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
        if (!returnable(earlier) || !lent_first(comm, earlier))
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
 * free up: below), which sends it just before. (A message forwarded
 * that no lent receive took waits in the MPI, where a matched probe of
 * another thread may find it: match.c, first_taker.) */
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
void wisp_p2p_unblock_sender(struct wisp_p2p_comm *comm, struct wisp_p2p_msg *msg)
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

/* ---- a copy aside -------------------------------------------------------- */

/*
 * The sender of a rendezvous message waits until a receiver copies it. When
 * the receive it belongs to is lent to the MPI for a blocking call (loan.c),
 * the sender may be on its way to that same call (a collective both enter):
 * it would never get there. A standard message is then copied into a
 * private buffer, which takes its place among the unexpected messages, and
 * the sender completes, as the MPI's eager protocol lets a standard send do.
 */
bool wisp_p2p_spill(struct wisp_p2p_msg *msg)
{
    struct wisp_p2p_msg *copy = malloc(sizeof *copy + msg->size);
    struct wisp_p2p_req *fill = copy ? wisp_p2p_req_new(WISP_P2P_RECV, WISP_P2P_LIFE_ACTIVE) : NULL;
    if (!fill) {
        free(copy);
        wisp_log(1, "no memory to copy aside a waiting message of %llu bytes from node rank %d",
                 (unsigned long long)msg->size, msg->from);
        return false;
    }
    *copy = (struct wisp_p2p_msg){.source = msg->source,
                                  .tag = msg->tag,
                                  .size = msg->size,
                                  .from = msg->from,
                                  .ctx = msg->ctx,
                                  .slot = -1,
                                  .lend.copy = WISP_P2P_COPY_FILLING};
    struct slot *s = slot_at(msg->from, msg->slot);
    if (s->sync)
        copy->lend.sync_seq = s->seq;        /* its sender hears of the match: SLOT_COPIED */
    wisp_list_push(&msg->link, &copy->link); /* just before it */
    wisp_list_remove(&msg->link);
    fill->spill = copy;
    fill->dst = (char *)copy->data;
    fill->cap = msg->size;
    fill->msg = msg;
    wisp_p2p_recv_advance(fill);
    return true;
}

/* ---- a copy's life (lend_parts.h, enum wisp_p2p_copy) --------------- */

#define COPY(s) (1u << WISP_P2P_COPY_##s)

/* Every change of a copy's state: from one of the states in `from` (a mask
 * of COPY(...)), checked in the debug and sanitizer builds. */
static void copy_move(struct wisp_p2p_msg *msg, unsigned from, enum wisp_p2p_copy to)
{
    static const char *const names[] = {
#define X(state) #state,
        WISP_P2P_COPY_STATES(X)
#undef X
    };
    wisp_state_check("a message's copy aside", names, msg->lend.copy, from, to);
    msg->lend.copy = to;
}

void wisp_p2p_copy_take(struct wisp_p2p_msg *copy, struct wisp_p2p_req *req)
{
    copy_move(copy, COPY(FILLING), WISP_P2P_COPY_TAKEN);
    copy->lend.taker = req;
}

enum wisp_p2p_copy wisp_p2p_copy_whole(struct wisp_p2p_msg *copy)
{
    enum wisp_p2p_copy was = copy->lend.copy;
    copy_move(copy, COPY(FILLING) | COPY(TAKEN) | COPY(DROPPED), WISP_P2P_COPY_WHOLE);
    return was;
}

/* ---- a message's route to the MPI (lend_parts.h, enum wisp_p2p_route) ---- */

#define ROUTE(s) (1u << WISP_P2P_ROUTE_##s)

/* Every change of a message's route: from one of the states in `from` (a
 * mask of ROUTE(...)), checked in the debug and sanitizer builds. */
static void route_move(struct wisp_p2p_msg *msg, unsigned from, enum wisp_p2p_route to)
{
    static const char *const names[] = {
#define X(state) #state,
        WISP_P2P_ROUTE_STATES(X)
#undef X
    };
    wisp_state_check("a message's route to the MPI", names, msg->lend.route, from, to);
    msg->lend.route = to;
}

void wisp_p2p_route_queue(struct wisp_p2p_msg *earlier, struct wisp_p2p_msg *msg)
{
    route_move(earlier, ROUTE(HERE), WISP_P2P_ROUTE_QUEUED);
    earlier->lend.behind = msg;
}

/* `msg` no longer waits for earlier messages to be named (BATCHED ->
 * `to`): those still QUEUED before it are plain unexpected ones again. */
static void unbatch(struct wisp_p2p_msg *msg, enum wisp_p2p_route to)
{
    route_move(msg, ROUTE(BATCHED), to);
    wisp_list_remove(&msg->lend.hlink);
    wisp_p2p_lend_batched--;
    wisp_p2p_count_add(&wisp_p2p.outstanding, -1);
    struct wisp_p2p_comm *comm = wisp_p2p_comm_of_ctx(msg->ctx);
    if (!comm)
        return;
    for (struct wisp_list *l = comm->unexpected.next; l != &comm->unexpected; l = l->next) {
        struct wisp_p2p_msg *m = wisp_list_entry(l, struct wisp_p2p_msg, link);
        if (m->lend.route == WISP_P2P_ROUTE_QUEUED && m->lend.behind == msg) {
            route_move(m, ROUTE(QUEUED), WISP_P2P_ROUTE_HERE);
            m->lend.behind = NULL;
        }
    }
}

/* Name in BATCHED `msg`'s slot the next batch of the earlier messages
 * queued before it (QUEUED -> HANDED), as many as its sender's records free
 * here allow, and ask the sender (FORWARD); `more` when some are left,
 * else `msg` is ASKED. Only the first message of a sender in `batched`
 * takes records: its sender sends in order, so a later one that held
 * records would keep them from the first, which it waits for. The number
 * named. */
static uint32_t name_batch(struct wisp_p2p_msg *msg)
{
    struct slot *s = slot_at(msg->from, msg->slot);
    struct wisp_p2p_comm *comm = wisp_p2p_comm_of_ctx(msg->ctx);
    bool first = true, more = false;
    for (struct wisp_list *l = batched.next; l != &msg->lend.hlink; l = l->next)
        first &= wisp_list_entry(l, struct wisp_p2p_msg, lend.hlink)->from != msg->from;
    uint32_t n = 0;
    for (struct wisp_list *l = comm->unexpected.next; l != &comm->unexpected; l = l->next) {
        struct wisp_p2p_msg *m = wisp_list_entry(l, struct wisp_p2p_msg, link);
        if (m->lend.route != WISP_P2P_ROUTE_QUEUED || m->lend.behind != msg)
            continue;
        if (!first || n == WISP_P2P_RETURN_MAX || !wisp_p2p_handback_put(m)) {
            more = true;
            break;
        }
        route_move(m, ROUTE(QUEUED), WISP_P2P_ROUTE_HANDED);
        m->lend.behind = NULL;
        s->lend.before[n].index = m->lend.ret_index;
        s->lend.before[n].gen = m->lend.ret_gen;
        n++;
    }
    s->lend.nbefore = n;
    s->lend.more = more;
    slot_move(s, SLOT(POSTED) | SLOT(HANDING), SLOT_FORWARD, memory_order_release);
    wake(msg->from);
    if (!more)
        unbatch(msg, WISP_P2P_ROUTE_ASKED);
    return n;
}

/*
 * A synchronous message cannot complete before its match, so copying it
 * aside would not free a sender on its way to a blocking call: for a lent
 * receive, the receiver asks its sender to send it through the MPI
 * instead, where the lent receive may take it. The message stays among the
 * unexpected ones, marked: a receive that takes it later recalls it
 * here if its sender has not sent it yet, else receives it from the MPI.
 */
void wisp_p2p_forward(struct wisp_p2p_msg *msg)
{
    route_move(msg, ROUTE(HERE), WISP_P2P_ROUTE_BATCHED);
    wisp_list_push(&batched, &msg->lend.hlink);
    wisp_p2p_lend_batched++;
    wisp_p2p_count_add(&wisp_p2p.outstanding, 1);
    name_batch(msg);
}

/* Senders that sent a batch (HANDING): their records sent are free again,
 * and the next batch is named. One that could name nothing stays HANDING
 * and is tried again a millisecond later (its pipe busy). */
bool wisp_p2p_name_next_batches(void)
{
    static uint64_t retry_at;
    if (wisp_list_empty(&batched))
        return false;
    if (retry_at && wisp_core_clock_ns() < retry_at)
        return false;
    retry_at = 0;
    bool moved = false;
    for (struct wisp_list *l = batched.next, *next; l != &batched; l = next) {
        next = l->next;
        struct wisp_p2p_msg *msg = wisp_list_entry(l, struct wisp_p2p_msg, lend.hlink);
        struct slot *s = slot_at(msg->from, msg->slot);
        if (atomic_load_explicit(&s->state, memory_order_acquire) != SLOT_HANDING)
            continue;
        struct wisp_p2p_msg *sent[WISP_P2P_RETURN_MAX];
        for (int i = 0, n = wisp_p2p_handback_reclaim(msg->from, sent); i < n; i++)
            route_move(sent[i], ROUTE(HANDED), WISP_P2P_ROUTE_SENT); /* through the MPI */
        if (name_batch(msg) || msg->lend.route != WISP_P2P_ROUTE_BATCHED)
            moved = true;
        else
            retry_at = wisp_core_clock_ns() + 1000000u;
    }
    return moved;
}

bool wisp_p2p_forward_recall(struct wisp_p2p_msg *msg)
{
    enum wisp_p2p_route route = msg->lend.route;
    msg->lend.behind = NULL;
    switch (route) {
    case WISP_P2P_ROUTE_HERE:
        route_move(msg, 0, WISP_P2P_ROUTE_HERE); /* never asked for */
        return true;
    case WISP_P2P_ROUTE_QUEUED: /* never named to its sender */
        route_move(msg, ROUTE(QUEUED), WISP_P2P_ROUTE_HERE);
        return true;
    case WISP_P2P_ROUTE_HANDED:
        route_move(msg, ROUTE(HANDED), WISP_P2P_ROUTE_HERE);
        return wisp_p2p_handback_recall(msg);
    case WISP_P2P_ROUTE_SENT:
        route_move(msg, ROUTE(SENT), WISP_P2P_ROUTE_HERE);
        return false;
    case WISP_P2P_ROUTE_ASKED:
    case WISP_P2P_ROUTE_BATCHED:
        break;
    }
    struct slot *s = slot_at(msg->from, msg->slot);
    uint32_t state = atomic_load_explicit(&s->state, memory_order_acquire);
    bool recalled = false;
    while ((state == SLOT_FORWARD || state == SLOT_HANDING) &&
           !(recalled = slot_swap(s, &state, SLOT(FORWARD) | SLOT(HANDING), SLOT_POSTED)))
        ;
    if (route == WISP_P2P_ROUTE_BATCHED)
        unbatch(msg, WISP_P2P_ROUTE_HERE);
    else
        route_move(msg, ROUTE(ASKED), WISP_P2P_ROUTE_HERE);
    return recalled;
}

bool wisp_p2p_lend_drop(struct wisp_p2p_msg *msg)
{
    if (wisp_p2p_copy_filling(msg)) { /* freed when whole: wisp_p2p_spilled */
        copy_move(msg, COPY(FILLING), WISP_P2P_COPY_DROPPED);
        return true;
    }
    /* A record named to its sender: copied out, or too late now. A
     * synchronous one still waiting for batches: the rest stay here. */
    if (msg->lend.route == WISP_P2P_ROUTE_HANDED || msg->lend.route == WISP_P2P_ROUTE_BATCHED)
        wisp_p2p_forward_recall(msg);
    return false;
}

/* The MPI gave a local message to a receive of ours (a lent one, or one a
 * matched probe found it for) or to the user's matched probe: one its
 * sender forwarded or had handed back, the first marked one of that sender
 * and tag (the MPI matches a sender's messages in the order they were
 * sent, and they were sent in the order they are queued here). Its sender
 * may let go of it. */
void wisp_p2p_forwarded_taken(struct wisp_p2p_comm *comm, int source, int tag)
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
