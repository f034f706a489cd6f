/*
 * MPI_Reduce and MPI_Allreduce through the area (area.h has the phases),
 * for the predefined operations on the predefined types (op.h).
 *
 * Up to 48 bytes: one phase; every member puts its contribution inline in
 * its line, and the members that want the result (the root; every member
 * of an allreduce) fold the lines in rank order.
 *
 * Larger data, a staging half at a time (a chunk): two phases per chunk.
 * In the first, every member copies its chunk into its half; then every
 * member folds its share of the chunk (an n-th of the elements) over all
 * members' halves, in rank order, into its other half. In the second, those
 * shares are published, and the members that want the result copy every
 * member's share into their receive buffer. So the folding is spread over
 * all members (reduce-scatter, then gather), and every element is folded
 * by one member in one fixed order: the same bits everywhere, run after
 * run, whatever order the members arrive in.
 *
 * From WISP_COLL_SINGLE_COPY up, where every member's buffers are in the
 * shared heap, no staging: every member folds its share straight from
 * everyone's send buffer, into its own receive buffer (an allreduce, whose
 * members then copy the others' shares) or into the root's (a reduce)
 * (allreduce_in_place, reduce_in_place).
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
#include "coll/op.h"
#include "coll/view.h"
#include "core/log.h"
#include "p2p/p2p.h"
#include "shm/heap.h"

/* `in` is this member's contribution; `out` the result's place where this
 * member wants it, else NULL. */
static void reduce_inline(struct wisp_coll_comm *c, struct wisp_coll_fold f, const void *in,
                          void *out, size_t count)
{
    size_t bytes = count * f.size;
    uint64_t p = wisp_coll_next(c);
    wisp_coll_reuse_line(c, p);
    memcpy(wisp_coll_line(c, c->rank, p)->data, in, bytes);
    wisp_coll_publish(c, p);
    if (!out)
        return;
    wisp_coll_wait_all(c, p);
    union {
        long double align;
        unsigned char bytes[WISP_COLL_INLINE];
    } acc;
    memcpy(acc.bytes, wisp_coll_line(c, 0, p)->data, bytes);
    for (int m = 1; m < c->size; m++)
        wisp_coll_fold(f, acc.bytes, wisp_coll_line(c, m, p)->data, count);
    memcpy(out, acc.bytes, bytes);
}

/* Member m's share of a chunk of `count` elements: [lo, hi). */
static size_t share(const struct wisp_coll_comm *c, int m, size_t count)
{
    return count * (size_t)m / (size_t)c->size;
}

static void reduce_staged(struct wisp_coll_comm *c, struct wisp_coll_fold f, const char *in,
                          char *out, size_t count)
{
    size_t per = c->half / f.size; /* elements of a chunk */
    for (size_t first = 0; first < count; first += per) {
        size_t n = count - first < per ? count - first : per;
        uint64_t p1 = wisp_coll_next(c), p2 = p1 + 1;
        wisp_coll_reuse_half(c, p1);
        memcpy(wisp_coll_half(c, c->rank, p1), in + first * f.size, n * f.size);
        wisp_coll_publish(c, p1);
        wisp_coll_wait_all(c, p1);
        /* Every member has published p1: the parity of p2 is free. */
        size_t lo = share(c, c->rank, n), hi = share(c, c->rank + 1, n);
        size_t off = lo * f.size;
        char *acc = wisp_coll_half(c, c->rank, p2) + off;
        memcpy(acc, wisp_coll_half(c, 0, p1) + off, (hi - lo) * f.size);
        for (int m = 1; m < c->size; m++)
            wisp_coll_fold(f, acc, wisp_coll_half(c, m, p1) + off, hi - lo);
        wisp_coll_publish(c, p2);
        if (!out)
            continue;
        wisp_coll_wait_all(c, p2);
        char *to = out + first * f.size;
        for (int m = 0; m < c->size; m++) {
            size_t mlo = share(c, m, n), mhi = share(c, m + 1, n);
            memcpy(to + mlo * f.size, wisp_coll_half(c, m, p2) + mlo * f.size,
                   (mhi - mlo) * f.size);
        }
    }
}

/* Phase `*p1` of an in-place reduction: each member offers its send buffer
 * (`aux`, 0 where it or `out`, NULL at a reduce's non-root, is not in the
 * heap) and its receive buffer `out` (the line's data); true if every
 * member's buffers are in the heap, the same answer everywhere. */
static bool offer_buffers(struct wisp_coll_comm *c, const char *in, char *out, size_t bytes,
                          uint64_t *p1)
{
    *p1 = wisp_coll_next(c);
    wisp_coll_reuse_line(c, *p1);
    struct wisp_coll_line *line = wisp_coll_line(c, c->rank, *p1);
    bool mine = wisp_shm_heap_holds(in, bytes) && (!out || wisp_shm_heap_holds(out, bytes));
    line->aux = mine ? (uint64_t)(uintptr_t)in : 0;
    uint64_t at = (uint64_t)(uintptr_t)out;
    memcpy(line->data, &at, sizeof at);
    wisp_coll_publish(c, *p1);
    wisp_coll_wait_all(c, *p1);
    for (int m = 0; m < c->size; m++)
        if (!wisp_coll_line(c, m, *p1)->aux)
            return false;
    return true;
}

/* This member's share of the elements, folded in rank order from every
 * member's send buffer offered in phase `p1`, through a private
 * accumulator (`to` may be one of those buffers: MPI_IN_PLACE), into `to`. */
static void fold_share(struct wisp_coll_comm *c, struct wisp_coll_fold f, uint64_t p1, size_t count,
                       char *to)
{
    size_t lo = share(c, c->rank, count), hi = share(c, c->rank + 1, count);
    union {
        long double align;
        char bytes[8192];
    } acc;
    size_t per = sizeof acc.bytes / f.size;
    for (size_t first = lo; first < hi; first += per) {
        size_t n = hi - first < per ? hi - first : per, off = first * f.size;
        memcpy(acc.bytes, (const char *)(uintptr_t)wisp_coll_line(c, 0, p1)->aux + off, n * f.size);
        for (int m = 1; m < c->size; m++)
            wisp_coll_fold(f, acc.bytes,
                           (const char *)(uintptr_t)wisp_coll_line(c, m, p1)->aux + off, n);
        memcpy(to + off, acc.bytes, n * f.size);
    }
}

/* An allreduce whose buffers are all in the shared heap, read in place:
 * false (one phase spent, alike in every member) where some member's are
 * not. Phase 1: every member publishes its buffers' addresses. Then every
 * member folds its share straight from everyone's send buffer, a block at
 * a time through a private accumulator (so that MPI_IN_PLACE, where the
 * receive buffer is the send buffer, never overwrites an input before it
 * is folded), into its receive buffer; phase 2 publishes that, and every
 * member copies the others' shares from their receive buffers. Phase 3:
 * nobody reads this member's buffers any more, which are the user's again. */
static bool allreduce_in_place(struct wisp_coll_comm *c, struct wisp_coll_fold f, const char *in,
                               char *out, size_t count)
{
    uint64_t p1;
    if (!offer_buffers(c, in, out, count * f.size, &p1))
        return false;
    fold_share(c, f, p1, count, out);
    uint64_t at, p2 = p1 + 1, p3 = p1 + 2;
    wisp_coll_publish(c, p2);
    wisp_coll_wait_all(c, p2);
    for (int m = 0; m < c->size; m++) {
        if (m == c->rank)
            continue;
        size_t mlo = share(c, m, count), mhi = share(c, m + 1, count);
        memcpy(&at, wisp_coll_line(c, m, p1)->data, sizeof at);
        memcpy(out + mlo * f.size, (const char *)(uintptr_t)at + mlo * f.size,
               (mhi - mlo) * f.size);
    }
    wisp_coll_publish(c, p3);
    wisp_coll_wait_all(c, p3);
    return true;
}

/* A reduce whose send buffers and root receive buffer are all in the
 * shared heap: every member folds its share straight from everyone's send
 * buffer into the root's receive buffer (through a private accumulator, for
 * MPI_IN_PLACE at the root); false (one phase spent, alike everywhere)
 * where some buffer is not. Phase 2: every share is in place; every member
 * waits for it, as the others read its send buffer until then. */
static bool reduce_in_place(struct wisp_coll_comm *c, struct wisp_coll_fold f, const char *in,
                            char *out, size_t count, int root)
{
    uint64_t p1, at;
    if (!offer_buffers(c, in, out, count * f.size, &p1))
        return false;
    memcpy(&at, wisp_coll_line(c, root, p1)->data, sizeof at);
    fold_share(c, f, p1, count, (char *)(uintptr_t)at);
    wisp_coll_publish(c, p1 + 1);
    wisp_coll_wait_all(c, p1 + 1);
    return true;
}

void wisp_coll_reduce_node(struct wisp_coll_comm *c, struct wisp_coll_fold f, const void *in,
                           void *out, size_t count, int root)
{
    size_t bytes = count * f.size;
    if (bytes <= WISP_COLL_INLINE)
        reduce_inline(c, f, in, out, count);
    else if (bytes < wisp_coll.single_copy_min ||
             !(root < 0 ? allreduce_in_place(c, f, in, out, count)
                        : reduce_in_place(c, f, in, out, count, root)))
        reduce_staged(c, f, in, out, count);
}

/* ---- across nodes (hier.h) --------------------------------------------------- */

/* The MPI's part of a reduction across nodes, on the leaders' communicator,
 * with the waiting wildcard receives lent to it; `nb`, in a nonblocking
 * reduction's coroutine: the MPI's nonblocking form (hier.h). */
static int leaders_reduce(struct wisp_coll_hier *h, const void *in, void *out, size_t count,
                          MPI_Datatype type, MPI_Op op, int root, bool nb)
{
    if (nb) {
        MPI_Request req = MPI_REQUEST_NULL;
        int rc = root < 0 ? PMPI_Iallreduce(in, out, (int)count, type, op, h->leaders, &req)
                          : PMPI_Ireduce(in, out, (int)count, type, op, root, h->leaders, &req);
        return wisp_coll_hier_finish(rc, &req);
    }
    bool lent = wisp_p2p_lend();
    int rc = root < 0 ? PMPI_Allreduce(in, out, (int)count, type, op, h->leaders)
                      : PMPI_Reduce(in, out, (int)count, type, op, root, h->leaders);
    if (lent)
        wisp_p2p_reclaim();
    return rc;
}

/* One message between a node's leader and another member, on the node's
 * communicator (`to`: a send; else a receive): blocking, the waiting
 * wildcard receives lent to the MPI, or in a nonblocking reduction's
 * coroutine (`nb`). */
static int node_message(struct wisp_coll_hier *h, bool to, void *data, size_t count,
                        MPI_Datatype type, int peer, bool nb)
{
    if (nb) {
        MPI_Request req = MPI_REQUEST_NULL;
        int rc = to ? PMPI_Isend(data, (int)count, type, peer, 0, h->node.handle, &req)
                    : PMPI_Irecv(data, (int)count, type, peer, 0, h->node.handle, &req);
        return wisp_coll_hier_finish(rc, &req);
    }
    bool lent = wisp_p2p_lend();
    int rc = to ? PMPI_Send(data, (int)count, type, peer, 0, h->node.handle)
                : PMPI_Recv(data, (int)count, type, peer, 0, h->node.handle, MPI_STATUS_IGNORE);
    if (lent)
        wisp_p2p_reclaim();
    return rc;
}

/* Every node folds into its leader (rank order), the leaders through the
 * MPI, and each leader broadcasts the result on its node. `nb`: in a
 * nonblocking allreduce's coroutine. */
static int allreduce_across(struct wisp_coll_comm *c, struct wisp_coll_fold f, const void *in,
                            void *out, size_t count, MPI_Datatype type, MPI_Op op, bool nb)
{
    struct wisp_coll_hier *h = c->hier;
    bool leader = wisp_coll_hier_leader(h);
    if (h->node.size > 1)
        wisp_coll_reduce_node(&h->node, f, in, leader ? out : NULL, count, 0);
    else if (in != out)
        memcpy(out, in, count * f.size);
    int rc = leader ? leaders_reduce(h, MPI_IN_PLACE, out, count, type, op, -1, nb) : MPI_SUCCESS;
    if (h->node.size > 1)
        wisp_coll_bcast_bytes(&h->node, 0, out, count * f.size);
    return rc;
}

/* Every node folds into its leader, the leaders into the root's leader
 * through the MPI, which hands the result to the root where the root does
 * not lead its node (one message on the node's communicator). The leaders'
 * reduce never takes MPI_IN_PLACE (MPICH 4.0.2's crashes with it at a root
 * other than 0 above 2 KiB): the node's fold goes to a buffer of the
 * leader's, and so does the result where the root is another member.
 * `nb`: in a nonblocking reduce's coroutine. */
static int reduce_across(struct wisp_coll_comm *c, struct wisp_coll_fold f, const void *in,
                         void *out, size_t count, MPI_Datatype type, MPI_Op op, int root, bool nb)
{
    struct wisp_coll_hier *h = c->hier;
    bool leader = wisp_coll_hier_leader(h), home = wisp_coll_hier_here(h, c->rank, root);
    size_t bytes = count * f.size;
    int rc = MPI_SUCCESS;
    if (!leader) {
        wisp_coll_reduce_node(&h->node, f, in, NULL, count, 0);
        if (c->rank == root)
            rc = node_message(h, false, out, count, type, 0, nb);
        return rc;
    }
    bool folds = h->node.size > 1, hands = home && c->rank != root;
    bool copies = !folds && c->rank == root && in == out; /* the root's MPI_IN_PLACE */
    char *scratch = NULL;
    if (folds || copies) {
        scratch = malloc(hands ? 2 * bytes : bytes);
        if (!scratch) {
            wisp_log_error("MPI_Reduce: no memory for %zu bytes of a node's fold", bytes);
            PMPI_Abort(c->handle, 1);
        }
    }
    const void *mine = in;
    if (folds)
        wisp_coll_reduce_node(&h->node, f, in, scratch, count, 0);
    else if (copies)
        memcpy(scratch, in, bytes);
    if (folds || copies)
        mine = scratch;
    void *result = c->rank == root ? out : hands ? scratch + bytes : NULL;
    rc = leaders_reduce(h, mine, result, count, type, op, wisp_coll_hier_leader_of(h, root), nb);
    if (hands) {
        int node_root = wisp_coll_hier_node_rank_of(h, root);
        int sent = node_message(h, true, result, count, type, node_root, nb);
        rc = rc == MPI_SUCCESS ? sent : rc;
    }
    free(scratch);
    return rc;
}

/* ---- the routes --------------------------------------------------------------- */

bool wisp_coll_reduce_takes(const struct wisp_coll_comm *c, const void *sendbuf,
                            const void *recvbuf, MPI_Count count, struct wisp_coll_fold f, int root)
{
    bool all = root < 0;
    uint64_t bytes = (uint64_t)count * f.size;
    uint64_t min = all ? wisp_coll.allreduce_min : wisp_coll.reduce_min;
    uint64_t max = all ? wisp_coll.allreduce_max : wisp_coll.reduce_max;
    if (!c || count < 0 || f.kernel < 0 || bytes > max || (bytes && bytes < min) ||
        (c->hier && count > INT_MAX) || (!all && root >= c->size))
        return false;
    /* Erroneous calls the MPI reports: the same buffer twice where the
     * result goes, MPI_IN_PLACE at a reduce's non-root. */
    if (all || c->rank == root)
        return sendbuf != recvbuf || count == 0;
    return sendbuf != MPI_IN_PLACE;
}

int wisp_coll_reduce(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type,
                     MPI_Op op, int root, MPI_Comm comm, bool large)
{
    struct wisp_coll_comm *c = wisp_coll.on && root >= 0 ? wisp_coll_view(comm) : NULL;
    struct wisp_coll_fold f = c ? wisp_coll_fold_of(type, op) : (struct wisp_coll_fold){-1, 0};
    if (!wisp_coll_reduce_takes(c, sendbuf, recvbuf, count, f, root))
        return wisp_coll_mpi_reduce(sendbuf, recvbuf, count, type, op, root, comm, large);
    wisp_coll_count(&wisp_coll.served);
    if (count == 0)
        return MPI_SUCCESS;
    const void *in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    if (c->hier)
        return reduce_across(c, f, in, recvbuf, (size_t)count, type, op, root, false);
    wisp_coll_reduce_node(c, f, in, c->rank == root ? recvbuf : NULL, (size_t)count, root);
    return MPI_SUCCESS;
}

int wisp_coll_allreduce(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type,
                        MPI_Op op, MPI_Comm comm, bool large)
{
    struct wisp_coll_comm *c = wisp_coll.on ? wisp_coll_view(comm) : NULL;
    struct wisp_coll_fold f = c ? wisp_coll_fold_of(type, op) : (struct wisp_coll_fold){-1, 0};
    if (!wisp_coll_reduce_takes(c, sendbuf, recvbuf, count, f, -1))
        return wisp_coll_mpi_allreduce(sendbuf, recvbuf, count, type, op, comm, large);
    wisp_coll_count(&wisp_coll.served);
    if (count == 0)
        return MPI_SUCCESS;
    const void *in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    if (c->hier)
        return allreduce_across(c, f, in, recvbuf, (size_t)count, type, op, false);
    wisp_coll_reduce_node(c, f, in, recvbuf, (size_t)count, -1);
    return MPI_SUCCESS;
}

/* ---- MPI_Ireduce, MPI_Iallreduce (nb.h) --------------------------------------- */

struct ireduce {
    struct wisp_coll_fold f;
    const void *in;
    void *out; /* NULL at a reduce's non-root */
    size_t count;
    int root;          /* -1: an allreduce */
    MPI_Datatype type; /* predefined, as `op`: the leaders' stage across nodes */
    MPI_Op op;
};

static void ireduce_run(struct wisp_coll_comm *c, void *args)
{
    struct ireduce *r = args;
    if (!r->count)
        return;
    if (c->hier) {
        int rc =
            r->root < 0
                ? allreduce_across(c, r->f, r->in, r->out, r->count, r->type, r->op, true)
                : reduce_across(c, r->f, r->in, r->out, r->count, r->type, r->op, r->root, true);
        if (rc != MPI_SUCCESS)
            wisp_coll_nb_error(rc);
        return;
    }
    wisp_coll_reduce_node(c, r->f, r->in, r->out, r->count, r->root);
}

static const struct wisp_coll_persist_ops preduce = {.run = ireduce_run};

/* The call is wisp's (wisp_coll_reduce_takes) in every member: start it,
 * or make its persistent request (`persistent`: MPI_*_init). */
static int ireduce_start(struct wisp_coll_comm *c, struct wisp_coll_fold f, const void *sendbuf,
                         void *recvbuf, MPI_Count count, MPI_Datatype type, MPI_Op op, int root,
                         bool persistent, MPI_Request *request)
{
    if (!persistent)
        wisp_coll_count(&wisp_coll.served);
    struct ireduce *r = malloc(sizeof *r);
    if (!r) {
        wisp_log_error("a nonblocking reduction: no memory");
        PMPI_Abort(c->handle, 1);
    }
    *r = (struct ireduce){f,
                          sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf,
                          root < 0 || c->rank == root ? recvbuf : NULL,
                          (size_t)count,
                          root,
                          type,
                          op};
    if (persistent)
        return wisp_coll_persist_init(c, &preduce, r, request);
    return wisp_coll_nb_begin(c, ireduce_run, NULL, r, request);
}

int wisp_coll_ireduce(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type,
                      MPI_Op op, int root, MPI_Comm comm, MPI_Request *request, bool large)
{
    struct wisp_coll_comm *c = root >= 0 ? wisp_coll_view_nb_across(comm) : NULL;
    struct wisp_coll_fold f = c ? wisp_coll_fold_of(type, op) : (struct wisp_coll_fold){-1, 0};
    if (wisp_coll_reduce_takes(c, sendbuf, recvbuf, count, f, root))
        return ireduce_start(c, f, sendbuf, recvbuf, count, type, op, root, false, request);
#ifdef WISP_HAVE_MPI_Ireduce_c
    if (large)
        return PMPI_Ireduce_c(sendbuf, recvbuf, count, type, op, root, comm, request);
#endif
    (void)large;
    return PMPI_Ireduce(sendbuf, recvbuf, (int)count, type, op, root, comm, request);
}

int wisp_coll_iallreduce(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type,
                         MPI_Op op, MPI_Comm comm, MPI_Request *request, bool large)
{
    struct wisp_coll_comm *c = wisp_coll_view_nb_across(comm);
    struct wisp_coll_fold f = c ? wisp_coll_fold_of(type, op) : (struct wisp_coll_fold){-1, 0};
    if (wisp_coll_reduce_takes(c, sendbuf, recvbuf, count, f, -1))
        return ireduce_start(c, f, sendbuf, recvbuf, count, type, op, -1, false, request);
#ifdef WISP_HAVE_MPI_Iallreduce_c
    if (large)
        return PMPI_Iallreduce_c(sendbuf, recvbuf, count, type, op, comm, request);
#endif
    (void)large;
    return PMPI_Iallreduce(sendbuf, recvbuf, (int)count, type, op, comm, request);
}

/* ---- MPI_Reduce_init, MPI_Allreduce_init (persist.h) ------------------------------ */

#ifdef WISP_HAVE_MPI_Reduce_init
int wisp_coll_reduce_init(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type,
                          MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request,
                          bool large)
{
    int rc;
#ifdef WISP_HAVE_MPI_Reduce_init_c
    if (large)
        rc = PMPI_Reduce_init_c(sendbuf, recvbuf, count, type, op, root, comm, info, request);
    else
#endif
        rc = PMPI_Reduce_init(sendbuf, recvbuf, (int)count, type, op, root, comm, info, request);
    (void)large;
    /* The MPI's request: the user's, or the lane's backup (persist.h). */
    struct wisp_coll_comm *c = rc == MPI_SUCCESS && root >= 0 ? wisp_coll_view_nb(comm) : NULL;
    struct wisp_coll_fold f = c ? wisp_coll_fold_of(type, op) : (struct wisp_coll_fold){-1, 0};
    if (wisp_coll_reduce_takes(c, sendbuf, recvbuf, count, f, root))
        return ireduce_start(c, f, sendbuf, recvbuf, count, type, op, root, true, request);
    return rc;
}
#endif

#ifdef WISP_HAVE_MPI_Allreduce_init
int wisp_coll_allreduce_init(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type,
                             MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request,
                             bool large)
{
    int rc;
#ifdef WISP_HAVE_MPI_Allreduce_init_c
    if (large)
        rc = PMPI_Allreduce_init_c(sendbuf, recvbuf, count, type, op, comm, info, request);
    else
#endif
        rc = PMPI_Allreduce_init(sendbuf, recvbuf, (int)count, type, op, comm, info, request);
    (void)large;
    struct wisp_coll_comm *c = rc == MPI_SUCCESS ? wisp_coll_view_nb(comm) : NULL;
    struct wisp_coll_fold f = c ? wisp_coll_fold_of(type, op) : (struct wisp_coll_fold){-1, 0};
    if (wisp_coll_reduce_takes(c, sendbuf, recvbuf, count, f, -1))
        return ireduce_start(c, f, sendbuf, recvbuf, count, type, op, -1, true, request);
    return rc;
}
#endif
