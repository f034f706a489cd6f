/*
 * The receiving side of the engine's protocols (transport.h): the rings
 * drained, each message matched or kept unexpected; a rendezvous copied
 * in (single copy, synergistic blocks, staged chunks); MATCHED notices to
 * the sender of a synchronous copy.
 */
#include "p2p/recv.h"

#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "p2p/blocks.h"
#include "p2p/contexts.h"
#include "p2p/datatype.h"
#include "p2p/layout.h"
#include "p2p/lock.h"
#include "p2p/queues.h"
#include "p2p/request.h"
#include "p2p/send.h"
#include "p2p/transport.h"
#include "shm/heap.h"

static struct wisp_list receiving = {&receiving, &receiving}; /* copying a rendezvous message */
/* MATCHED notices that found the ring to their sender full: sent later. */
static struct matched_notice {
    int to;
    uint64_t seq;
} * notices;
static size_t nnotices, notices_cap;

/* Unpack the bytes received, also a last partial element (a message of
 * basic elements need not fill whole elements of the receive type): that
 * one is packed from the buffer, completed and unpacked again. */
static void unpack(struct wisp_p2p_req *req)
{
    MPI_Count size = 0, position = 0, lb, extent;
    if (PMPI_Type_size_x(req->type, &size) != MPI_SUCCESS || size <= 0 ||
        PMPI_Type_get_extent_x(req->type, &lb, &extent) != MPI_SUCCESS)
        return;
    MPI_Count whole = (MPI_Count)(req->st_bytes / (uint64_t)size);
    int rest = (int)(req->st_bytes % (uint64_t)size);
    wisp_p2p_unpack(req->tmp, (MPI_Count)req->st_bytes, &position, req->rbuf, whole, req->type);
    if (!rest)
        return;
    char *last = (char *)req->rbuf + whole * extent;
    char *element = malloc((size_t)size);
    if (!element)
        wisp_fatal("out of memory to unpack a message");
    MPI_Count at = 0;
    wisp_p2p_pack(last, 1, req->type, element, size, &at);
    memcpy(element, (char *)req->tmp + (size_t)whole * (size_t)size, (size_t)rest);
    at = 0;
    wisp_p2p_unpack(element, size, &at, last, 1, req->type);
    free(element);
}

/* Receives the rescuer completed that need the MPI, which it never calls. */
static struct wisp_list deferred = {&deferred, &deferred};

void wisp_p2p_recv_finish(struct wisp_p2p_req *req)
{
    if (wisp_p2p.rescuing && (req->unpack || req->type_ref == WISP_P2P_TYPE_HELD)) {
        wisp_p2p_recv_move(req, WISP_P2P_WHERE(MATCHED), WISP_P2P_RECV_DEFERRED);
        wisp_list_push(&deferred, &req->link);
        wisp_p2p_count_add(&wisp_p2p.deferred, 1);
        return;
    }
    if (req->where == WISP_P2P_RECV_DEFERRED) {
        wisp_p2p_recv_move(req, WISP_P2P_WHERE(DEFERRED), WISP_P2P_RECV_MATCHED);
        wisp_list_remove(&req->link);
        wisp_p2p_count_add(&wisp_p2p.deferred, -1);
    }
    if (req->layout) {
        wisp_dt_desc_release(req->layout);
        req->layout = NULL;
    }
    if (req->unpack) {
        unpack(req);
        free(req->tmp);
        req->tmp = NULL;
    }
    wisp_p2p_req_move(req, WISP_P2P_COMPLETE); /* released, if the user freed it */
}

void wisp_p2p_finish_deferred(void)
{
    while (!wisp_list_empty(&deferred))
        wisp_p2p_recv_finish(wisp_list_entry(deferred.next, struct wisp_p2p_req, link));
}

/* Whether the sender of a layout read in place copies blocks of it too:
 * a large message, whole, into a receive buffer in the heap whose own
 * layout's description fits the slot. The first call publishes the
 * receive's side (its description before dst) and wakes the sender. */
static bool layout_synergy(struct wisp_p2p_req *req, const struct wisp_p2p_msg *msg, struct slot *s)
{
    if (atomic_load_explicit(&s->dst, memory_order_relaxed))
        return true;
    uint64_t n = msg->size;
    if (n < wisp_p2p.synergy_min || n > req->cap || req->unpack ||
        (req->layout ? wisp_dt_desc_bytes(req->layout) > LAYOUT_BYTES ||
                           !wisp_p2p_layout_in_heap(req->rbuf, req->count, req->layout)
                     : !wisp_shm_heap_holds(req->dst, n)))
        return false;
    s->rcount = req->count;
    s->rlayout =
        req->layout ? (uint32_t)wisp_dt_desc_export(req->layout, s->rdesc, LAYOUT_BYTES) : 0;
    atomic_store_explicit(&s->dst, req->layout ? (char *)req->rbuf : req->dst,
                          memory_order_release);
    wake(msg->from);
    return true;
}

static bool copy_rendezvous(struct wisp_p2p_req *req)
{
    struct wisp_p2p_msg *msg = req->msg;
    struct slot *s = slot_at(msg->from, msg->slot);
    uint64_t n = msg->size < req->cap ? msg->size : req->cap;
    bool moved = false;
    if (msg->src && s->layout) { /* the sender's layout in the heap, read in place */
        alignas(16) unsigned char desc[LAYOUT_BYTES];
        memcpy(desc, s->desc, s->layout);
        const wisp_dt_desc_t *sdesc = wisp_dt_desc_import(desc);
        if (layout_synergy(req, msg, s)) {
            struct wisp_p2p_blocks c = {.src = msg->src,
                                        .sdesc = sdesc,
                                        .scount = s->count,
                                        .dst = req->layout ? (char *)req->rbuf : req->dst,
                                        .ddesc = req->layout,
                                        .dcount = req->count};
            moved = wisp_p2p_claim_blocks(s, &c);
            if (atomic_load_explicit(&s->copied, memory_order_acquire) < msg->size)
                return moved; /* the sender still copies a block */
            wisp_stats_shm.synergistic++;
        } else {
            wisp_p2p_recv_get_layout(req, msg->src, s->count, sdesc, n);
            wisp_stats_shm.single_copy++;
        }
        wisp_stats_shm.copies++;
    } else if (msg->src) {
        /* A private side is reached by cross-memory attach: the source by
         * this receiver, a private receive buffer by the sender. */
        bool cma = !wisp_shm_heap_holds(msg->src, msg->size); /* a private page: not in place */
        bool synergy = msg->size >= wisp_p2p.synergy_min && n == msg->size && req->dst &&
                       !req->unpack && (wisp_p2p.cma || wisp_shm_heap_holds(req->dst, n));
        if (synergy) {
            if (!atomic_load_explicit(&s->dst, memory_order_relaxed)) {
                wisp_shm_heap_prefault(req->dst, n); /* the sender may write it by CMA */
                atomic_store_explicit(&s->dst, req->dst, memory_order_release);
                wake(msg->from);
            }
            struct wisp_p2p_blocks c = {.src = msg->src,
                                        .dst = req->dst,
                                        .peer = msg->from,
                                        .copy = cma ? wisp_p2p_copy_from_peer : wisp_p2p_copy_here};
            moved = wisp_p2p_claim_blocks(s, &c);
            if (atomic_load_explicit(&s->copied, memory_order_acquire) < msg->size)
                return moved; /* the sender still copies a block */
            wisp_stats_shm.synergistic++;
        } else {
            if (cma)
                wisp_p2p_recv_put_peer(req, 0, msg->from, msg->src, n);
            else
                wisp_p2p_recv_put(req, 0, msg->src, n);
            wisp_stats_shm.single_copy++;
        }
        wisp_stats_shm.copies++;
    } else {
        uint64_t j = msg->drained, all = chunks_of(msg->size);
        if (j >= msg->staged && j < all)
            msg->staged = atomic_load_explicit(&s->staged, memory_order_acquire);
        uint64_t ready = msg->staged;
        if (j < ready) {
            for (; j < ready; j++) {
                uint64_t at = j * chunk_size();
                uint64_t len = msg->size - at < chunk_size() ? msg->size - at : chunk_size();
                if (at < n)
                    wisp_p2p_recv_put(req, at, staging(s) + (j % CHUNKS) * chunk_size(),
                                      n - at < len ? n - at : len);
            }
            msg->drained = j;
            if (all > CHUNKS) { /* the sender waits for room */
                atomic_store_explicit(&s->drained, j, memory_order_release);
                wake(msg->from);
            }
            moved = true;
        }
        if (j < all)
            return moved;
        wisp_stats_shm.staged++;
        wisp_stats_shm.copies += 2;
    }
    if (!req->spill) /* a private copy counts its bytes when delivered */
        wisp_stats_shm.bytes += n;
    slot_move(s, SLOT(POSTED) | SLOT(MATCHED) | SLOT(STAGED),
              req->spill && s->sync ? SLOT_COPIED : SLOT_DONE, memory_order_release);
    wake(msg->from);
    wisp_list_remove(&req->link);
    wisp_p2p_count_add(&wisp_p2p.outstanding, -1);
    req->msg = NULL;
    free(msg);
    if (req->spill)
        wisp_p2p_up.lending(&(struct wisp_p2p_lend_event){.kind = WISP_P2P_LEND_WHOLE, .req = req});
    else
        wisp_p2p_recv_finish(req);
    return true;
}

bool wisp_p2p_msg_sync(const struct wisp_p2p_msg *msg)
{
    return msg->slot >= 0 && slot_at(msg->from, msg->slot)->sync;
}

static bool put_matched(int to, uint64_t seq)
{
    if (!wisp_fastbox_put(ring(wisp_p2p.node_rank, to), match_word(0, 0, KIND_MATCHED), &seq,
                          sizeof seq))
        return false;
    wake(to);
    return true;
}

void wisp_p2p_sync_matched(const struct wisp_p2p_msg *copy)
{
    if (put_matched(copy->from, copy->lend.sync_seq))
        return;
    if (nnotices == notices_cap) {
        size_t cap = notices_cap ? 2 * notices_cap : 16;
        struct matched_notice *more = realloc(notices, cap * sizeof *more);
        if (!more)
            wisp_fatal("out of memory for the match of a synchronous message");
        notices = more;
        notices_cap = cap;
    }
    notices[nnotices++] = (struct matched_notice){copy->from, copy->lend.sync_seq};
}

bool wisp_p2p_send_notices(void)
{
    if (!nnotices)
        return false;
    size_t kept = 0;
    for (size_t i = 0; i < nnotices; i++)
        if (!put_matched(notices[i].to, notices[i].seq))
            notices[kept++] = notices[i];
    bool moved = kept < nnotices;
    nnotices = kept;
    return moved;
}

void wisp_p2p_recv_advance(struct wisp_p2p_req *req)
{
    struct wisp_p2p_msg *msg = req->msg;
    uint32_t posted = SLOT_POSTED;
    if (msg->src && !slot_swap(slot_at(msg->from, msg->slot), &posted, SLOT(POSTED), SLOT_MATCHED))
        msg->src = NULL; /* its sender took it back: it is (being) staged */
    wisp_list_push(&receiving, &req->link);
    wisp_p2p_count_add(&wisp_p2p.outstanding, 1);
    copy_rendezvous(req);
}

/* A message for `comm` (NULL: not served here yet, so kept for later). */
static void arrived(struct wisp_p2p_comm *comm, struct wisp_p2p_msg *msg)
{
    if (comm)
        wisp_p2p_up.incoming(comm, msg);
    else
        wisp_p2p_comm_keep_early(msg);
}

/* An immediate message straight from the cells into a receive's buffer, or
 * piece by piece into its layout. */
static void read_cells(const struct wisp_fastbox_ring *r, const struct wisp_fastbox_cell *cell,
                       struct wisp_p2p_req *req, uint64_t n)
{
    if (!req->layout) {
        wisp_fastbox_read(r, cell, req->dst, 0, (uint32_t)n);
        return;
    }
    char piece[512]; /* a ULT's stack is small */
    for (uint64_t at = 0; at < n; at += sizeof piece) {
        uint32_t len = n - at < sizeof piece ? (uint32_t)(n - at) : (uint32_t)sizeof piece;
        wisp_fastbox_read(r, cell, piece, (uint32_t)at, len);
        wisp_p2p_recv_put(req, at, piece, len);
    }
}

static struct wisp_p2p_msg *msg_new(size_t payload)
{
    struct wisp_p2p_msg *msg = malloc(sizeof *msg + payload);
    if (!msg)
        wisp_fatal("out of memory for an unexpected message");
    return msg;
}

bool wisp_p2p_drain(struct wisp_fastbox_ring *r, int from)
{
    const struct wisp_fastbox_cell *cell = wisp_fastbox_peek(r);
    if (!cell)
        return false;
    do {
        int kind = kind_of(cell->match), tag = tag_of(cell->match), ctx = ctx_of(cell->match);
        struct wisp_p2p_comm *comm = wisp_p2p_comm_of_ctx(ctx);
        int source = comm ? comm->rank_of[from] : -1;
        if (kind == KIND_MATCHED) {
            uint64_t seq;
            wisp_fastbox_read(r, cell, &seq, 0, sizeof seq);
            wisp_p2p_sync_done(seq);
        } else if (kind == KIND_IMMEDIATE) {
            struct wisp_p2p_req *req = comm ? wisp_p2p_match_posted(comm, source, tag) : NULL;
            if (req) { /* straight from the cells into the receive buffer */
                uint64_t n = cell->size < req->cap ? cell->size : req->cap;
                read_cells(r, cell, req, n);
                req->st_source = source;
                req->st_tag = tag;
                req->st_bytes = n;
                req->st_error = cell->size > req->cap ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
                wisp_stats_shm.bytes += n;
                wisp_p2p_recv_finish(req);
            } else {
                struct wisp_p2p_msg *msg = msg_new(cell->size);
                *msg = (struct wisp_p2p_msg){.source = source,
                                             .tag = tag,
                                             .size = cell->size,
                                             .from = from,
                                             .ctx = ctx,
                                             .slot = -1};
                wisp_fastbox_read(r, cell, msg->data, 0, cell->size);
                arrived(comm, msg);
            }
            wisp_stats_shm.immediate++;
            wisp_stats_shm.copies += 2;
        } else {
            struct rendezvous rdv;
            wisp_fastbox_read(r, cell, &rdv, 0, sizeof rdv);
            struct wisp_p2p_msg *msg = msg_new(0);
            *msg = (struct wisp_p2p_msg){.source = source,
                                         .tag = tag,
                                         .size = rdv.size,
                                         .from = from,
                                         .ctx = ctx,
                                         .slot = (int)rdv.slot,
                                         .src = rdv.src,
                                         .staged = rdv.staged};
            arrived(comm, msg);
        }
        wisp_fastbox_release(r);
    } while ((cell = wisp_fastbox_peek(r)));
    return true;
}

bool wisp_p2p_copy_receiving(void)
{
    bool moved = false;
    for (struct wisp_list *l = receiving.next, *next; l != &receiving; l = next) {
        next = l->next;
        moved |= copy_rendezvous(wisp_list_entry(l, struct wisp_p2p_req, link));
    }
    return moved;
}

void wisp_p2p_msg_drop(struct wisp_p2p_msg *msg)
{
    if (wisp_p2p_lending_marked(&msg->lend) && wisp_p2p_up.lending(&(struct wisp_p2p_lend_event){
                                                   .kind = WISP_P2P_LEND_DROPPED, .msg = msg}))
        return; /* lending frees it later */
    if (msg->slot >= 0) {
        struct slot *s = slot_at(msg->from, msg->slot);
        /* A sender staging it late (STAGING) writes STAGED: DONE must come after. */
        uint32_t state = atomic_load_explicit(&s->state, memory_order_acquire);
        unsigned rounds = 0;
        unsigned droppable = SLOT(POSTED) | SLOT(MATCHED) | SLOT(STAGED) | SLOT(FORWARD) |
                             SLOT(FORWARDED) | SLOT(HANDING);
        while (state == SLOT_STAGING || !slot_swap(s, &state, droppable, SLOT_DONE)) {
            if (state == SLOT_STAGING)
                wisp_backoff(&rounds); /* the sender may be preempted mid-copy */
            state = atomic_load_explicit(&s->state, memory_order_acquire);
        }
        wake(msg->from);
    }
    free(msg);
}
