/*
 * MPI_Allgather and MPI_Allgatherv through the area (area.h has the
 * phases, move.h the blocks as bytes). Every member knows every block's
 * size (the receive counts are the same everywhere), so every member picks
 * the same path from them.
 *
 * Blocks up to a staging half and below WISP_COLL_SINGLE_COPY: one phase;
 * every member puts its block inline in its line (48 bytes) or in its
 * staging half and publishes; every member copies every other block out
 * as it arrives (allgather_small).
 *
 * Larger: every member offers where its block is if it is in the shared
 * heap; where every member's is, every member copies the others' straight
 * into its receive buffer (one copy, done by all at once), then waits for
 * everyone before returning (its block is read until then); else through
 * every member's staging halves, a half of each block per phase
 * (allgather_large).
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

static int mpi_allgather(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                         void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                         bool large)
{
    bool lent = wisp_coll_mpi_enter();
    int rc;
#ifdef WISP_HAVE_MPI_Allgather_c
    if (large)
        rc = PMPI_Allgather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    else
#endif
        rc = PMPI_Allgather(sendbuf, (int)sendcount, sendtype, recvbuf, (int)recvcount, recvtype,
                            comm);
    (void)large;
    return wisp_coll_mpi_leave(lent, rc);
}

static int mpi_allgatherv(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                          void *recvbuf, struct wisp_coll_vec v, MPI_Datatype recvtype,
                          MPI_Comm comm)
{
    bool lent = wisp_coll_mpi_enter();
    int rc;
#ifdef WISP_HAVE_MPI_Allgatherv_c
    if (v.large)
        rc = PMPI_Allgatherv_c(sendbuf, sendcount, sendtype, recvbuf, v.lcounts, v.ldispls,
                               recvtype, comm);
    else
#endif
        rc = PMPI_Allgatherv(sendbuf, (int)sendcount, sendtype, recvbuf, v.counts, v.displs,
                             recvtype, comm);
    return wisp_coll_mpi_leave(lent, rc);
}

/* One phase: every block in its owner's line or half. */
static void allgather_small(struct wisp_coll_comm *c, const struct wisp_coll_block *in,
                            struct wisp_coll_block *out)
{
    uint64_t p = wisp_coll_next(c);
    char *to;
    if (in->bytes <= WISP_COLL_INLINE) {
        wisp_coll_reuse_line(c, p);
        to = (char *)wisp_coll_line(c, c->rank, p)->data;
    } else {
        wisp_coll_reuse_half(c, p);
        to = wisp_coll_half(c, c->rank, p);
    }
    wisp_coll_copy(to, in->at, in->bytes);
    wisp_coll_publish(c, p);
    for (int m = 0; m < c->size; m++) {
        if (m == c->rank || !out[m].bytes)
            continue;
        wisp_coll_wait(c, m, p);
        const char *from = out[m].bytes <= WISP_COLL_INLINE
                               ? (const char *)wisp_coll_line(c, m, p)->data
                               : wisp_coll_half(c, m, p);
        wisp_coll_copy(out[m].at, from, out[m].bytes);
    }
}

/* Through every member's halves, a half of each block per phase. */
static void allgather_staged(struct wisp_coll_comm *c, const struct wisp_coll_block *in,
                             struct wisp_coll_block *out, uint64_t most)
{
    for (uint64_t off = 0; off < most; off += c->half) {
        uint64_t p = wisp_coll_next(c);
        wisp_coll_reuse_half(c, p);
        if (off < in->bytes)
            wisp_coll_copy(wisp_coll_half(c, c->rank, p), in->at + off,
                           min64(c->half, in->bytes - off));
        wisp_coll_publish(c, p);
        for (int m = 0; m < c->size; m++) {
            if (m == c->rank || off >= out[m].bytes)
                continue;
            wisp_coll_wait(c, m, p);
            wisp_coll_copy(out[m].at + off, wisp_coll_half(c, m, p),
                           min64(c->half, out[m].bytes - off));
        }
    }
}

static void allgather_large(struct wisp_coll_comm *c, const struct wisp_coll_block *in,
                            struct wisp_coll_block *out, uint64_t most)
{
    uint64_t a = wisp_coll_next(c);
    wisp_coll_reuse_line(c, a);
    wisp_coll_line(c, c->rank, a)->aux = wisp_coll_block_shared(in);
    wisp_coll_publish(c, a);
    wisp_coll_wait_all(c, a);
    for (int m = 0; m < c->size; m++)
        if (out[m].bytes && !wisp_coll_line(c, m, a)->aux) {
            allgather_staged(c, in, out, most);
            return;
        }
    for (int m = 0; m < c->size; m++)
        if (m != c->rank && out[m].bytes)
            wisp_coll_copy(out[m].at, (const char *)(uintptr_t)wisp_coll_line(c, m, a)->aux,
                           out[m].bytes);
    wisp_coll_publish(c, a + 1);
    wisp_coll_wait_all(c, a + 1);
}

/* Every member's block to write; this member's none with MPI_IN_PLACE,
 * where its block (`in`) is read from its own place. */
static bool open_out(struct wisp_coll_comm *c, const struct wisp_coll_blocks *bs, bool in_place,
                     struct wisp_coll_block *out, struct wisp_coll_block *in, MPI_Comm comm)
{
    for (int m = 0; m < c->size; m++) {
        bool ok = m == c->rank && in_place
                      ? wisp_coll_block_in(in, wisp_coll_blocks_at(bs, m),
                                           wisp_coll_blocks_count(bs, m), bs->type, comm)
                      : wisp_coll_block_out(&out[m], wisp_coll_blocks_at(bs, m),
                                            wisp_coll_blocks_count(bs, m), bs->type);
        if (m == c->rank && in_place)
            out[m] = (struct wisp_coll_block){.bytes = in->bytes};
        if (!ok) {
            while (m-- > 0)
                wisp_coll_block_in_done(&out[m]);
            return false;
        }
    }
    return true;
}

/* One call's blocks as bytes (allgather_open). */
struct allgather {
    bool in_place;
    uint64_t most; /* the largest block's bytes */
    struct wisp_coll_block in;
    struct wisp_coll_blockset out;
    struct wisp_coll_blocks bs; /* the receive buffer */
};

/* Let the blocks go: those that were copies unpacked (`filled`). */
static void allgather_close(struct wisp_coll_comm *c, struct allgather *g, MPI_Comm comm,
                            bool filled)
{
    for (int m = 0; m < c->size; m++)
        if (filled)
            wisp_coll_block_out_done(&g->out.b[m], wisp_coll_blocks_at(&g->bs, m),
                                     wisp_coll_blocks_count(&g->bs, m), g->bs.type, comm);
        else
            wisp_coll_block_in_done(&g->out.b[m]);
    wisp_coll_block_in_done(&g->in);
    wisp_coll_blockset_fini(&g->out);
}

/* The blocks as bytes (this member's packed where it is not one piece) and
 * the limits of WISP_COLL=auto; false (before any phase, nothing held)
 * where the MPI's call serves it. */
static bool allgather_open(struct wisp_coll_comm *c, const void *sendbuf, MPI_Count sendcount,
                           MPI_Datatype sendtype, MPI_Comm comm, struct allgather *g)
{
    g->in_place = sendbuf == MPI_IN_PLACE;
    g->in = (struct wisp_coll_block){0};
    if (!wisp_coll_blockset_init(&g->out, c->size))
        return false;
    if ((!g->in_place && !wisp_coll_block_in(&g->in, sendbuf, sendcount, sendtype, comm)) ||
        !open_out(c, &g->bs, g->in_place, g->out.b, &g->in, comm)) {
        wisp_coll_block_in_done(&g->in);
        wisp_coll_blockset_fini(&g->out);
        return false;
    }
    g->most = 0;
    for (int m = 0; m < c->size; m++)
        g->most = g->out.b[m].bytes > g->most ? g->out.b[m].bytes : g->most;
    if (g->most > wisp_coll.allgather_max || (g->most && g->most < wisp_coll.allgather_min)) {
        allgather_close(c, g, comm, false);
        return false;
    }
    return true;
}

/* The phases; no MPI call (a nonblocking allgather runs it on a coroutine). */
static void allgather_run(struct wisp_coll_comm *c, struct allgather *g)
{
    if (g->most <= c->half && g->most < wisp_coll.single_copy_min) {
        if (g->most)
            allgather_small(c, &g->in, g->out.b);
    } else {
        allgather_large(c, &g->in, g->out.b, g->most);
    }
    if (!g->in_place)
        wisp_coll_copy(g->out.b[c->rank].at, g->in.at, min64(g->in.bytes, g->out.b[c->rank].bytes));
}

/* False (before any phase) where wisp cannot take the blocks' bytes: the
 * MPI's call. */
static bool allgather(struct wisp_coll_comm *c, const void *sendbuf, MPI_Count sendcount,
                      MPI_Datatype sendtype, const struct wisp_coll_blocks *bs, MPI_Comm comm)
{
    struct allgather g;
    g.bs = *bs;
    if (!allgather_open(c, sendbuf, sendcount, sendtype, comm, &g))
        return false;
    wisp_coll_count(&wisp_coll.served);
    allgather_run(c, &g);
    allgather_close(c, &g, comm, true);
    return true;
}

int wisp_coll_allgather(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                        bool large)
{
    struct wisp_coll_comm *c = wisp_coll.on ? wisp_coll_comm_get(comm) : NULL;
    struct wisp_coll_blocks bs;
    if (!c || (sendbuf == recvbuf && sendcount > 0) ||
        !wisp_coll_blocks_of(&bs, recvbuf, recvcount, (struct wisp_coll_vec){0}, recvtype) ||
        !allgather(c, sendbuf, sendcount, sendtype, &bs, comm))
        return mpi_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                             large);
    return MPI_SUCCESS;
}

int wisp_coll_allgatherv(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                         void *recvbuf, struct wisp_coll_vec recv, MPI_Datatype recvtype,
                         MPI_Comm comm)
{
    struct wisp_coll_comm *c = wisp_coll.on ? wisp_coll_comm_get(comm) : NULL;
    struct wisp_coll_blocks bs;
    if (!c || (sendbuf == recvbuf && sendcount > 0) ||
        !wisp_coll_blocks_of(&bs, recvbuf, 0, recv, recvtype) ||
        !allgather(c, sendbuf, sendcount, sendtype, &bs, comm))
        return mpi_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recv, recvtype, comm);
    return MPI_SUCCESS;
}

/* ---- MPI_Iallgather, MPI_Iallgatherv (nb.h) ----------------------------------- */

/* The phases on the coroutine; the copies unpacked (MPI_Unpack) and let go
 * in `settle`, in a call of the user's. */
static void iallgather_run(struct wisp_coll_comm *c, void *args)
{
    allgather_run(c, args);
}

static int iallgather_settle(struct wisp_coll_comm *c, void *args)
{
    struct allgather *g = args;
    allgather_close(c, g, c->handle, true);
    wisp_coll_type_let_go(g->bs.type);
    return MPI_SUCCESS;
}

/* Whether the call holds anything to unpack or let go of after its phases. */
static bool allgather_holds(const struct wisp_coll_comm *c, const struct allgather *g)
{
    bool held = g->in.packed || g->out.b != g->out.few;
    for (int m = 0; m < c->size; m++)
        held = held || g->out.b[m].packed;
    return held;
}

/* Start the call as wisp's, or false (nothing started) where the MPI's
 * MPI_Iallgather(v) serves it: the blocking form's decision. */
static bool iallgather(struct wisp_coll_comm *c, const void *sendbuf, MPI_Count sendcount,
                       MPI_Datatype sendtype, const struct wisp_coll_blocks *bs, MPI_Comm comm,
                       MPI_Request *request)
{
    struct allgather *g = malloc(sizeof *g);
    if (!g) {
        wisp_log_error("a nonblocking allgather: no memory");
        PMPI_Abort(comm, 1);
    }
    g->bs = *bs;
    if (!allgather_open(c, sendbuf, sendcount, sendtype, comm, g)) {
        free(g);
        return false;
    }
    wisp_coll_count(&wisp_coll.served);
    bool held = allgather_holds(c, g);
    if (held)
        g->bs.type = wisp_coll_type_keep(g->bs.type, comm); /* the user may free it now */
    wisp_coll_nb_begin(c, iallgather_run, held ? iallgather_settle : NULL, g, request);
    return true;
}

int wisp_coll_iallgather(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                         void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                         MPI_Request *request, bool large)
{
    struct wisp_coll_comm *c = wisp_coll_view_nb(comm);
    struct wisp_coll_blocks bs;
    if (c && (sendbuf != recvbuf || sendcount <= 0) &&
        wisp_coll_blocks_of(&bs, recvbuf, recvcount, (struct wisp_coll_vec){0}, recvtype) &&
        iallgather(c, sendbuf, sendcount, sendtype, &bs, comm, request))
        return MPI_SUCCESS;
#ifdef WISP_HAVE_MPI_Iallgather_c
    if (large)
        return PMPI_Iallgather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                                 request);
#endif
    (void)large;
    return PMPI_Iallgather(sendbuf, (int)sendcount, sendtype, recvbuf, (int)recvcount, recvtype,
                           comm, request);
}

int wisp_coll_iallgatherv(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                          void *recvbuf, struct wisp_coll_vec recv, MPI_Datatype recvtype,
                          MPI_Comm comm, MPI_Request *request)
{
    struct wisp_coll_comm *c = wisp_coll_view_nb(comm);
    struct wisp_coll_blocks bs;
    if (c && (sendbuf != recvbuf || sendcount <= 0) &&
        wisp_coll_blocks_of(&bs, recvbuf, 0, recv, recvtype) &&
        iallgather(c, sendbuf, sendcount, sendtype, &bs, comm, request))
        return MPI_SUCCESS;
#ifdef WISP_HAVE_MPI_Iallgatherv_c
    if (recv.large)
        return PMPI_Iallgatherv_c(sendbuf, sendcount, sendtype, recvbuf, recv.lcounts, recv.ldispls,
                                  recvtype, comm, request);
#endif
    return PMPI_Iallgatherv(sendbuf, (int)sendcount, sendtype, recvbuf, recv.counts, recv.displs,
                            recvtype, comm, request);
}

/* ---- MPI_Allgather_init, MPI_Allgatherv_init (persist.h) ------------------------- */

#ifdef WISP_HAVE_MPI_Allgather_init
/* The request's arguments, its types held; each round opens the blocks
 * anew at its start (this member's packed then, in the user's call: a
 * round sends the data the buffer holds at its start, where MPICH 4.0.2's
 * own request repeats its first round's), runs on the lane and closes
 * them in the call that completes it (the copies unpacked): the
 * nonblocking form's steps round after round. */
struct pallgather {
    const void *sendbuf;
    MPI_Count sendcount;
    MPI_Datatype sendtype;
    struct wisp_coll_blocks bs;
    int size;
    bool send_held, recv_held;
    struct allgather *g; /* the round's, from its start to its settle */
};

/* A round's blocks that no settle closed (the MPI's request ran it,
 * persist.c): let go. */
static void pallgather_drop(struct pallgather *p)
{
    if (!p->g)
        return;
    struct wisp_coll_comm view = {.size = p->size};
    allgather_close(&view, p->g, MPI_COMM_NULL, false);
    free(p->g);
    p->g = NULL;
}

static int pallgather_begin(struct wisp_coll_comm *c, void *args)
{
    struct pallgather *p = args;
    pallgather_drop(p);
    struct allgather *g = malloc(sizeof *g);
    if (g)
        g->bs = p->bs;
    /* It opened at the init: only memory can fail now, and the others run the round. */
    if (!g || !allgather_open(c, p->sendbuf, p->sendcount, p->sendtype, c->handle, g)) {
        wisp_log_error("a persistent allgather: no memory for a round's blocks");
        PMPI_Abort(c->handle, 1);
    }
    p->g = g;
    return MPI_SUCCESS;
}

static void pallgather_run(struct wisp_coll_comm *c, void *args)
{
    allgather_run(c, ((struct pallgather *)args)->g);
}

static int pallgather_settle(struct wisp_coll_comm *c, void *args)
{
    struct pallgather *p = args;
    allgather_close(c, p->g, c->handle, true);
    free(p->g);
    p->g = NULL;
    return MPI_SUCCESS;
}

static void pallgather_release(void *args)
{
    struct pallgather *p = args;
    pallgather_drop(p);
    if (p->send_held)
        wisp_p2p_type_unhold(p->sendtype);
    if (p->recv_held)
        wisp_p2p_type_unhold(p->bs.type);
    free(p);
}

static const struct wisp_coll_persist_ops pallgather = {.run = pallgather_run,
                                                        .settle = pallgather_settle,
                                                        .begin = pallgather_begin,
                                                        .release = pallgather_release};

/* The request as wisp's (the nonblocking form's decision: its blocks open
 * as bytes), or false: the MPI's request in *request stays the user's. */
static bool pallgather_init(struct wisp_coll_comm *c, const void *sendbuf, MPI_Count sendcount,
                            MPI_Datatype sendtype, const struct wisp_coll_blocks *bs, MPI_Comm comm,
                            MPI_Request *request)
{
    struct allgather g;
    g.bs = *bs;
    if (!allgather_open(c, sendbuf, sendcount, sendtype, comm, &g))
        return false;
    allgather_close(c, &g, comm, false);
    struct pallgather *p = calloc(1, sizeof *p);
    if (!p) {
        wisp_log_error("a persistent allgather: no memory");
        PMPI_Abort(comm, 1);
    }
    *p = (struct pallgather){sendbuf, sendcount, sendtype, *bs, c->size, false, false, NULL};
    MPI_Datatype held;
    if (sendbuf != MPI_IN_PLACE && wisp_p2p_type_hold(sendtype, &held)) {
        p->sendtype = held;
        p->send_held = true;
    }
    if (wisp_p2p_type_hold(bs->type, &held)) {
        p->bs.type = held;
        p->recv_held = true;
    }
    wisp_coll_persist_init(c, &pallgather, p, request);
    return true;
}

int wisp_coll_allgather_init(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                             void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                             MPI_Comm comm, MPI_Info info, MPI_Request *request, bool large)
{
    int rc;
#ifdef WISP_HAVE_MPI_Allgather_init_c
    if (large)
        rc = PMPI_Allgather_init_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                                   info, request);
    else
#endif
        rc = PMPI_Allgather_init(sendbuf, (int)sendcount, sendtype, recvbuf, (int)recvcount,
                                 recvtype, comm, info, request);
    (void)large;
    /* The MPI's request: the user's, or the lane's backup (persist.h). */
    struct wisp_coll_comm *c = rc == MPI_SUCCESS ? wisp_coll_view_nb(comm) : NULL;
    struct wisp_coll_blocks bs;
    if (c && (sendbuf != recvbuf || sendcount <= 0) &&
        wisp_coll_blocks_of(&bs, recvbuf, recvcount, (struct wisp_coll_vec){0}, recvtype))
        pallgather_init(c, sendbuf, sendcount, sendtype, &bs, comm, request);
    return rc;
}
#endif

#ifdef WISP_HAVE_MPI_Allgatherv_init
int wisp_coll_allgatherv_init(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void *recvbuf, struct wisp_coll_vec recv, MPI_Datatype recvtype,
                              MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int rc;
#ifdef WISP_HAVE_MPI_Allgatherv_init_c
    if (recv.large)
        rc = PMPI_Allgatherv_init_c(sendbuf, sendcount, sendtype, recvbuf, recv.lcounts,
                                    recv.ldispls, recvtype, comm, info, request);
    else
#endif
        rc = PMPI_Allgatherv_init(sendbuf, (int)sendcount, sendtype, recvbuf, recv.counts,
                                  recv.displs, recvtype, comm, info, request);
    struct wisp_coll_comm *c = rc == MPI_SUCCESS ? wisp_coll_view_nb(comm) : NULL;
    struct wisp_coll_blocks bs;
    if (c && (sendbuf != recvbuf || sendcount <= 0) &&
        wisp_coll_blocks_of(&bs, recvbuf, 0, recv, recvtype))
        pallgather_init(c, sendbuf, sendcount, sendtype, &bs, comm, request);
    return rc;
}
#endif
