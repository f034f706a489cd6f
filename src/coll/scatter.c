/*
 * MPI_Scatter and MPI_Scatterv through the area (area.h has the phases,
 * move.h the blocks as bytes).
 *
 * A scatter whose blocks are below WISP_COLL_SINGLE_COPY and fit the
 * root's line together (48 bytes) or its staging half in slots of an n-th
 * (the size is the same in every member): one phase; the root writes every
 * block, publishes and leaves; every other member copies its own out
 * (scatter_small).
 *
 * Otherwise, and for every MPI_Scatterv (only the root knows the sizes,
 * so every member takes this path): in the first phase the root writes the
 * blocks below WISP_COLL_SINGLE_COPY that fit a slot of its half (an n-th)
 * and offers the number of rounds the others need; every other member
 * offers its block's size and, where the block is not one of those and is
 * in the shared heap, its address, and waits for the root alone (the size
 * decides alike in both: a block's bytes are the same at the root and its
 * owner). The root writes those blocks straight into
 * their owners' buffers (one copy), and the others through its staging
 * halves, every member's chunk in its slot, a half per round, filling one
 * while the members empty the other (scatter_any). In a last phase the root
 * says it is done: a member whose buffer it wrote waits for that. Where
 * every block was slotted the root reads no offer: it publishes both
 * phases and leaves, as a small scatter's root does.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "coll/area.h"
#include "coll/coll.h"
#include "coll/move.h"
#include "coll/mpi.h"
#include "coll/nb.h"
#include "coll/persist.h"
#include "coll/view.h"
#include "core/log.h"
#include "p2p/p2p.h"
#include "wisp_have.h"

static int mpi_scatter(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                       MPI_Comm comm, bool large)
{
    bool lent = wisp_coll_mpi_enter();
    int rc;
#ifdef WISP_HAVE_MPI_Scatter_c
    if (large)
        rc = PMPI_Scatter_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
    else
#endif
        rc = PMPI_Scatter(sendbuf, (int)sendcount, sendtype, recvbuf, (int)recvcount, recvtype,
                          root, comm);
    (void)large;
    return wisp_coll_mpi_leave(lent, rc);
}

static int mpi_scatterv(const void *sendbuf, struct wisp_coll_vec v, MPI_Datatype sendtype,
                        void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                        MPI_Comm comm)
{
    bool lent = wisp_coll_mpi_enter();
    int rc;
#ifdef WISP_HAVE_MPI_Scatterv_c
    if (v.large)
        rc = PMPI_Scatterv_c(sendbuf, v.lcounts, v.ldispls, sendtype, recvbuf, recvcount, recvtype,
                             root, comm);
    else
#endif
        rc = PMPI_Scatterv(sendbuf, v.counts, v.displs, sendtype, recvbuf, (int)recvcount, recvtype,
                           root, comm);
    return wisp_coll_mpi_leave(lent, rc);
}

/* A member's slot in the root's staging half (whole cache lines). */
static uint64_t slot(const struct wisp_coll_comm *c)
{
    return (c->half / (uint64_t)c->size) & ~(uint64_t)(WISP_COLL_LINE - 1);
}

/* A block the first phase carries in the root's half (else it goes in
 * place, or through the halves in rounds): both ends decide by its size. */
static bool slotted(const struct wisp_coll_comm *c, uint64_t bytes)
{
    return bytes <= slot(c) && bytes < wisp_coll.single_copy_min;
}

/* One phase: every block in the root's line or half, each member copies
 * its own. */
static void scatter_small(struct wisp_coll_comm *c, int root, const struct wisp_coll_block *in,
                          struct wisp_coll_block *out, uint64_t bytes)
{
    uint64_t p = wisp_coll_next(c);
    bool inline_ = bytes * (uint64_t)c->size <= WISP_COLL_INLINE;
    uint64_t stride = inline_ ? bytes : slot(c);
    if (c->rank == root) {
        char *to;
        if (inline_) {
            wisp_coll_reuse_line(c, p);
            to = (char *)wisp_coll_line(c, c->rank, p)->data;
        } else {
            wisp_coll_reuse_half(c, p);
            to = wisp_coll_half(c, c->rank, p);
        }
        for (int m = 0; m < c->size; m++)
            if (m != root)
                wisp_coll_copy(to + (uint64_t)m * stride, in[m].at, min64(bytes, in[m].bytes));
    } else {
        wisp_coll_wait(c, root, p);
        const char *from =
            inline_ ? (const char *)wisp_coll_line(c, root, p)->data : wisp_coll_half(c, root, p);
        wisp_coll_copy(out->at, from + (uint64_t)c->rank * stride, min64(bytes, out->bytes));
    }
    wisp_coll_publish(c, p);
}

/* A member's offer in phase `a`: through the root's halves, or not. */
static bool staged(struct wisp_coll_comm *c, int m, uint64_t a)
{
    return !slotted(c, wisp_coll_offered(c, m, a)) && !wisp_coll_line(c, m, a)->aux;
}

/* The root: the blocks it writes in place at once, then a round per half.
 * Every member's offer is kept in `in` before the root publishes the next
 * phase, after which the lines may change. */
static void scatter_root(struct wisp_coll_comm *c, struct wisp_coll_block *in, uint64_t a,
                         uint64_t rounds)
{
    uint64_t s = slot(c);
    for (int m = 0; m < c->size; m++) {
        uint64_t to = wisp_coll_line(c, m, a)->aux;
        in[m].moved = m == c->rank ? 0 : min64(wisp_coll_offered(c, m, a), in[m].bytes);
        in[m].staged = staged(c, m, a);
        if (to && in[m].moved)
            wisp_coll_copy((char *)(uintptr_t)to, in[m].at, in[m].moved);
    }
    for (uint64_t k = 0; k < rounds; k++) {
        uint64_t p = a + 1 + k, off = k * s;
        wisp_coll_reuse_half(c, p);
        char *half = wisp_coll_half(c, c->rank, p);
        for (int m = 0; m < c->size; m++)
            if (in[m].staged && off < in[m].moved)
                wisp_coll_copy(half + (uint64_t)m * s, in[m].at + off, min64(s, in[m].moved - off));
        wisp_coll_publish(c, p);
    }
    wisp_coll_publish(c, a + rounds + 1);
}

/* A staged member publishes a round's phase before it copies (it has
 * copied the previous round's): the root fills the other half meanwhile. */
static void scatter_member(struct wisp_coll_comm *c, int root, struct wisp_coll_block *out,
                           uint64_t a, uint64_t rounds)
{
    uint64_t s = slot(c);
    bool mine = staged(c, c->rank, a);
    for (uint64_t k = 0; k < rounds; k++) {
        uint64_t p = a + 1 + k, off = k * s;
        if (mine)
            wisp_coll_wait(c, root, p);
        wisp_coll_publish(c, p);
        if (mine && off < out->bytes)
            wisp_coll_copy(out->at + off, wisp_coll_half(c, root, p) + (uint64_t)c->rank * s,
                           min64(s, out->bytes - off));
    }
    uint64_t f = a + rounds + 1;
    if (wisp_coll_line(c, c->rank, a)->aux)
        wisp_coll_wait(c, root, f); /* the root writes this member's buffer until then */
    wisp_coll_publish(c, f);
}

/* The first phase: the root writes every slotted block into its half, and
 * offers the number of rounds of the others (as if all were staged: those
 * it writes in place idle through them); every other member offers its
 * size and, where its block is not slotted and is in the heap, its address,
 * and waits for the root alone. */
static void scatter_any(struct wisp_coll_comm *c, int root, struct wisp_coll_block *in,
                        struct wisp_coll_block *out)
{
    uint64_t a = wisp_coll_next(c), s = slot(c), bytes = c->rank == root ? 0 : out->bytes;
    uint64_t rounds = 0;
    wisp_coll_reuse_line(c, a);
    struct wisp_coll_line *line = wisp_coll_line(c, c->rank, a);
    memcpy(line->data, &bytes, sizeof bytes);
    if (c->rank == root) {
        wisp_coll_reuse_half(c, a);
        char *half = wisp_coll_half(c, c->rank, a);
        for (int m = 0; m < c->size; m++)
            if (m != root && slotted(c, in[m].bytes))
                wisp_coll_copy(half + (uint64_t)m * s, in[m].at, in[m].bytes);
            else if (m != root && wisp_coll_rounds(in[m].bytes, s) > rounds)
                rounds = wisp_coll_rounds(in[m].bytes, s);
        line->aux = rounds;
        wisp_coll_publish(c, a);
        if (!rounds) { /* every block slotted: no member's offer to read */
            wisp_coll_publish(c, a + 1);
            return;
        }
        wisp_coll_wait_all(c, a);
        scatter_root(c, in, a, rounds);
        return;
    }
    line->aux = slotted(c, bytes) ? 0 : wisp_coll_block_shared(out);
    wisp_coll_publish(c, a);
    wisp_coll_wait(c, root, a);
    if (slotted(c, bytes))
        wisp_coll_copy(out->at, wisp_coll_half(c, root, a) + (uint64_t)c->rank * s, bytes);
    scatter_member(c, root, out, a, wisp_coll_line(c, root, a)->aux);
}

/* The root's blocks to read. */
static bool open_in(struct wisp_coll_comm *c, const struct wisp_coll_blocks *bs,
                    struct wisp_coll_block *in, MPI_Comm comm)
{
    struct wisp_coll_layout unit;
    bool flat = wisp_coll_blocks_unit(bs, &unit);
    for (int m = 0; m < c->size; m++)
        if (flat && wisp_coll_blocks_count(bs, m) >= 0)
            wisp_coll_blocks_flat(bs, &unit, m, &in[m]);
        else if (!wisp_coll_block_in(&in[m], wisp_coll_blocks_at(bs, m),
                                     wisp_coll_blocks_count(bs, m), bs->type, comm)) {
            while (m-- > 0)
                wisp_coll_block_in_done(&in[m]);
            return false;
        }
    return true;
}

/* Let the root's blocks go (none elsewhere). */
static void close_in(struct wisp_coll_comm *c, struct wisp_coll_blockset *in)
{
    for (int m = 0; in->b && m < c->size; m++)
        wisp_coll_block_in_done(&in->b[m]);
    wisp_coll_blockset_fini(in);
}

/* One call's blocks as bytes: the root's to send, this member's to
 * receive, and the path (scatter_open). */
struct scatter {
    int root;
    bool in_place, small;
    uint64_t bytes; /* a block's (MPI_Scatter), for the small path */
    void *recvbuf;  /* where `out` is unpacked, if it is a copy */
    MPI_Count recvcount;
    MPI_Datatype recvtype;
    struct wisp_coll_block out;
    struct wisp_coll_blockset in; /* the root's */
    struct wisp_coll_blocks bs;   /* the root's send buffer */
};

/* Let the blocks go: this member's, if a copy, unpacked (`filled`). */
static void scatter_close(struct wisp_coll_comm *c, struct scatter *s, MPI_Comm comm, bool filled)
{
    close_in(c, &s->in);
    if (filled && !s->in_place)
        wisp_coll_block_out_done(&s->out, s->recvbuf, s->recvcount, s->recvtype, comm);
    else
        wisp_coll_block_in_done(&s->out);
}

/* The blocks as bytes (the root's non-contiguous ones packed) and the
 * limits of WISP_COLL=auto; false (before any phase, nothing held) where
 * the MPI's call serves it. `uniform`: MPI_Scatter. */
static bool scatter_open(struct wisp_coll_comm *c, void *recvbuf, MPI_Count recvcount,
                         MPI_Datatype recvtype, int root, bool uniform, MPI_Comm comm,
                         struct scatter *s)
{
    s->root = root;
    s->in_place = recvbuf == MPI_IN_PLACE;
    s->recvbuf = recvbuf;
    s->recvcount = recvcount;
    s->recvtype = recvtype;
    s->out = (struct wisp_coll_block){0};
    s->in = (struct wisp_coll_blockset){NULL};
    if (!s->in_place && !wisp_coll_block_out(&s->out, recvbuf, recvcount, recvtype))
        return false;
    if (c->rank == root &&
        (!wisp_coll_blockset_init(&s->in, c->size) || !open_in(c, &s->bs, s->in.b, comm))) {
        wisp_coll_blockset_fini(&s->in);
        wisp_coll_block_in_done(&s->out);
        return false;
    }
    s->bytes = c->rank == root ? s->in.b[(root + 1) % c->size].bytes : s->out.bytes;
    if (uniform &&
        (s->bytes > wisp_coll.scatter_max || (s->bytes && s->bytes < wisp_coll.scatter_min))) {
        scatter_close(c, s, comm, false);
        return false;
    }
    s->small = uniform && s->bytes < wisp_coll.single_copy_min &&
               (s->bytes * (uint64_t)c->size <= WISP_COLL_INLINE || s->bytes <= slot(c));
    return true;
}

/* The phases; no MPI call (a nonblocking scatter runs it on a coroutine). */
static void scatter_run(struct wisp_coll_comm *c, struct scatter *s)
{
    if (s->small) {
        if (s->bytes)
            scatter_small(c, s->root, s->in.b, &s->out, s->bytes);
    } else {
        scatter_any(c, s->root, s->in.b, &s->out);
    }
    if (c->rank == s->root && !s->in_place)
        wisp_coll_copy(s->out.at, s->in.b[s->root].at, min64(s->in.b[s->root].bytes, s->out.bytes));
}

/* False (before any phase) where wisp cannot take the blocks' bytes: the
 * MPI's call. `bs` is the root's send buffer; `uniform`: MPI_Scatter. */
static bool scatter(struct wisp_coll_comm *c, const struct wisp_coll_blocks *bs, void *recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, int root, bool uniform,
                    MPI_Comm comm)
{
    struct scatter s;
    if (c->rank == root)
        s.bs = *bs;
    if (!scatter_open(c, recvbuf, recvcount, recvtype, root, uniform, comm, &s))
        return false;
    wisp_coll_count(&wisp_coll.served);
    scatter_run(c, &s);
    scatter_close(c, &s, comm, true);
    return true;
}

int wisp_coll_scatter(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                      MPI_Comm comm, bool large)
{
    struct wisp_coll_comm *c = wisp_coll.on ? wisp_coll_comm_get(comm) : NULL;
    struct wisp_coll_blocks bs;
    if (!c || root < 0 || root >= c->size || !slot(c) ||
        (c->rank != root && recvbuf == MPI_IN_PLACE) ||
        (c->rank == root && !wisp_coll_blocks_of(&bs, (void *)sendbuf, sendcount,
                                                 (struct wisp_coll_vec){0}, sendtype)) ||
        !scatter(c, &bs, recvbuf, recvcount, recvtype, root, true, comm))
        return mpi_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                           large);
    return MPI_SUCCESS;
}

int wisp_coll_scatterv(const void *sendbuf, struct wisp_coll_vec send, MPI_Datatype sendtype,
                       void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                       MPI_Comm comm)
{
    struct wisp_coll_comm *c = wisp_coll.on ? wisp_coll_comm_get(comm) : NULL;
    struct wisp_coll_blocks bs;
    if (!c || !wisp_coll.scatterv || root < 0 || root >= c->size || !slot(c) ||
        (c->rank != root && recvbuf == MPI_IN_PLACE) ||
        (c->rank == root && !wisp_coll_blocks_of(&bs, (void *)sendbuf, 0, send, sendtype)) ||
        !scatter(c, &bs, recvbuf, recvcount, recvtype, root, false, comm))
        return mpi_scatterv(sendbuf, send, sendtype, recvbuf, recvcount, recvtype, root, comm);
    return MPI_SUCCESS;
}

/* ---- MPI_Iscatter, MPI_Iscatterv (nb.h) --------------------------------------- */

/* The phases on the coroutine; this member's copy unpacked (MPI_Unpack)
 * and the root's packed blocks let go in `settle`, in a call of the user's. */
static void iscatter_run(struct wisp_coll_comm *c, void *args)
{
    scatter_run(c, args);
}

static int iscatter_settle(struct wisp_coll_comm *c, void *args)
{
    struct scatter *s = args;
    scatter_close(c, s, c->handle, true);
    if (!s->in_place)
        wisp_coll_type_let_go(s->recvtype);
    return MPI_SUCCESS;
}

/* Whether the call holds anything to unpack or let go of after its phases. */
static bool scatter_holds(const struct wisp_coll_comm *c, const struct scatter *s)
{
    bool held = s->out.packed != NULL;
    if (c->rank == s->root) {
        held = held || s->in.b != s->in.few;
        for (int m = 0; m < c->size; m++)
            held = held || s->in.b[m].packed;
    }
    return held;
}

/* Start the call as wisp's, or false (nothing started) where the MPI's
 * MPI_Iscatter(v) serves it: the blocking form's decision. */
static bool iscatter(struct wisp_coll_comm *c, const struct wisp_coll_blocks *bs, void *recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, int root, bool uniform,
                     MPI_Comm comm, MPI_Request *request)
{
    struct scatter *s = malloc(sizeof *s);
    if (!s) {
        wisp_log_error("a nonblocking scatter: no memory");
        PMPI_Abort(comm, 1);
    }
    if (c->rank == root)
        s->bs = *bs;
    if (!scatter_open(c, recvbuf, recvcount, recvtype, root, uniform, comm, s)) {
        free(s);
        return false;
    }
    wisp_coll_count(&wisp_coll.served);
    bool held = scatter_holds(c, s);
    if (held && !s->in_place)
        s->recvtype = wisp_coll_type_keep(s->recvtype, comm); /* the user may free it now */
    wisp_coll_nb_begin(c, iscatter_run, held ? iscatter_settle : NULL, s, request);
    return true;
}

int wisp_coll_iscatter(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                       MPI_Comm comm, MPI_Request *request, bool large)
{
    struct wisp_coll_comm *c = wisp_coll_view_nb(comm);
    struct wisp_coll_blocks bs;
    if (c && root >= 0 && root < c->size && slot(c) &&
        (c->rank == root || recvbuf != MPI_IN_PLACE) &&
        (c->rank != root || wisp_coll_blocks_of(&bs, (void *)sendbuf, sendcount,
                                                (struct wisp_coll_vec){0}, sendtype)) &&
        iscatter(c, &bs, recvbuf, recvcount, recvtype, root, true, comm, request))
        return MPI_SUCCESS;
#ifdef WISP_HAVE_MPI_Iscatter_c
    if (large)
        return PMPI_Iscatter_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                               comm, request);
#endif
    (void)large;
    return PMPI_Iscatter(sendbuf, (int)sendcount, sendtype, recvbuf, (int)recvcount, recvtype, root,
                         comm, request);
}

int wisp_coll_iscatterv(const void *sendbuf, struct wisp_coll_vec send, MPI_Datatype sendtype,
                        void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                        MPI_Comm comm, MPI_Request *request)
{
    struct wisp_coll_comm *c = wisp_coll_view_nb(comm);
    struct wisp_coll_blocks bs;
    if (c && wisp_coll.scatterv && root >= 0 && root < c->size && slot(c) &&
        (c->rank == root || recvbuf != MPI_IN_PLACE) &&
        (c->rank != root || wisp_coll_blocks_of(&bs, (void *)sendbuf, 0, send, sendtype)) &&
        iscatter(c, &bs, recvbuf, recvcount, recvtype, root, false, comm, request))
        return MPI_SUCCESS;
#ifdef WISP_HAVE_MPI_Iscatterv_c
    if (send.large)
        return PMPI_Iscatterv_c(sendbuf, send.lcounts, send.ldispls, sendtype, recvbuf, recvcount,
                                recvtype, root, comm, request);
#endif
    return PMPI_Iscatterv(sendbuf, send.counts, send.displs, sendtype, recvbuf, (int)recvcount,
                          recvtype, root, comm, request);
}

/* ---- MPI_Scatter_init, MPI_Scatterv_init (persist.h) ----------------------------- */

#ifdef WISP_HAVE_MPI_Scatter_init
/* The request's arguments, its types held; each round opens the blocks
 * anew at its start (the root's non-contiguous ones packed then, in the
 * user's call), runs on the lane and closes them in the call that
 * completes it (this member's copy unpacked): the nonblocking form's
 * steps round after round. */
struct pscatter {
    struct wisp_coll_blocks bs; /* the root's */
    void *recvbuf;
    MPI_Count recvcount;
    MPI_Datatype recvtype;
    int root, rank, size;
    bool uniform, send_held, recv_held;
    struct scatter *s; /* the round's, from its start to its settle */
};

/* A round's blocks that no settle closed (the MPI's request ran it,
 * persist.c): let go. */
static void pscatter_drop(struct pscatter *p)
{
    if (!p->s)
        return;
    struct wisp_coll_comm view = {.rank = p->rank, .size = p->size};
    scatter_close(&view, p->s, MPI_COMM_NULL, false);
    free(p->s);
    p->s = NULL;
}

static int pscatter_begin(struct wisp_coll_comm *c, void *args)
{
    struct pscatter *p = args;
    pscatter_drop(p);
    struct scatter *s = malloc(sizeof *s);
    if (s && c->rank == p->root)
        s->bs = p->bs;
    /* It opened at the init: only memory can fail now, and the others run the round. */
    if (!s || !scatter_open(c, p->recvbuf, p->recvcount, p->recvtype, p->root, p->uniform,
                            c->handle, s)) {
        wisp_log_error("a persistent scatter: no memory for a round's blocks");
        PMPI_Abort(c->handle, 1);
    }
    p->s = s;
    return MPI_SUCCESS;
}

static void pscatter_run(struct wisp_coll_comm *c, void *args)
{
    struct pscatter *p = args;
    struct scatter *s = p->s;
    /* The path by the lane's half, which the init did not know. */
    s->small = p->uniform && s->bytes < wisp_coll.single_copy_min &&
               (s->bytes * (uint64_t)c->size <= WISP_COLL_INLINE || s->bytes <= slot(c));
    scatter_run(c, s);
}

static int pscatter_settle(struct wisp_coll_comm *c, void *args)
{
    struct pscatter *p = args;
    scatter_close(c, p->s, c->handle, true);
    free(p->s);
    p->s = NULL;
    return MPI_SUCCESS;
}

static void pscatter_release(void *args)
{
    struct pscatter *p = args;
    pscatter_drop(p);
    if (p->send_held)
        wisp_p2p_type_unhold(p->bs.type);
    if (p->recv_held)
        wisp_p2p_type_unhold(p->recvtype);
    free(p);
}

static const struct wisp_coll_persist_ops pscatter = {.run = pscatter_run,
                                                      .settle = pscatter_settle,
                                                      .begin = pscatter_begin,
                                                      .release = pscatter_release};

/* The request as wisp's (the nonblocking form's decision: its blocks open
 * as bytes, and a lane's half has a slot for every member), or false: the
 * MPI's request in *request stays the user's. */
static bool pscatter_init(struct wisp_coll_comm *c, const struct wisp_coll_blocks *bs,
                          void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                          bool uniform, MPI_Comm comm, MPI_Request *request)
{
    struct wisp_coll_comm lane = {.rank = c->rank, .size = c->size, .half = wisp_coll_lane_half()};
    if (!slot(&lane))
        return false;
    struct scatter s;
    if (c->rank == root)
        s.bs = *bs;
    if (!scatter_open(c, recvbuf, recvcount, recvtype, root, uniform, comm, &s))
        return false;
    scatter_close(c, &s, comm, false);
    struct pscatter *p = calloc(1, sizeof *p);
    if (!p) {
        wisp_log_error("a persistent scatter: no memory");
        PMPI_Abort(comm, 1);
    }
    *p = (struct pscatter){{0},     recvbuf, recvcount, recvtype, root, c->rank,
                           c->size, uniform, false,     false,    NULL};
    if (c->rank == root)
        p->bs = *bs;
    MPI_Datatype held;
    if (c->rank == root && wisp_p2p_type_hold(bs->type, &held)) {
        p->bs.type = held;
        p->send_held = true;
    }
    if (recvbuf != MPI_IN_PLACE && wisp_p2p_type_hold(recvtype, &held)) {
        p->recvtype = held;
        p->recv_held = true;
    }
    wisp_coll_persist_init(c, &pscatter, p, request);
    return true;
}

int wisp_coll_scatter_init(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                           void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                           MPI_Comm comm, MPI_Info info, MPI_Request *request, bool large)
{
    int rc;
#ifdef WISP_HAVE_MPI_Scatter_init_c
    if (large)
        rc = PMPI_Scatter_init_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                                 comm, info, request);
    else
#endif
        rc = PMPI_Scatter_init(sendbuf, (int)sendcount, sendtype, recvbuf, (int)recvcount, recvtype,
                               root, comm, info, request);
    (void)large;
    /* The MPI's request: the user's, or the lane's backup (persist.h). */
    struct wisp_coll_comm *c = rc == MPI_SUCCESS ? wisp_coll_view_nb(comm) : NULL;
    struct wisp_coll_blocks bs;
    if (c && root >= 0 && root < c->size && slot(c) &&
        (c->rank == root || recvbuf != MPI_IN_PLACE) &&
        (c->rank != root ||
         wisp_coll_blocks_of(&bs, (void *)sendbuf, sendcount, (struct wisp_coll_vec){0}, sendtype)))
        pscatter_init(c, &bs, recvbuf, recvcount, recvtype, root, true, comm, request);
    return rc;
}
#endif

#ifdef WISP_HAVE_MPI_Scatterv_init
int wisp_coll_scatterv_init(const void *sendbuf, struct wisp_coll_vec send, MPI_Datatype sendtype,
                            void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                            MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int rc;
#ifdef WISP_HAVE_MPI_Scatterv_init_c
    if (send.large)
        rc = PMPI_Scatterv_init_c(sendbuf, send.lcounts, send.ldispls, sendtype, recvbuf, recvcount,
                                  recvtype, root, comm, info, request);
    else
#endif
        rc = PMPI_Scatterv_init(sendbuf, send.counts, send.displs, sendtype, recvbuf,
                                (int)recvcount, recvtype, root, comm, info, request);
    struct wisp_coll_comm *c = rc == MPI_SUCCESS ? wisp_coll_view_nb(comm) : NULL;
    struct wisp_coll_blocks bs;
    if (c && wisp_coll.scatterv && root >= 0 && root < c->size && slot(c) &&
        (c->rank == root || recvbuf != MPI_IN_PLACE) &&
        (c->rank != root || wisp_coll_blocks_of(&bs, (void *)sendbuf, 0, send, sendtype)))
        pscatter_init(c, &bs, recvbuf, recvcount, recvtype, root, false, comm, request);
    return rc;
}
#endif
