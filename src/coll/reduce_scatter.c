/*
 * MPI_Reduce_scatter_block and MPI_Reduce_scatter through the area
 * (area.h has the phases), for the predefined operations on the predefined
 * types (op.h). Member r wants the elements [lo, hi) of the fold of every
 * member's vector (lo the counts of the members before it; the counts are
 * alike in every member, so is the decision). Every element is folded by
 * the one member that wants it, in rank order (fold.h): the same bits
 * everywhere, run after run.
 *
 * Up to 48 bytes of vector: one phase, every member's vector inline in its
 * line. From WISP_COLL_SINGLE_COPY up, where every member's send buffer is
 * in the heap: every member folds its elements straight from everyone's
 * buffer into its receive buffer (through a private copy under
 * MPI_IN_PLACE, whose receive buffer the others still read), then waits
 * until nobody reads its own: two phases. Else through the staging halves,
 * a chunk of the vector per phase: every member copies its chunk in, then
 * folds its elements of the chunk, if any, from everyone's half. In place,
 * member r writes element k at k - lo, before k: its own chunks to come are
 * still unread, those gone already copied in.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "coll/area.h"
#include "coll/coll.h"
#include "coll/fold.h"
#include "coll/mpi_more.h"
#include "coll/nb.h"
#include "coll/op.h"
#include "coll/persist.h"
#include "coll/view.h"
#include "core/log.h"

static void scatter_inline(struct wisp_coll_comm *c, struct wisp_coll_fold f, const char *in,
                           char *out, size_t total, size_t lo, size_t hi)
{
    uint64_t p = wisp_coll_next(c);
    wisp_coll_reuse_line(c, p);
    memcpy(wisp_coll_line(c, c->rank, p)->data, in, total * f.size);
    wisp_coll_publish(c, p);
    wisp_coll_wait_all(c, p);
    if (hi > lo)
        wisp_coll_fold_members(c, f, p, WISP_COLL_FROM_LINE, 0, c->size - 1, lo, hi - lo, out);
}

static void scatter_staged(struct wisp_coll_comm *c, struct wisp_coll_fold f, const char *in,
                           char *out, size_t total, size_t lo, size_t hi)
{
    size_t per = c->half / f.size;
    for (size_t first = 0; first < total; first += per) {
        size_t n = total - first < per ? total - first : per;
        uint64_t p = wisp_coll_next(c);
        wisp_coll_reuse_half(c, p);
        memcpy(wisp_coll_half(c, c->rank, p), in + first * f.size, n * f.size);
        wisp_coll_publish(c, p);
        wisp_coll_wait_all(c, p);
        size_t a = lo > first ? lo : first, b = hi < first + n ? hi : first + n;
        if (b > a)
            wisp_coll_fold_members(c, f, p, WISP_COLL_FROM_HALF, 0, c->size - 1, a - first, b - a,
                                   out + (a - lo) * f.size);
    }
}

/* Read in place; false (one phase spent alike) where some send buffer is
 * not in the heap. */
static bool scatter_in_place(struct wisp_coll_comm *c, struct wisp_coll_fold f, const char *in,
                             char *out, size_t total, size_t lo, size_t hi, bool in_place)
{
    uint64_t p1;
    if (!wisp_coll_offer(c, in, total * f.size, &p1))
        return false;
    size_t bytes = (hi - lo) * f.size;
    char *to = in_place && bytes ? malloc(bytes) : out;
    if (!to) {
        wisp_log_error("MPI_Reduce_scatter: no memory for %zu bytes", bytes);
        PMPI_Abort(c->handle, 1);
    }
    if (hi > lo)
        wisp_coll_fold_members(c, f, p1, WISP_COLL_FROM_AUX, 0, c->size - 1, lo, hi - lo, to);
    wisp_coll_publish(c, p1 + 1);
    wisp_coll_wait_all(c, p1 + 1);
    if (to != out) {
        memcpy(out, to, bytes);
        free(to);
    }
    return true;
}

static void reduce_scatter(struct wisp_coll_comm *c, struct wisp_coll_fold f, const void *in,
                           void *out, size_t total, size_t lo, size_t hi, bool in_place)
{
    size_t bytes = total * f.size;
    if (bytes <= WISP_COLL_INLINE)
        scatter_inline(c, f, in, out, total, lo, hi);
    else if (bytes < wisp_coll.single_copy_min ||
             !scatter_in_place(c, f, in, out, total, lo, hi, in_place))
        scatter_staged(c, f, in, out, total, lo, hi);
}

/* Can wisp fold this call of `total` elements (alike in every member)?
 * The same buffer twice is erroneous: the MPI reports it. */
static bool served(struct wisp_coll_comm *c, struct wisp_coll_fold f, uint64_t total,
                   const void *sendbuf, const void *recvbuf)
{
    uint64_t bytes = total * f.size;
    return c && f.kernel >= 0 && bytes <= wisp_coll.reduce_scatter_max &&
           (!bytes || bytes >= wisp_coll.reduce_scatter_min) && (sendbuf != recvbuf || !total);
}

int wisp_coll_reduce_scatter_block(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                   MPI_Datatype type, MPI_Op op, MPI_Comm comm, bool large)
{
    struct wisp_coll_comm *c = wisp_coll.on ? wisp_coll_comm_get(comm) : NULL;
    struct wisp_coll_fold f = c ? wisp_coll_fold_of(type, op) : (struct wisp_coll_fold){-1, 0};
    if (!c || recvcount < 0 ||
        !served(c, f, (uint64_t)recvcount * (uint64_t)c->size, sendbuf, recvbuf))
        return wisp_coll_mpi_reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm,
                                                  large);
    wisp_coll_count(&wisp_coll.served);
    if (recvcount == 0)
        return MPI_SUCCESS;
    size_t n = (size_t)recvcount, lo = n * (size_t)c->rank;
    bool in_place = sendbuf == MPI_IN_PLACE;
    reduce_scatter(c, f, in_place ? recvbuf : sendbuf, recvbuf, n * (size_t)c->size, lo, lo + n,
                   in_place);
    return MPI_SUCCESS;
}

/* Member i's count, of an int array or a large-count one. */
static MPI_Count count_of(const void *counts, int i, bool large)
{
    return large ? ((const MPI_Count *)counts)[i] : ((const int *)counts)[i];
}

/* The counts (none negative, else false): their sum, this member's first
 * element and its count. */
static bool counts_of(const struct wisp_coll_comm *c, const void *recvcounts, bool large,
                      uint64_t *total, uint64_t *lo, uint64_t *mine)
{
    if (!recvcounts)
        return false;
    for (int m = 0; m < c->size; m++) {
        MPI_Count n = count_of(recvcounts, m, large);
        if (n < 0)
            return false;
        if (m == c->rank) {
            *lo = *total;
            *mine = (uint64_t)n;
        }
        *total += (uint64_t)n;
    }
    return true;
}

int wisp_coll_reduce_scatter(const void *sendbuf, void *recvbuf, const void *recvcounts,
                             MPI_Datatype type, MPI_Op op, MPI_Comm comm, bool large)
{
    struct wisp_coll_comm *c = wisp_coll.on ? wisp_coll_comm_get(comm) : NULL;
    struct wisp_coll_fold f = c ? wisp_coll_fold_of(type, op) : (struct wisp_coll_fold){-1, 0};
    uint64_t total = 0, lo = 0, mine = 0;
    bool counts_ok = c && counts_of(c, recvcounts, large, &total, &lo, &mine);
    if (!counts_ok || !served(c, f, total, sendbuf, recvbuf))
        return wisp_coll_mpi_reduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm, large);
    wisp_coll_count(&wisp_coll.served);
    if (total == 0)
        return MPI_SUCCESS;
    bool in_place = sendbuf == MPI_IN_PLACE;
    reduce_scatter(c, f, in_place ? recvbuf : sendbuf, recvbuf, (size_t)total, (size_t)lo,
                   (size_t)(lo + mine), in_place);
    return MPI_SUCCESS;
}

/* ---- MPI_Ireduce_scatter_block, MPI_Ireduce_scatter (nb.h) ---------------------- */

struct iscatter {
    struct wisp_coll_fold f;
    const void *in;
    void *out;
    size_t total, lo, hi;
    bool in_place;
};

static void iscatter_run(struct wisp_coll_comm *c, void *args)
{
    struct iscatter *r = args;
    if (r->total)
        reduce_scatter(c, r->f, r->in, r->out, r->total, r->lo, r->hi, r->in_place);
}

static const struct wisp_coll_persist_ops pscatter = {.run = iscatter_run};

/* The call is wisp's in every member: start it, or make its persistent
 * request (`persistent`: MPI_*_init). */
static int iscatter_start(struct wisp_coll_comm *c, struct wisp_coll_fold f, const void *sendbuf,
                          void *recvbuf, uint64_t total, uint64_t lo, uint64_t mine,
                          bool persistent, MPI_Request *request)
{
    if (!persistent)
        wisp_coll_count(&wisp_coll.served);
    struct iscatter *r = malloc(sizeof *r);
    if (!r) {
        wisp_log_error("a nonblocking reduce-scatter: no memory");
        PMPI_Abort(c->handle, 1);
    }
    bool in_place = sendbuf == MPI_IN_PLACE;
    *r = (struct iscatter){f,          in_place ? recvbuf : sendbuf, recvbuf, (size_t)total,
                           (size_t)lo, (size_t)(lo + mine),          in_place};
    if (persistent)
        return wisp_coll_persist_init(c, &pscatter, r, request);
    return wisp_coll_nb_begin(c, iscatter_run, NULL, r, request);
}

/* The nonblocking (or, `persistent`, the persistent) form's start where
 * wisp serves it: true, with its result in *rc; false: the MPI's. Blocks of
 * recvcount each. */
static bool block_take(const void *sendbuf, void *recvbuf, MPI_Count recvcount, MPI_Datatype type,
                       MPI_Op op, MPI_Comm comm, bool persistent, MPI_Request *request, int *rc)
{
    struct wisp_coll_comm *c = wisp_coll_view_nb(comm);
    struct wisp_coll_fold f = c ? wisp_coll_fold_of(type, op) : (struct wisp_coll_fold){-1, 0};
    if (!c || recvcount < 0 ||
        !served(c, f, (uint64_t)recvcount * (uint64_t)c->size, sendbuf, recvbuf))
        return false;
    *rc = iscatter_start(c, f, sendbuf, recvbuf, (uint64_t)recvcount * (uint64_t)c->size,
                         (uint64_t)recvcount * (uint64_t)c->rank, (uint64_t)recvcount, persistent,
                         request);
    return true;
}

/* The same with a count per member (recvcounts, MPI_Count's under `large`). */
static bool counts_take(const void *sendbuf, void *recvbuf, const void *recvcounts,
                        MPI_Datatype type, MPI_Op op, MPI_Comm comm, bool large, bool persistent,
                        MPI_Request *request, int *rc)
{
    struct wisp_coll_comm *c = wisp_coll_view_nb(comm);
    struct wisp_coll_fold f = c ? wisp_coll_fold_of(type, op) : (struct wisp_coll_fold){-1, 0};
    uint64_t total = 0, lo = 0, mine = 0;
    if (!c || !counts_of(c, recvcounts, large, &total, &lo, &mine) ||
        !served(c, f, total, sendbuf, recvbuf))
        return false;
    *rc = iscatter_start(c, f, sendbuf, recvbuf, total, lo, mine, persistent, request);
    return true;
}

int wisp_coll_ireduce_scatter_block(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                    MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                                    MPI_Request *request, bool large)
{
    int rc;
    if (block_take(sendbuf, recvbuf, recvcount, type, op, comm, false, request, &rc))
        return rc;
#ifdef WISP_HAVE_MPI_Ireduce_scatter_block_c
    if (large)
        return PMPI_Ireduce_scatter_block_c(sendbuf, recvbuf, recvcount, type, op, comm, request);
#endif
    (void)large;
    return PMPI_Ireduce_scatter_block(sendbuf, recvbuf, (int)recvcount, type, op, comm, request);
}

int wisp_coll_ireduce_scatter(const void *sendbuf, void *recvbuf, const void *recvcounts,
                              MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request *request,
                              bool large)
{
    int rc;
    if (counts_take(sendbuf, recvbuf, recvcounts, type, op, comm, large, false, request, &rc))
        return rc;
#ifdef WISP_HAVE_MPI_Ireduce_scatter_c
    if (large)
        return PMPI_Ireduce_scatter_c(sendbuf, recvbuf, recvcounts, type, op, comm, request);
#endif
    (void)large;
    return PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm, request);
}

/* ---- MPI_Reduce_scatter_block_init, MPI_Reduce_scatter_init (persist.h) ----------- */

#ifdef WISP_HAVE_MPI_Reduce_scatter_block_init
int wisp_coll_reduce_scatter_block_init(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                        MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                        MPI_Request *request, bool large)
{
    int rc;
#ifdef WISP_HAVE_MPI_Reduce_scatter_block_init_c
    if (large)
        rc = PMPI_Reduce_scatter_block_init_c(sendbuf, recvbuf, recvcount, type, op, comm, info,
                                              request);
    else
#endif
        rc = PMPI_Reduce_scatter_block_init(sendbuf, recvbuf, (int)recvcount, type, op, comm, info,
                                            request);
    (void)large;
    /* The MPI's request: the user's, or the lane's backup (persist.h). */
    if (rc == MPI_SUCCESS)
        block_take(sendbuf, recvbuf, recvcount, type, op, comm, true, request, &rc);
    return rc;
}
#endif

#ifdef WISP_HAVE_MPI_Reduce_scatter_init
int wisp_coll_reduce_scatter_init(const void *sendbuf, void *recvbuf, const void *recvcounts,
                                  MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request, bool large)
{
    int rc;
#ifdef WISP_HAVE_MPI_Reduce_scatter_init_c
    if (large)
        rc =
            PMPI_Reduce_scatter_init_c(sendbuf, recvbuf, recvcounts, type, op, comm, info, request);
    else
#endif
        rc = PMPI_Reduce_scatter_init(sendbuf, recvbuf, recvcounts, type, op, comm, info, request);
    if (rc == MPI_SUCCESS)
        counts_take(sendbuf, recvbuf, recvcounts, type, op, comm, large, true, request, &rc);
    return rc;
}
#endif
