/*
 * MPI_Bcast through the area (area.h has the phases). The decision is the
 * data's size alone, since members may describe the same bytes with
 * different types; a type that is not one contiguous block is packed at
 * the root and unpacked elsewhere around the bytes' way.
 *
 * Up to 48 bytes: one phase, inline in the root's line; the root of small
 * broadcasts runs up to WISP_COLL_LINES - 1 calls ahead. From
 * WISP_COLL_SINGLE_COPY up, where the root's bytes are in the shared heap:
 * read in place, the copy shared among all members where their buffers
 * are in the heap too (bcast_large). Else through the root's staging
 * halves, a half per phase: the root fills one while the others empty the
 * other.
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "coll/area.h"
#include "coll/node.h"
#include "coll/coll.h"
#include "coll/hier.h"
#include "coll/layout.h"
#include "coll/mpi.h"
#include "coll/nb.h"
#include "coll/persist.h"
#include "coll/view.h"
#include "core/log.h"
#include "p2p/p2p.h"
#include "shm/heap.h"

/* Through the root's staging halves, a half per phase. */
static void staged_send(struct wisp_coll_comm *c, const char *data, uint64_t bytes)
{
    for (uint64_t off = 0; off < bytes;) {
        uint64_t p = wisp_coll_next(c), n = bytes - off < c->half ? bytes - off : c->half;
        wisp_coll_reuse_half(c, p);
        memcpy(wisp_coll_half(c, c->rank, p), data + off, n);
        wisp_coll_publish(c, p);
        off += n;
    }
}

static void staged_receive(struct wisp_coll_comm *c, int root, char *data, uint64_t bytes)
{
    for (uint64_t off = 0; off < bytes;) {
        uint64_t p = wisp_coll_next(c), n = bytes - off < c->half ? bytes - off : c->half;
        wisp_coll_wait(c, root, p);
        memcpy(data + off, wisp_coll_half(c, root, p), n);
        wisp_coll_publish(c, p);
        off += n;
    }
}

/* Member m's part of `bytes` in a shared copy: whole cache lines. */
static uint64_t part(const struct wisp_coll_comm *c, int m, uint64_t bytes)
{
    return m == c->size ? bytes : (bytes * (uint64_t)m / (uint64_t)c->size) & ~(uint64_t)63;
}

/* From WISP_COLL_SINGLE_COPY up. Phase 1: every member publishes where its
 * bytes are if they are in the heap (the root's to send, the others' to
 * receive), else 0. Then, if the root's are in the heap: where every
 * member's are, every member copies its part (an n-th) of the root's bytes
 * into every other member's buffer (the copy shared by all, as p2p's
 * synergistic protocol); where some are not, every other member copies all
 * of the root's bytes into its own. Phase 2: done, everyone waits for
 * everyone (the root's buffer is read and the others' written until then).
 * If the root's bytes are not in the heap: through its staging halves. */
static void bcast_large(struct wisp_coll_comm *c, int root, char *data, uint64_t bytes)
{
    uint64_t p1 = wisp_coll_next(c);
    wisp_coll_reuse_line(c, p1);
    wisp_coll_line(c, c->rank, p1)->aux =
        wisp_shm_heap_holds(data, bytes) ? (uint64_t)(uintptr_t)data : 0;
    wisp_coll_publish(c, p1);
    wisp_coll_wait_all(c, p1);
    const char *from = (const char *)(uintptr_t)wisp_coll_line(c, root, p1)->aux;
    if (!from) {
        if (c->rank == root)
            staged_send(c, data, bytes);
        else
            staged_receive(c, root, data, bytes);
        return;
    }
    bool all = true;
    for (int m = 0; m < c->size; m++)
        all = all && wisp_coll_line(c, m, p1)->aux;
    if (all) {
        uint64_t lo = part(c, c->rank, bytes), hi = part(c, c->rank + 1, bytes);
        for (int m = 0; m < c->size; m++)
            if (m != root && hi > lo)
                memcpy((char *)(uintptr_t)wisp_coll_line(c, m, p1)->aux + lo, from + lo, hi - lo);
    } else if (c->rank != root) {
        memcpy(data, from, bytes);
    }
    wisp_coll_publish(c, p1 + 1);
    wisp_coll_wait_all(c, p1 + 1);
}

void wisp_coll_bcast_bytes(struct wisp_coll_comm *c, int root, char *data, uint64_t bytes)
{
    if (bytes > WISP_COLL_INLINE) {
        if (bytes >= wisp_coll.single_copy_min)
            bcast_large(c, root, data, bytes);
        else if (c->rank == root)
            staged_send(c, data, bytes);
        else
            staged_receive(c, root, data, bytes);
        return;
    }
    /* Inline in the root's line: the root runs ahead of its readers. */
    uint64_t p = wisp_coll_next(c);
    if (c->rank == root) {
        wisp_coll_reuse_line(c, p);
        memcpy(wisp_coll_line(c, c->rank, p)->data, data, bytes);
    } else {
        wisp_coll_wait(c, root, p);
        memcpy(data, wisp_coll_line(c, root, p)->data, bytes);
    }
    wisp_coll_publish(c, p);
}

/* Across nodes (hier.h): on the root's node from the root, between the
 * nodes from its node's leader, on the other nodes from their leader. On
 * the root's node the leader's stage comes first where the root leads it,
 * so that the other nodes start early. `nb`: in a nonblocking broadcast's
 * coroutine, the leaders through the MPI's MPI_Ibcast. */
static int bcast_across(struct wisp_coll_comm *c, int root, char *data, uint64_t bytes, bool nb)
{
    struct wisp_coll_hier *h = c->hier;
    int node_root = wisp_coll_hier_node_rank_of(h, root);
    bool home = wisp_coll_hier_here(h, c->rank, root), first = home && node_root != 0;
    if (first)
        wisp_coll_bcast_bytes(&h->node, node_root, data, bytes);
    int rc = MPI_SUCCESS;
    int leaders_root = wisp_coll_hier_leader_of(h, root);
    if (wisp_coll_hier_leader(h) && nb) {
        MPI_Request req = MPI_REQUEST_NULL;
        rc = PMPI_Ibcast(data, (int)bytes, MPI_BYTE, leaders_root, h->leaders, &req);
        rc = wisp_coll_hier_finish(rc, &req);
    } else if (wisp_coll_hier_leader(h)) {
        bool lent = wisp_p2p_lend();
        rc = PMPI_Bcast(data, (int)bytes, MPI_BYTE, leaders_root, h->leaders);
        if (lent)
            wisp_p2p_reclaim();
    }
    if (!first && h->node.size > 1)
        wisp_coll_bcast_bytes(&h->node, 0, data, bytes);
    return rc;
}

int wisp_coll_bcast(void *buffer, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm,
                    bool large)
{
    struct wisp_coll_comm *c = wisp_coll.on ? wisp_coll_view(comm) : NULL;
    struct wisp_coll_layout l;
    if (!c || count < 0 || root < 0 || root >= c->size || !wisp_coll_layout_of(type, count, &l) ||
        l.bytes > wisp_coll.bcast_max || (l.bytes && l.bytes < wisp_coll.bcast_min) ||
        (c->hier && l.bytes > INT_MAX))
        return wisp_coll_mpi_bcast(buffer, count, type, root, comm, large);
    wisp_coll_count(&wisp_coll.served);
    if (!l.bytes)
        return MPI_SUCCESS;
    char *data = (char *)buffer + l.lb, *packed = NULL;
    if (!l.contiguous) {
        packed = malloc(l.bytes);
        if (!packed) {
            wisp_log_error("MPI_Bcast: no memory for %llu bytes to pack",
                           (unsigned long long)l.bytes);
            PMPI_Abort(comm, 1);
        }
        data = packed;
        if (c->rank == root && !wisp_coll_pack(buffer, count, type, packed, l.bytes, comm))
            PMPI_Abort(comm, 1);
    }
    int rc = MPI_SUCCESS;
    if (c->hier)
        rc = bcast_across(c, root, data, l.bytes, false);
    else
        wisp_coll_bcast_bytes(c, root, data, l.bytes);
    if (packed) {
        if (c->rank != root && !wisp_coll_unpack(packed, l.bytes, buffer, count, type, comm))
            PMPI_Abort(comm, 1);
        free(packed);
    }
    return rc;
}

/* ---- MPI_Ibcast (nb.h) -------------------------------------------------------- */

struct ibcast {
    int root;
    char *data; /* the user's bytes, or `packed` */
    uint64_t bytes;
    char *packed; /* a non-contiguous type's bytes, packed (the root: at the start) */
    void *buffer; /* a non-root unpacks `packed` there, in the user's call */
    MPI_Count count;
    MPI_Datatype type;
    bool held; /* MPI_Bcast_init: `type` is wisp's own reference */
};

static void ibcast_run(struct wisp_coll_comm *c, void *args)
{
    struct ibcast *b = args;
    if (!b->bytes)
        return;
    if (c->hier) {
        int rc = bcast_across(c, b->root, b->data, b->bytes, true);
        if (rc != MPI_SUCCESS)
            wisp_coll_nb_error(rc);
        return;
    }
    wisp_coll_bcast_bytes(c, b->root, b->data, b->bytes);
}

static int ibcast_settle(struct wisp_coll_comm *c, void *args)
{
    struct ibcast *b = args;
    int rc = MPI_SUCCESS;
    if (b->buffer &&
        !wisp_coll_unpack(b->packed, b->bytes, b->buffer, b->count, b->type, c->handle))
        rc = MPI_ERR_INTERN;
    if (b->buffer)
        wisp_coll_type_let_go(b->type);
    free(b->packed);
    return rc;
}

/* The nonblocking and persistent forms' decision (`c` as wisp_coll_view_nb
 * or wisp_coll_view_nb_across gave it): true where wisp serves the call,
 * its bytes in *l. */
static bool ibcast_takes(struct wisp_coll_comm *c, MPI_Count count, MPI_Datatype type, int root,
                         struct wisp_coll_layout *l)
{
    return c && count >= 0 && root >= 0 && root < c->size && wisp_coll_layout_of(type, count, l) &&
           l->bytes <= wisp_coll.bcast_max && (!l->bytes || l->bytes >= wisp_coll.bcast_min) &&
           (!c->hier || l->bytes <= INT_MAX);
}

int wisp_coll_ibcast(void *buffer, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm,
                     MPI_Request *request, bool large)
{
    struct wisp_coll_comm *c = wisp_coll_view_nb_across(comm);
    struct wisp_coll_layout l;
    if (!ibcast_takes(c, count, type, root, &l)) {
#ifdef WISP_HAVE_MPI_Ibcast_c
        if (large)
            return PMPI_Ibcast_c(buffer, count, type, root, comm, request);
#endif
        (void)large;
        return PMPI_Ibcast(buffer, (int)count, type, root, comm, request);
    }
    wisp_coll_count(&wisp_coll.served);
    /* Every member takes this path: no memory ends the job, as in MPI_Bcast. */
    struct ibcast *b = malloc(sizeof *b);
    char *packed = !l.contiguous && l.bytes ? malloc(l.bytes) : NULL;
    if (!b || (!l.contiguous && l.bytes && !packed)) {
        wisp_log_error("MPI_Ibcast: no memory for %llu bytes", (unsigned long long)l.bytes);
        PMPI_Abort(comm, 1);
    }
    *b = (struct ibcast){
        root, packed ? packed : (char *)buffer + l.lb, l.bytes, packed, NULL, count, type, false};
    if (packed) {
        if (c->rank == root && !wisp_coll_pack(buffer, count, type, b->packed, l.bytes, comm))
            PMPI_Abort(comm, 1);
        if (c->rank != root) {
            b->buffer = buffer;
            b->type = wisp_coll_type_keep(type, comm); /* the user may free it now */
        }
    }
    return wisp_coll_nb_begin(c, ibcast_run, b->packed ? ibcast_settle : NULL, b, request);
}

/* ---- MPI_Bcast_init (persist.h) ------------------------------------------------- */

#ifdef WISP_HAVE_MPI_Bcast_init
/* A type that is not one block: `packed` lives as long as the request, the
 * root packs into it at each start, the others unpack from it in the
 * user's call that completes each round; the type is held meanwhile. */
static int pbcast_begin(struct wisp_coll_comm *c, void *args)
{
    struct ibcast *b = args;
    if (b->packed && c->rank == b->root &&
        !wisp_coll_pack(b->buffer, b->count, b->type, b->packed, b->bytes, c->handle))
        return MPI_ERR_INTERN;
    return MPI_SUCCESS;
}

static int pbcast_settle(struct wisp_coll_comm *c, void *args)
{
    struct ibcast *b = args;
    if (c->rank != b->root &&
        !wisp_coll_unpack(b->packed, b->bytes, b->buffer, b->count, b->type, c->handle))
        return MPI_ERR_INTERN;
    return MPI_SUCCESS;
}

static void pbcast_release(void *args)
{
    struct ibcast *b = args;
    if (b->held)
        wisp_p2p_type_unhold(b->type);
    free(b->packed);
    free(b);
}

static const struct wisp_coll_persist_ops pbcast = {.run = ibcast_run, .release = pbcast_release};
static const struct wisp_coll_persist_ops pbcast_packed = {
    .run = ibcast_run, .settle = pbcast_settle, .begin = pbcast_begin, .release = pbcast_release};

int wisp_coll_bcast_init(void *buffer, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm,
                         MPI_Info info, MPI_Request *request, bool large)
{
    int rc;
#ifdef WISP_HAVE_MPI_Bcast_init_c
    if (large)
        rc = PMPI_Bcast_init_c(buffer, count, type, root, comm, info, request);
    else
#endif
        rc = PMPI_Bcast_init(buffer, (int)count, type, root, comm, info, request);
    (void)large;
    struct wisp_coll_comm *c = rc == MPI_SUCCESS ? wisp_coll_view_nb(comm) : NULL;
    struct wisp_coll_layout l;
    if (!ibcast_takes(c, count, type, root, &l))
        return rc; /* the MPI's request (persist.h: made first, a backup where wisp serves) */
    struct ibcast *b = malloc(sizeof *b);
    char *packed = !l.contiguous && l.bytes ? malloc(l.bytes) : NULL;
    if (!b || (!l.contiguous && l.bytes && !packed)) {
        wisp_log_error("MPI_Bcast_init: no memory for %llu bytes", (unsigned long long)l.bytes);
        PMPI_Abort(comm, 1);
    }
    *b = (struct ibcast){
        root, packed ? packed : (char *)buffer + l.lb, l.bytes, packed, buffer, count, type, false};
    MPI_Datatype held;
    if (packed && wisp_p2p_type_hold(type, &held)) {
        b->type = held;
        b->held = true;
    }
    return wisp_coll_persist_init(c, packed ? &pbcast_packed : &pbcast, b, request);
}
#endif
