/*
 * MPI_Gather and MPI_Gatherv through the area (area.h has the phases,
 * move.h the blocks as bytes).
 *
 * A gather whose blocks are up to a staging half and below
 * WISP_COLL_SINGLE_COPY (the size is the same in every member): one phase;
 * every member puts its block inline in its line (48 bytes) or in its
 * staging half, publishes and leaves; the root copies each block out as it
 * arrives (gather_small).
 *
 * Otherwise, and for every MPI_Gatherv (only the root knows the sizes, so
 * every member takes this path): in the first phase every member offers its
 * block's size and either the block inline (up to 40 bytes) or, where it is
 * in the shared heap, its address; the root offers the number of rounds
 * that follow (from the sizes it knows), so a member waits for the root
 * alone. The root copies the inline blocks and reads the others in place
 * (one copy); the blocks of the rest come through their owners' staging
 * halves, a half per round, the owner filling one while the root empties
 * the other (gather_any). In a last phase the root says it is done: a
 * member whose buffer it read in place waits for that before returning.
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

/* Inline in a first-phase line, after the 8 bytes of the size. */
enum { OFFER_INLINE = WISP_COLL_INLINE - 8 };

static int mpi_gather(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                      MPI_Comm comm, bool large)
{
    bool lent = wisp_coll_mpi_enter();
    int rc;
#ifdef WISP_HAVE_MPI_Gather_c
    if (large)
        rc = PMPI_Gather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
    else
#endif
        rc = PMPI_Gather(sendbuf, (int)sendcount, sendtype, recvbuf, (int)recvcount, recvtype, root,
                         comm);
    (void)large;
    return wisp_coll_mpi_leave(lent, rc);
}

static int mpi_gatherv(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, struct wisp_coll_vec v, MPI_Datatype recvtype, int root,
                       MPI_Comm comm)
{
    bool lent = wisp_coll_mpi_enter();
    int rc;
#ifdef WISP_HAVE_MPI_Gatherv_c
    if (v.large)
        rc = PMPI_Gatherv_c(sendbuf, sendcount, sendtype, recvbuf, v.lcounts, v.ldispls, recvtype,
                            root, comm);
    else
#endif
        rc = PMPI_Gatherv(sendbuf, (int)sendcount, sendtype, recvbuf, v.counts, v.displs, recvtype,
                          root, comm);
    return wisp_coll_mpi_leave(lent, rc);
}

/* One phase: every member's block in its line or its half; the root copies
 * each out as it arrives. */
static void gather_small(struct wisp_coll_comm *c, int root, const struct wisp_coll_block *in,
                         struct wisp_coll_block *out, uint64_t bytes)
{
    uint64_t p = wisp_coll_next(c);
    if (c->rank != root) {
        char *to;
        if (bytes <= WISP_COLL_INLINE) {
            wisp_coll_reuse_line(c, p);
            to = (char *)wisp_coll_line(c, c->rank, p)->data;
        } else {
            wisp_coll_reuse_half(c, p);
            to = wisp_coll_half(c, c->rank, p);
        }
        wisp_coll_copy(to, in->at, bytes);
        wisp_coll_publish(c, p);
        return;
    }
    wisp_coll_publish(c, p);
    for (int m = 0; m < c->size; m++) {
        if (m == root)
            continue;
        wisp_coll_wait(c, m, p);
        const char *from = bytes <= WISP_COLL_INLINE ? (const char *)wisp_coll_line(c, m, p)->data
                                                     : wisp_coll_half(c, m, p);
        wisp_coll_copy(out[m].at, from, min64(bytes, out[m].bytes));
    }
}

/* A member's offer in phase `a`: staged (through its halves) or not. */
static bool staged(struct wisp_coll_comm *c, int m, uint64_t a)
{
    return wisp_coll_offered(c, m, a) > OFFER_INLINE && !wisp_coll_line(c, m, a)->aux;
}

/* The root: the inline and in-place blocks at once (before it publishes
 * the next phase, after which their lines may change), then a round per
 * half; it publishes a round's phase before reading its data (it has read
 * the previous round's), so members fill one half while it empties the
 * other. */
static void gather_root(struct wisp_coll_comm *c, struct wisp_coll_block *out, uint64_t a,
                        uint64_t rounds)
{
    for (int m = 0; m < c->size; m++) {
        const struct wisp_coll_line *line = wisp_coll_line(c, m, a);
        out[m].moved = m == c->rank ? 0 : min64(wisp_coll_offered(c, m, a), out[m].bytes);
        out[m].staged = m != c->rank && staged(c, m, a);
        if (!out[m].moved || out[m].staged)
            continue;
        wisp_coll_copy(out[m].at,
                       line->aux ? (const char *)(uintptr_t)line->aux
                                 : (const char *)line->data + 8,
                       out[m].moved);
    }
    for (uint64_t k = 0; k < rounds; k++) {
        uint64_t p = a + 1 + k, off = k * c->half;
        wisp_coll_publish(c, p);
        for (int m = 0; m < c->size; m++) {
            if (!out[m].staged || off >= out[m].moved)
                continue;
            wisp_coll_wait(c, m, p);
            wisp_coll_copy(out[m].at + off, wisp_coll_half(c, m, p),
                           min64(c->half, out[m].moved - off));
        }
    }
    wisp_coll_publish(c, a + rounds + 1);
}

static void gather_member(struct wisp_coll_comm *c, int root, const struct wisp_coll_block *in,
                          uint64_t a, uint64_t rounds)
{
    bool mine = staged(c, c->rank, a);
    for (uint64_t k = 0; k < rounds; k++) {
        uint64_t p = a + 1 + k, off = k * c->half;
        if (mine && off < in->bytes) {
            wisp_coll_reuse_half(c, p);
            wisp_coll_copy(wisp_coll_half(c, c->rank, p), in->at + off,
                           min64(c->half, in->bytes - off));
        }
        wisp_coll_publish(c, p);
    }
    uint64_t f = a + rounds + 1;
    if (wisp_coll_line(c, c->rank, a)->aux)
        wisp_coll_wait(c, root, f); /* the root reads this member's buffer until then */
    wisp_coll_publish(c, f);
}

/* The first phase: every member offers its size and its block inline or its
 * address; the root, which knows every size, offers the number of rounds
 * (as if every block over 40 bytes were staged; the others idle through
 * them), so a member waits for the root alone. */
static void gather_any(struct wisp_coll_comm *c, int root, const struct wisp_coll_block *in,
                       struct wisp_coll_block *out)
{
    uint64_t a = wisp_coll_next(c), bytes = c->rank == root ? 0 : in->bytes, rounds = 0;
    wisp_coll_reuse_line(c, a);
    struct wisp_coll_line *line = wisp_coll_line(c, c->rank, a);
    memcpy(line->data, &bytes, sizeof bytes);
    if (c->rank == root) {
        for (int m = 0; m < c->size; m++)
            if (m != root && out[m].bytes > OFFER_INLINE &&
                wisp_coll_rounds(out[m].bytes, c->half) > rounds)
                rounds = wisp_coll_rounds(out[m].bytes, c->half);
        line->aux = rounds;
        wisp_coll_publish(c, a);
        wisp_coll_wait_all(c, a);
        gather_root(c, out, a, rounds);
        return;
    }
    line->aux = bytes > OFFER_INLINE ? wisp_coll_block_shared(in) : 0;
    if (bytes <= OFFER_INLINE)
        wisp_coll_copy(line->data + 8, in->at, bytes);
    wisp_coll_publish(c, a);
    wisp_coll_wait(c, root, a);
    gather_member(c, root, in, a, wisp_coll_line(c, root, a)->aux);
}

/* The root's blocks to write (its own none with MPI_IN_PLACE). */
static bool open_out(struct wisp_coll_comm *c, const struct wisp_coll_blocks *bs, bool in_place,
                     struct wisp_coll_block *out)
{
    struct wisp_coll_layout unit;
    bool flat = wisp_coll_blocks_unit(bs, &unit);
    for (int m = 0; m < c->size; m++) {
        out[m] = (struct wisp_coll_block){0};
        if (m == c->rank && in_place)
            continue;
        if (flat && wisp_coll_blocks_count(bs, m) >= 0) {
            wisp_coll_blocks_flat(bs, &unit, m, &out[m]);
            continue;
        }
        if (!wisp_coll_block_out(&out[m], wisp_coll_blocks_at(bs, m), wisp_coll_blocks_count(bs, m),
                                 bs->type)) {
            while (m-- > 0)
                wisp_coll_block_in_done(&out[m]);
            return false;
        }
    }
    return true;
}

/* Unpack the root's blocks that were copies (`filled`), and let them go. */
static void close_out(struct wisp_coll_comm *c, const struct wisp_coll_blocks *bs,
                      struct wisp_coll_block *out, MPI_Comm comm, bool filled)
{
    for (int m = 0; m < c->size; m++)
        if (filled)
            wisp_coll_block_out_done(&out[m], wisp_coll_blocks_at(bs, m),
                                     wisp_coll_blocks_count(bs, m), bs->type, comm);
        else
            wisp_coll_block_in_done(&out[m]);
}

/* One call's blocks as bytes: this member's to send, the root's to
 * receive, and the path (gather_open). */
struct gather {
    int root;
    bool in_place, small;
    uint64_t bytes; /* a block's (MPI_Gather), for the small path */
    struct wisp_coll_block in;
    struct wisp_coll_blockset out; /* the root's */
    struct wisp_coll_blocks bs;    /* the root's receive buffer */
};

/* Let the blocks go: the root's that were copies unpacked (`filled`). */
static void gather_close(struct wisp_coll_comm *c, struct gather *g, MPI_Comm comm, bool filled)
{
    if (c->rank == g->root && g->out.b) {
        close_out(c, &g->bs, g->out.b, comm, filled);
        wisp_coll_blockset_fini(&g->out);
    }
    wisp_coll_block_in_done(&g->in);
}

/* The blocks as bytes (a non-contiguous send block packed) and the limits
 * of WISP_COLL=auto; false (before any phase, nothing held) where the
 * MPI's call serves it. `uniform`: MPI_Gather. */
static bool gather_open(struct wisp_coll_comm *c, const void *sendbuf, MPI_Count sendcount,
                        MPI_Datatype sendtype, int root, bool uniform, MPI_Comm comm,
                        struct gather *g)
{
    g->root = root;
    g->in_place = sendbuf == MPI_IN_PLACE;
    g->in = (struct wisp_coll_block){0};
    g->out = (struct wisp_coll_blockset){NULL};
    if (!g->in_place && !wisp_coll_block_in(&g->in, sendbuf, sendcount, sendtype, comm))
        return false;
    if (c->rank == root && (!wisp_coll_blockset_init(&g->out, c->size) ||
                            !open_out(c, &g->bs, g->in_place, g->out.b))) {
        wisp_coll_blockset_fini(&g->out);
        wisp_coll_block_in_done(&g->in);
        return false;
    }
    g->bytes = c->rank == root ? g->out.b[(root + 1) % c->size].bytes : g->in.bytes;
    if (uniform &&
        (g->bytes > wisp_coll.gather_max || (g->bytes && g->bytes < wisp_coll.gather_min))) {
        gather_close(c, g, comm, false);
        return false;
    }
    g->small = uniform && g->bytes <= c->half && g->bytes < wisp_coll.single_copy_min;
    return true;
}

/* The phases; no MPI call (a nonblocking gather runs it on a coroutine). */
static void gather_run(struct wisp_coll_comm *c, struct gather *g)
{
    if (g->small) {
        if (g->bytes)
            gather_small(c, g->root, &g->in, g->out.b, g->bytes);
    } else {
        gather_any(c, g->root, &g->in, g->out.b);
    }
    if (c->rank == g->root && !g->in_place)
        wisp_coll_copy(g->out.b[g->root].at, g->in.at, min64(g->in.bytes, g->out.b[g->root].bytes));
}

/* False (before any phase) where wisp cannot take the blocks' bytes: the
 * MPI's call. `bs` is the root's receive buffer; `uniform`: MPI_Gather. */
static bool gather(struct wisp_coll_comm *c, const void *sendbuf, MPI_Count sendcount,
                   MPI_Datatype sendtype, const struct wisp_coll_blocks *bs, int root, bool uniform,
                   MPI_Comm comm)
{
    struct gather g;
    if (c->rank == root)
        g.bs = *bs;
    if (!gather_open(c, sendbuf, sendcount, sendtype, root, uniform, comm, &g))
        return false;
    wisp_coll_count(&wisp_coll.served);
    gather_run(c, &g);
    gather_close(c, &g, comm, true);
    return true;
}

int wisp_coll_gather(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                     bool large)
{
    struct wisp_coll_comm *c = wisp_coll.on ? wisp_coll_comm_get(comm) : NULL;
    struct wisp_coll_blocks bs;
    if (!c || root < 0 || root >= c->size || (c->rank != root && sendbuf == MPI_IN_PLACE) ||
        (c->rank == root &&
         !wisp_coll_blocks_of(&bs, recvbuf, recvcount, (struct wisp_coll_vec){0}, recvtype)) ||
        !gather(c, sendbuf, sendcount, sendtype, &bs, root, true, comm))
        return mpi_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                          large);
    return MPI_SUCCESS;
}

int wisp_coll_gatherv(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, struct wisp_coll_vec recv, MPI_Datatype recvtype, int root,
                      MPI_Comm comm)
{
    struct wisp_coll_comm *c = wisp_coll.on ? wisp_coll_comm_get(comm) : NULL;
    struct wisp_coll_blocks bs;
    if (!c || !wisp_coll.gatherv || root < 0 || root >= c->size ||
        (c->rank != root && sendbuf == MPI_IN_PLACE) ||
        (c->rank == root && !wisp_coll_blocks_of(&bs, recvbuf, 0, recv, recvtype)) ||
        !gather(c, sendbuf, sendcount, sendtype, &bs, root, false, comm))
        return mpi_gatherv(sendbuf, sendcount, sendtype, recvbuf, recv, recvtype, root, comm);
    return MPI_SUCCESS;
}

/* ---- MPI_Igather, MPI_Igatherv (nb.h) ----------------------------------------- */

/* The phases on the coroutine; the root's copies unpacked (MPI_Unpack) and
 * the packed send block let go in `settle`, in a call of the user's. */
static void igather_run(struct wisp_coll_comm *c, void *args)
{
    gather_run(c, args);
}

static int igather_settle(struct wisp_coll_comm *c, void *args)
{
    struct gather *g = args;
    gather_close(c, g, c->handle, true);
    if (c->rank == g->root)
        wisp_coll_type_let_go(g->bs.type);
    return MPI_SUCCESS;
}

/* Whether the call holds anything to unpack or let go of after its phases. */
static bool gather_holds(const struct wisp_coll_comm *c, const struct gather *g)
{
    bool held = g->in.packed != NULL;
    if (c->rank == g->root) {
        held = held || g->out.b != g->out.few;
        for (int m = 0; m < c->size; m++)
            held = held || g->out.b[m].packed;
    }
    return held;
}

/* Start the call as wisp's, or false (nothing started) where the MPI's
 * MPI_Igather(v) serves it: the blocking form's decision. */
static bool igather(struct wisp_coll_comm *c, const void *sendbuf, MPI_Count sendcount,
                    MPI_Datatype sendtype, const struct wisp_coll_blocks *bs, int root,
                    bool uniform, MPI_Comm comm, MPI_Request *request)
{
    struct gather *g = malloc(sizeof *g);
    if (!g) {
        wisp_log_error("a nonblocking gather: no memory");
        PMPI_Abort(comm, 1);
    }
    if (c->rank == root)
        g->bs = *bs;
    if (!gather_open(c, sendbuf, sendcount, sendtype, root, uniform, comm, g)) {
        free(g);
        return false;
    }
    wisp_coll_count(&wisp_coll.served);
    bool held = gather_holds(c, g);
    if (held && c->rank == root)
        g->bs.type = wisp_coll_type_keep(g->bs.type, comm); /* the user may free it now */
    wisp_coll_nb_begin(c, igather_run, held ? igather_settle : NULL, g, request);
    return true;
}

int wisp_coll_igather(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                      MPI_Comm comm, MPI_Request *request, bool large)
{
    struct wisp_coll_comm *c = wisp_coll_view_nb(comm);
    struct wisp_coll_blocks bs;
    if (c && root >= 0 && root < c->size && (c->rank == root || sendbuf != MPI_IN_PLACE) &&
        (c->rank != root ||
         wisp_coll_blocks_of(&bs, recvbuf, recvcount, (struct wisp_coll_vec){0}, recvtype)) &&
        igather(c, sendbuf, sendcount, sendtype, &bs, root, true, comm, request))
        return MPI_SUCCESS;
#ifdef WISP_HAVE_MPI_Igather_c
    if (large)
        return PMPI_Igather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                              comm, request);
#endif
    (void)large;
    return PMPI_Igather(sendbuf, (int)sendcount, sendtype, recvbuf, (int)recvcount, recvtype, root,
                        comm, request);
}

int wisp_coll_igatherv(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, struct wisp_coll_vec recv, MPI_Datatype recvtype, int root,
                       MPI_Comm comm, MPI_Request *request)
{
    struct wisp_coll_comm *c = wisp_coll_view_nb(comm);
    struct wisp_coll_blocks bs;
    if (c && wisp_coll.gatherv && root >= 0 && root < c->size &&
        (c->rank == root || sendbuf != MPI_IN_PLACE) &&
        (c->rank != root || wisp_coll_blocks_of(&bs, recvbuf, 0, recv, recvtype)) &&
        igather(c, sendbuf, sendcount, sendtype, &bs, root, false, comm, request))
        return MPI_SUCCESS;
#ifdef WISP_HAVE_MPI_Igatherv_c
    if (recv.large)
        return PMPI_Igatherv_c(sendbuf, sendcount, sendtype, recvbuf, recv.lcounts, recv.ldispls,
                               recvtype, root, comm, request);
#endif
    return PMPI_Igatherv(sendbuf, (int)sendcount, sendtype, recvbuf, recv.counts, recv.displs,
                         recvtype, root, comm, request);
}

/* ---- MPI_Gather_init, MPI_Gatherv_init (persist.h) ------------------------------- */

#ifdef WISP_HAVE_MPI_Gather_init
/* The request's arguments, its types held; each round opens the blocks
 * anew at its start (a non-contiguous send block packed then, in the
 * user's call), runs on the lane and closes them in the call that
 * completes it (the root's copies unpacked): the nonblocking form's steps
 * round after round. */
struct pgather {
    const void *sendbuf;
    MPI_Count sendcount;
    MPI_Datatype sendtype;
    struct wisp_coll_blocks bs; /* the root's */
    int root, rank, size;
    bool uniform, send_held, recv_held;
    struct gather *g; /* the round's, from its start to its settle */
};

/* A round's blocks that no settle closed (the MPI's request ran it,
 * persist.c): let go. */
static void pgather_drop(struct pgather *p)
{
    if (!p->g)
        return;
    struct wisp_coll_comm view = {.rank = p->rank, .size = p->size};
    gather_close(&view, p->g, MPI_COMM_NULL, false);
    free(p->g);
    p->g = NULL;
}

static int pgather_begin(struct wisp_coll_comm *c, void *args)
{
    struct pgather *p = args;
    pgather_drop(p);
    struct gather *g = malloc(sizeof *g);
    if (g && c->rank == p->root)
        g->bs = p->bs;
    /* It opened at the init: only memory can fail now, and the others run the round. */
    if (!g ||
        !gather_open(c, p->sendbuf, p->sendcount, p->sendtype, p->root, p->uniform, c->handle, g)) {
        wisp_log_error("a persistent gather: no memory for a round's blocks");
        PMPI_Abort(c->handle, 1);
    }
    p->g = g;
    return MPI_SUCCESS;
}

static void pgather_run(struct wisp_coll_comm *c, void *args)
{
    struct pgather *p = args;
    /* The path by the lane's half, which the init did not know. */
    p->g->small = p->uniform && p->g->bytes <= c->half && p->g->bytes < wisp_coll.single_copy_min;
    gather_run(c, p->g);
}

static int pgather_settle(struct wisp_coll_comm *c, void *args)
{
    struct pgather *p = args;
    gather_close(c, p->g, c->handle, true);
    free(p->g);
    p->g = NULL;
    return MPI_SUCCESS;
}

static void pgather_release(void *args)
{
    struct pgather *p = args;
    pgather_drop(p);
    if (p->send_held)
        wisp_p2p_type_unhold(p->sendtype);
    if (p->recv_held)
        wisp_p2p_type_unhold(p->bs.type);
    free(p);
}

static const struct wisp_coll_persist_ops pgather = {.run = pgather_run,
                                                     .settle = pgather_settle,
                                                     .begin = pgather_begin,
                                                     .release = pgather_release};

/* The request as wisp's (the nonblocking form's decision: its blocks open
 * as bytes), or false: the MPI's request in *request stays the user's. */
static bool pgather_init(struct wisp_coll_comm *c, const void *sendbuf, MPI_Count sendcount,
                         MPI_Datatype sendtype, const struct wisp_coll_blocks *bs, int root,
                         bool uniform, MPI_Comm comm, MPI_Request *request)
{
    struct gather g;
    if (c->rank == root)
        g.bs = *bs;
    if (!gather_open(c, sendbuf, sendcount, sendtype, root, uniform, comm, &g))
        return false;
    gather_close(c, &g, comm, false);
    struct pgather *p = calloc(1, sizeof *p);
    if (!p) {
        wisp_log_error("a persistent gather: no memory");
        PMPI_Abort(comm, 1);
    }
    *p = (struct pgather){sendbuf, sendcount, sendtype, {0},   root, c->rank,
                          c->size, uniform,   false,    false, NULL};
    if (c->rank == root)
        p->bs = *bs;
    MPI_Datatype held;
    if (sendbuf != MPI_IN_PLACE && wisp_p2p_type_hold(sendtype, &held)) {
        p->sendtype = held;
        p->send_held = true;
    }
    if (c->rank == root && wisp_p2p_type_hold(bs->type, &held)) {
        p->bs.type = held;
        p->recv_held = true;
    }
    wisp_coll_persist_init(c, &pgather, p, request);
    return true;
}

int wisp_coll_gather_init(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                          void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                          MPI_Comm comm, MPI_Info info, MPI_Request *request, bool large)
{
    int rc;
#ifdef WISP_HAVE_MPI_Gather_init_c
    if (large)
        rc = PMPI_Gather_init_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                                comm, info, request);
    else
#endif
        rc = PMPI_Gather_init(sendbuf, (int)sendcount, sendtype, recvbuf, (int)recvcount, recvtype,
                              root, comm, info, request);
    (void)large;
    /* The MPI's request: the user's, or the lane's backup (persist.h). */
    struct wisp_coll_comm *c = rc == MPI_SUCCESS ? wisp_coll_view_nb(comm) : NULL;
    struct wisp_coll_blocks bs;
    if (c && root >= 0 && root < c->size && (c->rank == root || sendbuf != MPI_IN_PLACE) &&
        (c->rank != root ||
         wisp_coll_blocks_of(&bs, recvbuf, recvcount, (struct wisp_coll_vec){0}, recvtype)))
        pgather_init(c, sendbuf, sendcount, sendtype, &bs, root, true, comm, request);
    return rc;
}
#endif

#ifdef WISP_HAVE_MPI_Gatherv_init
int wisp_coll_gatherv_init(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                           void *recvbuf, struct wisp_coll_vec recv, MPI_Datatype recvtype,
                           int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int rc;
#ifdef WISP_HAVE_MPI_Gatherv_init_c
    if (recv.large)
        rc = PMPI_Gatherv_init_c(sendbuf, sendcount, sendtype, recvbuf, recv.lcounts, recv.ldispls,
                                 recvtype, root, comm, info, request);
    else
#endif
        rc = PMPI_Gatherv_init(sendbuf, (int)sendcount, sendtype, recvbuf, recv.counts, recv.displs,
                               recvtype, root, comm, info, request);
    struct wisp_coll_comm *c = rc == MPI_SUCCESS ? wisp_coll_view_nb(comm) : NULL;
    struct wisp_coll_blocks bs;
    if (c && wisp_coll.gatherv && root >= 0 && root < c->size &&
        (c->rank == root || sendbuf != MPI_IN_PLACE) &&
        (c->rank != root || wisp_coll_blocks_of(&bs, recvbuf, 0, recv, recvtype)))
        pgather_init(c, sendbuf, sendcount, sendtype, &bs, root, false, comm, request);
    return rc;
}
#endif
