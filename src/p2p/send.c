/*
 * The sending side of the engine's protocols (transport.h): a send into
 * the ring, immediate or with a rendezvous slot, or queued behind others;
 * a slot's copies moved on (staged chunks, synergistic blocks, staged late)
 * until its receiver is done with it; one forwarded through the MPI is
 * lending's (lend/forward.c).
 */
#include "p2p/send.h"

#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "p2p/blocks.h"
#include "p2p/datatype.h"
#include "p2p/request.h"
#include "p2p/transport.h"
#include "shm/heap.h"

enum {
    STAGE_LATE_PASSES = 256, /* progress passes a single-copy sender waits before it stages */
};

static struct wisp_list *pending; /* per destination node rank: sends not yet in the ring */
static unsigned npending;
/* Sends that went through the MPI for a receive lent there (forwarded
 * synchronous ones, slot given back, and returned ones: lend/forward.c)
 * whose MPI request is still to complete. */
static struct wisp_list forwarded = {&forwarded, &forwarded};
/* Synchronous sends whose receiver copied them aside (SLOT_COPIED): done
 * at the MATCHED notice of their `seq`. */
static struct wisp_list unmatched = {&unmatched, &unmatched};
static uint64_t emitted; /* rendezvous messages this process sent: their order */
static struct {
    struct wisp_p2p_req *req[SLOTS];
    int free[SLOTS], nfree;
    int busy[SLOTS], nbusy;
    int committed;      /* slots 0 to committed - 1 are in /dev/shm */
    bool commit_failed; /* /dev/shm could not hold more: no more tries */
    bool starving;      /* out of slots with sends waiting, since starved_count last grew */
} mine;

void wisp_p2p_sends_init(int node_size, int committed)
{
    pending = malloc(sizeof *pending * (size_t)node_size);
    if (!pending)
        wisp_fatal("out of memory for the point-to-point engine");
    for (int i = 0; i < node_size; i++)
        wisp_list_init(&pending[i]);
    mine.committed = committed;
    mine.commit_failed = false;
    for (int i = 0; i < committed; i++)
        mine.free[mine.nfree++] = committed - 1 - i;
}

/* Out of free slots: commit as many more as there are (doubling), once
 * more when /dev/shm cannot hold them is enough (a send then waits for a
 * slot to come free, as with all of them in use). */
static bool commit_more_slots(void)
{
    if (mine.committed == SLOTS || mine.commit_failed)
        return false;
    int count = mine.committed < SLOTS - mine.committed ? mine.committed : SLOTS - mine.committed;
    if (!wisp_p2p_slots_commit(mine.committed, count)) {
        mine.commit_failed = true;
        return false;
    }
    for (int i = count - 1; i >= 0; i--) /* the lowest taken first */
        mine.free[mine.nfree++] = mine.committed + i;
    mine.committed += count;
    return true;
}

void wisp_p2p_sends_fini(void)
{
    free(pending);
    pending = NULL;
    npending = 0;
    mine.nfree = mine.nbusy = 0;
}

/* The send completed for the user (its request may be released). */
static void send_complete(struct wisp_p2p_req *req)
{
    req->st_source = MPI_ANY_SOURCE;
    req->st_tag = MPI_ANY_TAG;
    req->st_error = MPI_SUCCESS;
    if (req->tmp && !wisp_p2p_req_held(req)) {
        free(req->tmp);
        req->tmp = NULL;
    }
    wisp_p2p_req_move(req, WISP_P2P_COMPLETE);
}

/* The engine is done with a send: its private copy goes, and the request
 * too if the user freed it meanwhile. */
static void let_go(struct wisp_p2p_req *req)
{
    req->slot = -1;
    free(req->tmp);
    req->tmp = NULL;
    wisp_p2p_req_move(req, WISP_P2P_LET_GO);
}

/* A send's bytes as one run into `out`: its data, or its layout packed. */
static void copy_out(const struct wisp_p2p_req *req, void *out, uint64_t n)
{
    if (req->data)
        memcpy(out, req->data, n);
    else if (n)
        wisp_dt_layout_pack(req->sbuf, req->count, req->send_layout, 0, n, out);
}

/* Copy the next staging chunks the receiver has room for; true if any. */
static bool stage_more(struct slot *s, struct wisp_p2p_req *req)
{
    uint64_t k = atomic_load_explicit(&s->staged, memory_order_relaxed);
    uint64_t all = chunks_of(s->size),
             room = atomic_load_explicit(&s->drained, memory_order_acquire) + CHUNKS;
    if (k >= all || k >= room)
        return false;
    for (; k < all && k < room; k++) {
        uint64_t at = k * chunk_size(),
                 len = s->size - at < chunk_size() ? s->size - at : chunk_size();
        memcpy(staging(s) + (k % CHUNKS) * chunk_size(), req->data + at, len);
        /* Chunk by chunk: the receiver copies one out while we copy the next in. */
        atomic_store_explicit(&s->staged, k + 1, memory_order_release);
    }
    return true;
}

/* Is it copied once, by the receiver, straight out of the send buffer? */
static bool single_copy(const void *p, uint64_t size)
{
    return size && size >= wisp_p2p.single_copy_min && wisp_shm_heap_holds(p, size);
}

/* Or, from private memory, with cross-memory attach (cma.c)? Like single
 * copy, checked before immediate; messages that fit the staging area are
 * staged late when the receiver is late (eager, as the MPIs' are). */
static bool copied_by_cma(uint64_t size)
{
    return wisp_p2p.cma && size >= wisp_p2p.cma_min;
}

/* Does the receiver read this non-contiguous send in place, from its
 * layout in the heap, so that it is copied once and never packed? Runs of
 * any length (wisp_dt_layout_copy takes short ones through a piece in the
 * L1 cache). Not a buffered one (the user may reuse the buffer at once),
 * nor one at MPI_BOTTOM (a null origin means staged), nor one in private
 * memory (process_vm_readv pins the sender's pages once per piece: 10x
 * slower than packing a layout of 64-byte runs). */
bool wisp_p2p_send_layout(struct wisp_p2p_req *req)
{
    wisp_dt_desc_t *desc;
    if (req->mode == WISP_P2P_BUFFERED || !req->sbuf || req->count <= 0 ||
        wisp_dt_desc_get(req->type, &desc) != WISP_DT_OK)
        return false;
    uint64_t bytes = (uint64_t)req->count * wisp_dt_desc_size(desc);
    if (!bytes || bytes < wisp_p2p.single_copy_min || wisp_dt_desc_bytes(desc) > LAYOUT_BYTES ||
        !wisp_p2p_layout_in_heap(req->sbuf, req->count, desc)) {
        wisp_dt_desc_release(desc);
        return false;
    }
    req->send_layout = desc;
    req->bytes = bytes;
    req->data = NULL;
    return true;
}

static bool advance_slot(int i);

/* Free the slots whose receivers are done, which the next progress pass
 * would do: a send that finds none free would otherwise wait in line (and
 * take a private copy) or wait for that pass. */
static bool reclaim_slots(void)
{
    bool freed = false;
    for (int i = mine.nbusy - 1; i >= 0; i--) {
        uint32_t state = atomic_load_explicit(&slot_at(wisp_p2p.node_rank, mine.busy[i])->state,
                                              memory_order_acquire);
        if (state == SLOT_DONE || state == SLOT_COPIED)
            freed |= advance_slot(i);
    }
    return freed;
}

/*
 * Out of slots with a send waiting: the receivers hold every slot with a
 * message they have not matched, and may wait for the send in line behind
 * them (MPI's progress rule says it completes, its receive being posted).
 * Tell them once: each copies this sender's unexpected messages aside
 * (spill_for_starved), as the MPI's receiver would have buffered eager
 * ones, and their slots come free (a synchronous send still completes at
 * its match: SLOT_COPIED).
 */
static void starve(void)
{
    if (mine.starving)
        return;
    mine.starving = true;
    atomic_fetch_add_explicit(starved_count(wisp_p2p.node_rank), 1, memory_order_release);
    for (int i = 0; i < mine.nbusy; i++) {
        int to = slot_at(wisp_p2p.node_rank, mine.busy[i])->to;
        wisp_doorbell_ring(bell(to));
        wisp_doorbell_ring(rescue_bell(to)); /* it may sit in a call wisp does not see */
    }
}

/* Put `req` into the ring to `node`; false when the ring or the slots are full. */
static bool emit(struct wisp_p2p_req *req, int node)
{
    struct wisp_fastbox_ring *r = ring(wisp_p2p.node_rank, node);
    int ctx = req->comm->ctx;
    bool layout = req->send_layout && !req->data; /* read in place (wisp_p2p_send_layout) */
    bool single = layout || single_copy(req->data, req->bytes) || copied_by_cma(req->bytes);
    if (!single && req->bytes <= wisp_p2p.immediate_max && req->mode != WISP_P2P_SYNC) {
        if (!wisp_fastbox_put(r, match_word(ctx, req->tag, KIND_IMMEDIATE), req->data,
                              (uint32_t)req->bytes))
            return false;
        wake(node);
        send_complete(req);
        return true;
    }
    if (!mine.nfree && !reclaim_slots() && !commit_more_slots()) {
        starve();
        return false;
    }
    int index = mine.free[mine.nfree - 1];
    struct slot *s = slot_at(wisp_p2p.node_rank, index);
    s->sync = req->mode == WISP_P2P_SYNC;
    s->to = node;
    s->size = req->bytes;
    s->seq = ++emitted;
    s->src = !single ? NULL : layout ? (const char *)req->sbuf : req->data;
    if (s->src && !layout)
        wisp_shm_heap_prefault(s->src, req->bytes); /* the receiver may read it by CMA */
    s->layout = layout ? (uint32_t)wisp_dt_desc_export(req->send_layout, s->desc, LAYOUT_BYTES) : 0;
    s->count = req->count;
    atomic_store_explicit(&s->dst, NULL, memory_order_relaxed);
    atomic_store_explicit(&s->next_block, 0, memory_order_relaxed);
    atomic_store_explicit(&s->copied, 0, memory_order_relaxed);
    atomic_store_explicit(&s->staged, 0, memory_order_relaxed);
    atomic_store_explicit(&s->drained, 0, memory_order_relaxed);
    slot_move(s, SLOT(FREE) | SLOT(DONE) | SLOT(COPIED), SLOT_POSTED, memory_order_relaxed);
    /* One chunk is staged before the notice (the receiver finds it ready);
     * longer messages after it, so that a waiting receiver copies along. */
    bool one_chunk = !single && req->bytes <= chunk_size();
    if (one_chunk)
        stage_more(s, req);
    struct rendezvous rdv = {.slot = (uint32_t)index,
                             .staged = one_chunk ? (uint32_t)chunks_of(req->bytes) : 0,
                             .size = req->bytes,
                             .src = s->src};
    if (!wisp_fastbox_put(r, match_word(ctx, req->tag, KIND_RENDEZVOUS), &rdv, sizeof rdv)) {
        /* The slot stays free (no receiver saw it); its fields are rewritten next time. */
        slot_move(s, SLOT(POSTED), SLOT_DONE, memory_order_relaxed); /* free, as before */
        return false;
    }
    wake(node);
    if (!single && !one_chunk)
        stage_more(s, req);
    mine.nfree--;
    mine.busy[mine.nbusy++] = index;
    mine.req[index] = req;
    req->slot = index;
    req->seq = s->seq;
    req->sync_matched = false;
    req->posted_pass = atomic_load_explicit(&wisp_p2p_passes, memory_order_relaxed);
    wisp_p2p_req_move(req, WISP_P2P_HOLD);
    wisp_p2p_count_add(&wisp_p2p.outstanding, 1);
    if (!single && !s->sync &&
        atomic_load_explicit(&s->staged, memory_order_relaxed) == chunks_of(req->bytes))
        send_complete(req); /* fully staged: an eager send */
    return true;
}

void wisp_p2p_send_matched(struct wisp_p2p_req *req)
{
    wisp_p2p_count_add(&wisp_p2p.outstanding, -1);
    send_complete(req);
    let_go(req);
}

bool wisp_p2p_send_now(struct wisp_p2p_comm *comm, int dest, int tag, const void *buf,
                       MPI_Count count, MPI_Datatype type)
{
    uint64_t bytes;
    bool contig;
    MPI_Aint offset;
    int node = comm->node_of[dest];
    if (wisp_p2p_type_bytes(type, count, &bytes, &contig, &offset, NULL) != MPI_SUCCESS ||
        !contig || bytes > wisp_p2p.immediate_max || copied_by_cma(bytes) ||
        single_copy((const char *)buf + offset, bytes) || !wisp_list_empty(&pending[node]) ||
        !wisp_fastbox_put(ring(wisp_p2p.node_rank, node),
                          match_word(comm->ctx, tag, KIND_IMMEDIATE), (const char *)buf + offset,
                          (uint32_t)bytes))
        return false;
    wake(node);
    return true;
}

static void send_to_self(struct wisp_p2p_req *req)
{
    struct wisp_p2p_msg *msg = malloc(sizeof *msg + req->bytes);
    if (!msg)
        wisp_fatal("out of memory for a message of %llu bytes to self",
                   (unsigned long long)req->bytes);
    *msg = (struct wisp_p2p_msg){.source = req->comm->rank,
                                 .tag = req->tag,
                                 .size = req->bytes,
                                 .from = wisp_p2p.node_rank,
                                 .slot = -1};
    wisp_list_init(&msg->link);
    copy_out(req, msg->data, req->bytes);
    wisp_stats_shm.self++;
    wisp_stats_shm.copies += 2;
    if (req->mode == WISP_P2P_SYNC) {
        msg->waiter = req; /* done when matched */
        wisp_p2p_req_move(req, WISP_P2P_HOLD);
        wisp_p2p_count_add(&wisp_p2p.outstanding, 1);
    } else {
        send_complete(req);
    }
    wisp_p2p_up.incoming(req->comm, msg);
}

void wisp_p2p_send_start(struct wisp_p2p_req *req, int node)
{
    req->slot = -1;
    if (node == wisp_p2p.node_rank) {
        send_to_self(req);
        return;
    }
    if (wisp_list_empty(&pending[node]) && emit(req, node))
        return;
    /* Behind others to the same process, or no room: wait in line. Sends an
     * MPI would buffer (all but synchronous ones up to a staging area)
     * complete now from a private copy, as the MPI's eager protocol would. */
    wisp_p2p_req_move(req, WISP_P2P_HOLD);
    if (req->mode != WISP_P2P_SYNC && req->bytes <= wisp_p2p.stage && !req->tmp) {
        void *copy = malloc(req->bytes ? req->bytes : 1);
        if (copy) {
            copy_out(req, copy, req->bytes);
            req->tmp = copy;
            req->data = copy;
            send_complete(req);
        }
    }
    req->slot = -1;
    wisp_list_push(&pending[node], &req->link);
    npending++;
    wisp_p2p_count_add(&wisp_p2p.outstanding, 1);
}

bool wisp_p2p_sends_on(const struct wisp_p2p_comm *comm)
{
    for (int node = 0; npending && node < wisp_p2p.node_size; node++)
        for (struct wisp_list *l = pending[node].next; l != &pending[node]; l = l->next)
            if (wisp_list_entry(l, struct wisp_p2p_req, link)->comm == comm)
                return true;
    for (int i = 0; i < mine.nbusy; i++)
        if (mine.req[mine.busy[i]]->comm == comm)
            return true;
    return false;
}

static bool emit_pending(void)
{
    bool moved = false;
    for (int node = 0; node < wisp_p2p.node_size; node++) {
        while (!wisp_list_empty(&pending[node])) {
            struct wisp_p2p_req *req =
                wisp_list_entry(pending[node].next, struct wisp_p2p_req, link);
            if (!emit(req, node))
                break;
            wisp_list_remove(&req->link);
            npending--;
            wisp_p2p_count_add(&wisp_p2p.outstanding, -1);
            moved = true;
            if (req->slot < 0) /* immediate: sent and done */
                let_go(req);
        }
    }
    return moved;
}

/* Has the sender of a single-copy message waited long enough for a
 * receiver to take it back and stage it (and won the race for it)? */
static bool stages_late(struct slot *s, const struct wisp_p2p_req *req)
{
    if (s->sync || s->size > wisp_p2p.stage || wisp_p2p_req_done(req) ||
        atomic_load_explicit(&wisp_p2p_passes, memory_order_relaxed) - req->posted_pass <
            STAGE_LATE_PASSES)
        return false;
    uint32_t posted = SLOT_POSTED;
    return slot_swap(s, &posted, SLOT(POSTED), SLOT_STAGING);
}

int wisp_p2p_own_slots(const int **busy)
{
    *busy = mine.busy;
    return mine.nbusy;
}

struct wisp_p2p_req *wisp_p2p_slot_req(int index)
{
    return mine.req[index];
}

void wisp_p2p_send_pack(struct wisp_p2p_req *req)
{
    if (req->data)
        return;
    if (!(req->tmp = malloc(req->bytes)))
        wisp_fatal("out of memory for a forwarded message of %llu bytes",
                   (unsigned long long)req->bytes);
    copy_out(req, req->tmp, req->bytes);
    req->data = req->tmp;
}

void wisp_p2p_send_by_mpi(struct wisp_p2p_req *req)
{
    wisp_list_push(&forwarded, &req->link);
}

static bool advance_slot(int i)
{
    int index = mine.busy[i];
    struct slot *s = slot_at(wisp_p2p.node_rank, index);
    struct wisp_p2p_req *req = mine.req[index];
    uint32_t state = atomic_load_explicit(&s->state, memory_order_acquire);
    bool moved = false;
    if (state == SLOT_FORWARD || state == SLOT_FORWARDED || state == SLOT_HANDING) {
        wisp_p2p.forward_asked |= state == SLOT_FORWARD;
        return false; /* lending's: forward.c sends it through the MPI */
    }
    if (state != SLOT_DONE && state != SLOT_COPIED) {
        if (!s->src) {
            moved = stage_more(s, req);
            if (!wisp_p2p_req_done(req) && !s->sync &&
                atomic_load_explicit(&s->staged, memory_order_relaxed) == chunks_of(s->size))
                send_complete(req);
        } else if (state == SLOT_MATCHED) {
            char *dst = atomic_load_explicit(&s->dst, memory_order_acquire);
            alignas(16) unsigned char rdesc[LAYOUT_BYTES];
            struct wisp_p2p_blocks c = {.src = s->src, .dst = dst, .peer = s->to};
            if (dst && s->layout) { /* both sides in the heap (copy_rendezvous) */
                c.sdesc = req->send_layout, c.scount = s->count, c.dcount = s->rcount;
                if (s->rlayout)
                    c.ddesc = wisp_dt_desc_import(memcpy(rdesc, s->rdesc, s->rlayout));
            } else if (dst) {
                c.copy =
                    wisp_shm_heap_holds(dst, s->size) ? wisp_p2p_copy_here : wisp_p2p_copy_to_peer;
            }
            if (dst && wisp_p2p_claim_blocks(s, &c))
                moved = true;
        } else if (state == SLOT_POSTED && stages_late(s, req)) {
            copy_out(req, staging(s), s->size);
            slot_move(s, SLOT(STAGING), SLOT_STAGED, memory_order_relaxed);
            /* Last: the receiver that sees it sees the bytes and STAGED. */
            atomic_store_explicit(&s->staged, chunks_of(s->size), memory_order_release);
            wake(s->to);
            send_complete(req);
            moved = true;
        }
        return moved;
    }
    mine.busy[i] = mine.busy[--mine.nbusy];
    mine.free[mine.nfree++] = index;
    mine.starving = false;
    wisp_p2p_count_add(&wisp_p2p.outstanding, -1);
    if (state == SLOT_COPIED && !req->sync_matched) {
        req->slot = -1;
        wisp_list_push(&unmatched, &req->link);
        return true;
    }
    /* Forwarded: the MPI completes it. */
    if (req->inner != MPI_REQUEST_NULL && !wisp_p2p_req_done(req)) {
        req->slot = -1;
        wisp_list_push(&forwarded, &req->link);
        return true;
    }
    if (!wisp_p2p_req_done(req))
        send_complete(req);
    let_go(req);
    return true;
}

/* Forwarded sends whose MPI request completed let go of their bytes (the
 * user may have freed the request, and then nobody else tests it). */
bool wisp_p2p_finish_forwarded(void)
{
    bool moved = false;
    for (struct wisp_list *l = forwarded.next, *next; l != &forwarded; l = next) {
        next = l->next;
        struct wisp_p2p_req *req = wisp_list_entry(l, struct wisp_p2p_req, link);
        if (wisp_p2p_req_done(req) || wisp_p2p_req_test_inner(req)) {
            wisp_list_remove(&req->link);
            let_go(req);
            moved = true;
        }
    }
    return moved;
}

/* Does no send need this process any more? Sends waiting in line (complete
 * from a private copy, or freed with MPI_Request_free) must go out, staged
 * ones must be staged whole, and single-copy ones be copied or staged late:
 * the receiver may still be on its way to them, and MPI_Finalize lets the
 * user reuse every buffer. */
bool wisp_p2p_sends_delivered(void *unused)
{
    (void)unused;
    if (npending || !wisp_list_empty(&forwarded))
        return false;
    for (int i = 0; i < mine.nbusy; i++) {
        struct slot *s = slot_at(wisp_p2p.node_rank, mine.busy[i]);
        uint32_t state = atomic_load_explicit(&s->state, memory_order_acquire);
        uint64_t staged = atomic_load_explicit(&s->staged, memory_order_relaxed);
        bool needs_me = state == SLOT_FORWARD || state == SLOT_FORWARDED || state == SLOT_HANDING ||
                        (s->src ? state != SLOT_DONE && state != SLOT_COPIED && state != SLOT_STAGED
                                : state != SLOT_DONE && staged < chunks_of(s->size));
        if (needs_me)
            return false;
    }
    return true;
}

/* Once the sends are delivered, no receiver reads a sender's bytes any
 * more (they are staged whole, or copied): the private copies that the
 * slots' requests hold go, and the requests the user freed with them; the
 * slots are free, so that no later pass (the rescuer's, until it stops)
 * reaches a request let go. */
void wisp_p2p_drop_slot_holds(void)
{
    for (int i = 0; i < mine.nbusy; i++) {
        int index = mine.busy[i];
        let_go(mine.req[index]);
        mine.req[index] = NULL;
        mine.free[mine.nfree++] = index;
        wisp_p2p_count_add(&wisp_p2p.outstanding, -1);
    }
    mine.nbusy = 0;
}

/* The receiver matched the copy of synchronous send `seq` of this process:
 * done, or (its slot not yet seen COPIED here) done once it is. */
void wisp_p2p_sync_done(uint64_t seq)
{
    for (struct wisp_list *l = unmatched.next; l != &unmatched; l = l->next) {
        struct wisp_p2p_req *req = wisp_list_entry(l, struct wisp_p2p_req, link);
        if (req->seq == seq) {
            wisp_list_remove(&req->link);
            send_complete(req);
            let_go(req);
            return;
        }
    }
    for (int i = 0; i < mine.nbusy; i++) {
        struct wisp_p2p_req *req = mine.req[mine.busy[i]];
        if (req->seq == seq) {
            req->sync_matched = true;
            return;
        }
    }
    wisp_fatal("a match for synchronous send %llu, which this process does not hold",
               (unsigned long long)seq);
}

bool wisp_p2p_advance_sends(void)
{
    bool moved = npending && emit_pending();
    for (int i = mine.nbusy - 1; i >= 0; i--)
        moved |= advance_slot(i);
    return moved;
}
