/*
 * MPI_Scan and MPI_Exscan through the area (area.h has the phases), for the
 * predefined operations on the predefined types (op.h). Member r wants
 * x0 op x1 op ... op x_last, last = r (a scan) or r - 1 (an exscan, whose
 * member 0 gets nothing): every member folds its own result from the
 * members before it, in rank order (fold.h), so the result is the rank
 * order's fold by definition, the same bits run after run.
 *
 * Up to 48 bytes: one phase, every member's contribution inline in its
 * line; a member waits only for those before it. From
 * WISP_COLL_SINGLE_COPY up, where every member's send buffer is in the
 * heap: every member folds straight from the others' buffers into its
 * receive buffer (through a private copy under MPI_IN_PLACE, whose receive
 * buffer those after it still read), then waits until nobody reads its
 * own: two phases. Else through the staging halves, a chunk per phase.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "coll/area.h"
#include "coll/coll.h"
#include "coll/fold.h"
#include "coll/mpi_more.h"
#include "coll/nb.h"
#include "coll/persist.h"
#include "coll/op.h"
#include "coll/view.h"
#include "core/log.h"

/* Wait until the members 0..last have published `p`. */
static void wait_before(struct wisp_coll_comm *c, int last, uint64_t p)
{
    for (int m = 0; m <= last; m++)
        if (m != c->rank)
            wisp_coll_wait(c, m, p);
}

static void scan_inline(struct wisp_coll_comm *c, struct wisp_coll_fold f, const char *in,
                        char *out, size_t count, int last)
{
    uint64_t p = wisp_coll_next(c);
    wisp_coll_reuse_line(c, p);
    memcpy(wisp_coll_line(c, c->rank, p)->data, in, count * f.size);
    wisp_coll_publish(c, p);
    if (last < 0)
        return;
    wait_before(c, last, p);
    wisp_coll_fold_members(c, f, p, WISP_COLL_FROM_LINE, 0, last, 0, count, out);
}

static void scan_staged(struct wisp_coll_comm *c, struct wisp_coll_fold f, const char *in,
                        char *out, size_t count, int last)
{
    size_t per = c->half / f.size;
    for (size_t first = 0; first < count; first += per) {
        size_t n = count - first < per ? count - first : per;
        uint64_t p = wisp_coll_next(c);
        wisp_coll_reuse_half(c, p);
        memcpy(wisp_coll_half(c, c->rank, p), in + first * f.size, n * f.size);
        wisp_coll_publish(c, p);
        if (last < 0)
            continue;
        wait_before(c, last, p);
        wisp_coll_fold_members(c, f, p, WISP_COLL_FROM_HALF, 0, last, 0, n, out + first * f.size);
    }
}

/* Read in place; false (one phase spent alike) where some send buffer is
 * not in the heap. */
static bool scan_in_place(struct wisp_coll_comm *c, struct wisp_coll_fold f, const char *in,
                          char *out, size_t count, int last, bool in_place)
{
    uint64_t p1;
    size_t bytes = count * f.size;
    if (!wisp_coll_offer(c, in, bytes, &p1))
        return false;
    char *to = in_place && last >= 0 ? malloc(bytes) : out;
    if (!to) {
        wisp_log_error("MPI_Scan: no memory for %zu bytes", bytes);
        PMPI_Abort(c->handle, 1);
    }
    if (last >= 0)
        wisp_coll_fold_members(c, f, p1, WISP_COLL_FROM_AUX, 0, last, 0, count, to);
    wisp_coll_publish(c, p1 + 1);
    wisp_coll_wait_all(c, p1 + 1);
    if (to != out) {
        memcpy(out, to, bytes);
        free(to);
    }
    return true;
}

/* Does wisp fold this scan (alike in every member)? */
static bool scan_takes(const struct wisp_coll_comm *c, struct wisp_coll_fold f, const void *sendbuf,
                       const void *recvbuf, MPI_Count count)
{
    uint64_t bytes = (uint64_t)count * f.size;
    return c && count >= 0 && f.kernel >= 0 && bytes <= wisp_coll.scan_max &&
           (!bytes || bytes >= wisp_coll.scan_min) && (sendbuf != recvbuf || count == 0);
}

/* `count` > 0 elements; `last`: the last member this one folds. */
static void scan_node(struct wisp_coll_comm *c, struct wisp_coll_fold f, const void *sendbuf,
                      void *recvbuf, size_t n, int last)
{
    bool in_place = sendbuf == MPI_IN_PLACE;
    const char *in = in_place ? recvbuf : sendbuf;
    uint64_t bytes = (uint64_t)n * f.size;
    if (bytes <= WISP_COLL_INLINE)
        scan_inline(c, f, in, recvbuf, n, last);
    else if (bytes < wisp_coll.single_copy_min ||
             !scan_in_place(c, f, in, recvbuf, n, last, in_place))
        scan_staged(c, f, in, recvbuf, n, last);
}

static int scan(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type, MPI_Op op,
                MPI_Comm comm, bool exclusive, bool large)
{
    struct wisp_coll_comm *c = wisp_coll.on ? wisp_coll_comm_get(comm) : NULL;
    struct wisp_coll_fold f = c ? wisp_coll_fold_of(type, op) : (struct wisp_coll_fold){-1, 0};
    if (!scan_takes(c, f, sendbuf, recvbuf, count))
        return wisp_coll_mpi_scan(sendbuf, recvbuf, count, type, op, comm, exclusive, large);
    wisp_coll_count(&wisp_coll.served);
    if (count > 0)
        scan_node(c, f, sendbuf, recvbuf, (size_t)count, exclusive ? c->rank - 1 : c->rank);
    return MPI_SUCCESS;
}

int wisp_coll_scan(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type,
                   MPI_Op op, MPI_Comm comm, bool large)
{
    return scan(sendbuf, recvbuf, count, type, op, comm, false, large);
}

int wisp_coll_exscan(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type,
                     MPI_Op op, MPI_Comm comm, bool large)
{
    return scan(sendbuf, recvbuf, count, type, op, comm, true, large);
}

/* ---- MPI_Iscan, MPI_Iexscan (nb.h) -------------------------------------------- */

struct iscan {
    struct wisp_coll_fold f;
    const void *sendbuf;
    void *recvbuf;
    size_t count;
    int last;
};

static void iscan_run(struct wisp_coll_comm *c, void *args)
{
    struct iscan *r = args;
    if (r->count)
        scan_node(c, r->f, r->sendbuf, r->recvbuf, r->count, r->last);
}

static const struct wisp_coll_persist_ops pscan = {.run = iscan_run};

/* The nonblocking and persistent forms: wisp's where it serves the call
 * (*request set, true), else false. */
static bool iscan_take(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type,
                       MPI_Op op, MPI_Comm comm, bool exclusive, bool persistent,
                       MPI_Request *request)
{
    struct wisp_coll_comm *c = wisp_coll_view_nb(comm);
    struct wisp_coll_fold f = c ? wisp_coll_fold_of(type, op) : (struct wisp_coll_fold){-1, 0};
    if (!scan_takes(c, f, sendbuf, recvbuf, count))
        return false;
    if (!persistent)
        wisp_coll_count(&wisp_coll.served);
    struct iscan *r = malloc(sizeof *r);
    if (!r) {
        wisp_log_error("a nonblocking scan: no memory");
        PMPI_Abort(comm, 1);
    }
    *r = (struct iscan){f, sendbuf, recvbuf, (size_t)count, exclusive ? c->rank - 1 : c->rank};
    if (persistent)
        wisp_coll_persist_init(c, &pscan, r, request);
    else
        wisp_coll_nb_begin(c, iscan_run, NULL, r, request);
    return true;
}

static int iscan(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type, MPI_Op op,
                 MPI_Comm comm, MPI_Request *request, bool exclusive, bool large)
{
    if (iscan_take(sendbuf, recvbuf, count, type, op, comm, exclusive, false, request))
        return MPI_SUCCESS;
    (void)large;
    if (exclusive) {
#ifdef WISP_HAVE_MPI_Iexscan_c
        if (large)
            return PMPI_Iexscan_c(sendbuf, recvbuf, count, type, op, comm, request);
#endif
        return PMPI_Iexscan(sendbuf, recvbuf, (int)count, type, op, comm, request);
    }
#ifdef WISP_HAVE_MPI_Iscan_c
    if (large)
        return PMPI_Iscan_c(sendbuf, recvbuf, count, type, op, comm, request);
#endif
    return PMPI_Iscan(sendbuf, recvbuf, (int)count, type, op, comm, request);
}

int wisp_coll_iscan(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type,
                    MPI_Op op, MPI_Comm comm, MPI_Request *request, bool large)
{
    return iscan(sendbuf, recvbuf, count, type, op, comm, request, false, large);
}

int wisp_coll_iexscan(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type,
                      MPI_Op op, MPI_Comm comm, MPI_Request *request, bool large)
{
    return iscan(sendbuf, recvbuf, count, type, op, comm, request, true, large);
}

/* ---- MPI_Scan_init, MPI_Exscan_init (persist.h) ----------------------------------- */

#ifdef WISP_HAVE_MPI_Scan_init
int wisp_coll_scan_init(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type,
                        MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request, bool large)
{
    int rc;
#ifdef WISP_HAVE_MPI_Scan_init_c
    if (large)
        rc = PMPI_Scan_init_c(sendbuf, recvbuf, count, type, op, comm, info, request);
    else
#endif
        rc = PMPI_Scan_init(sendbuf, recvbuf, (int)count, type, op, comm, info, request);
    (void)large;
    /* The MPI's request: the user's, or the lane's backup (persist.h). */
    if (rc == MPI_SUCCESS)
        iscan_take(sendbuf, recvbuf, count, type, op, comm, false, true, request);
    return rc;
}
#endif

#ifdef WISP_HAVE_MPI_Exscan_init
int wisp_coll_exscan_init(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type,
                          MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request, bool large)
{
    int rc;
#ifdef WISP_HAVE_MPI_Exscan_init_c
    if (large)
        rc = PMPI_Exscan_init_c(sendbuf, recvbuf, count, type, op, comm, info, request);
    else
#endif
        rc = PMPI_Exscan_init(sendbuf, recvbuf, (int)count, type, op, comm, info, request);
    (void)large;
    if (rc == MPI_SUCCESS)
        iscan_take(sendbuf, recvbuf, count, type, op, comm, true, true, request);
    return rc;
}
#endif
