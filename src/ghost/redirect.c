/*
 * Redirection of one-sided operations on a served window (served.h): the
 * target becomes a ghost of its node (binding.c: the bound ghost, the owner
 * of its bytes, or in a binding-free interval any ghost for a put or a get),
 * the displacement a byte offset into the ghost's view of the node's memory,
 * and the window the internal one that carries the origin's current epoch.
 * An operation whose elements belong to several ghosts is split (split.c).
 * Errors the MPI would report for the application's window (bad rank,
 * negative displacement, no epoch) are reported the same way. Every
 * operation and flush of the wrappers goes through here, so that each
 * MPI_X.c is one call.
 */
#include "ghost/redirect.h"

#include <stdlib.h>

#include "ghost/async.h"
#include "ghost/binding.h"
#include "ghost/board.h"
#include "ghost/getacc_split.h"
#include "ghost/split.h"

int wisp_ghost_epoch_window(struct wisp_ghost_win *w, int rank, MPI_Win *iwin)
{
    const struct wisp_ghost_target *t = &w->t[rank];
    switch (w->access) {
    case WISP_GHOST_FENCE:
    case WISP_GHOST_PSCW:
        *iwin = w->global;
        return MPI_SUCCESS;
    case WISP_GHOST_LOCK:
        if (!w->locked[rank])
            return MPI_ERR_RMA_SYNC;
        *iwin = w->lockwin[t->local];
        return MPI_SUCCESS;
    case WISP_GHOST_LOCK_ALL:
        *iwin = w->lock_all_global ? w->global : w->lockwin[t->local];
        return MPI_SUCCESS;
    default:
        return MPI_ERR_RMA_SYNC;
    }
}

/* A Get_accumulate that Open MPI must get element by element (getacc_split.c);
 * a request form gets a request that is already complete. */
static int getacc_by_element(const struct wisp_ghost_op *o, int grank, MPI_Aint gdisp, MPI_Win iwin)
{
    int rc = wisp_ghost_getacc_split(o->origin, (int)o->ocount, o->otype, o->result, (int)o->rcount,
                                     o->rtype, grank, gdisp, (int)o->tcount, o->ttype, o->op, iwin);
    if (rc == MPI_SUCCESS && o->request)
        rc = PMPI_Win_flush_local(grank, iwin);
    if (rc == MPI_SUCCESS && o->request)
        rc = PMPI_Rget(o->result, 0, MPI_BYTE, MPI_PROC_NULL, 0, 0, MPI_BYTE, iwin, o->request);
    return rc;
}

/* MPICH 4.0's ch4/ucx MPI_Rput and MPI_Rget of a noncontiguous datatype
 * return a request that is already complete while the operation is not
 * (pmodels/mpich#7896, fixed in 5.0): on the internal windows such an
 * operation goes without a request and is completed locally at once. */
static bool broken_request(const struct wisp_ghost_op *o)
{
#ifdef OPEN_MPI
    (void)o;
    return false;
#else
    if (!o->request || (o->kind != WISP_GHOST_PUT && o->kind != WISP_GHOST_GET))
        return false;
    MPI_Datatype types[2] = {o->otype, o->ttype};
    MPI_Count counts[2] = {o->ocount, o->tcount};
    for (int i = 0; i < 2; i++) {
        int size;
        MPI_Aint lb, extent, true_lb, true_extent;
        PMPI_Type_size(types[i], &size);
        PMPI_Type_get_extent(types[i], &lb, &extent);
        PMPI_Type_get_true_extent(types[i], &true_lb, &true_extent);
        if (true_extent != size || (counts[i] > 1 && extent != size))
            return true;
    }
    return false;
#endif
}

static int complete_at_once(const struct wisp_ghost_op *o, int grank, MPI_Aint gdisp, MPI_Win iwin)
{
    struct wisp_ghost_op now = *o;
    now.request = NULL;
    int rc = wisp_ghost_issue(&now, grank, gdisp, iwin);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Win_flush_local(grank, iwin);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Rget(NULL, 0, MPI_BYTE, MPI_PROC_NULL, 0, 0, MPI_BYTE, iwin, o->request);
    return rc;
}

/* The target bytes [*lo, *hi) that (tcount, ttype) at `at` touches. */
static void target_span(const struct wisp_ghost_op *o, MPI_Aint at, MPI_Aint *lo, MPI_Aint *hi)
{
    MPI_Aint lb, extent, true_lb, true_extent;
    PMPI_Type_get_extent(o->ttype, &lb, &extent);
    PMPI_Type_get_true_extent(o->ttype, &true_lb, &true_extent);
    MPI_Aint n = (MPI_Aint)o->tcount;
    *lo = at + true_lb + (extent < 0 ? (n - 1) * extent : 0);
    *hi = *lo + true_extent + (n - 1) * (extent < 0 ? -extent : extent);
}

static void count(struct wisp_ghost_win *w, uint64_t *counter, uint64_t n)
{
    wisp_ghost_books_lock(w);
    *counter += n;
    wisp_ghost_books_unlock(w);
}

/* The operation in `iwin` to process `rank` at byte `disp` of what it
 * exposes there: its ghost's view of the node, or its own memory. */
static int issue_internal(const struct wisp_ghost_op *o, int rank, MPI_Aint disp, MPI_Win iwin)
{
    if (o->kind == WISP_GHOST_GET_ACC && !o->large &&
        wisp_ghost_getacc_split_needed(o->otype, o->rtype, o->ttype, o->op))
        return getacc_by_element(o, rank, disp, iwin);
    if (broken_request(o))
        return complete_at_once(o, rank, disp, iwin);
    return wisp_ghost_issue(o, rank, disp, iwin);
}

static int redirect(struct wisp_ghost_win *w, const struct wisp_ghost_op *o)
{
    if (o->target == MPI_PROC_NULL) /* `global` is always in an epoch: a no-op */
        return wisp_ghost_issue(o, MPI_PROC_NULL, 0, w->global);
    if (o->target < 0 || o->target >= w->size)
        return MPI_ERR_RANK;
    if (o->disp < 0)
        return MPI_ERR_DISP;
    MPI_Win iwin;
    int rc = wisp_ghost_epoch_window(w, o->target, &iwin);
    if (rc != MPI_SUCCESS)
        return rc;
    const struct wisp_ghost_target *t = &w->t[o->target];
    MPI_Aint at = o->disp * t->disp_unit;
    int live = wisp_ghost_async_live(w, o, iwin);
    if (live >= 0)
        count(w, &w->nlive, 1);
    if (live == 0 || (live < 0 && !w->route[o->target])) {
        /* Asynchronous progress off: the target serves it (async.h). */
        wisp_ghost_books_lock(w);
        w->ndirect++;
        w->ts[o->target].direct |= live == 0;
        wisp_ghost_books_unlock(w);
        /* In the heap the target exposes all of it (pool.h). */
        return issue_internal(o, o->target, w->heap ? t->off + at : at, iwin);
    }
    count(w, &w->nghost, 1);
    wisp_ghost_async_issuing(w, o->target);
    bool acc = o->kind >= WISP_GHOST_ACC;
    int size;
    PMPI_Type_size(o->ttype, &size);
    MPI_Aint bytes = (MPI_Aint)size * (MPI_Aint)o->tcount;

    MPI_Aint lo, hi;
    target_span(o, at, &lo, &hi);
    int owner = wisp_ghost_owner(w, t, lo);
    int g = acc ? -1 : wisp_ghost_free_choice(w, o->target, iwin);
    if (g < 0) {
        g = owner;
        /* Fetch_and_op and Compare_and_swap are one element: its first byte's owner. */
        if (bytes > 0 && o->kind < WISP_GHOST_FOP && wisp_ghost_owner(w, t, hi - 1) != g) {
            count(w, &w->nsplit, 1);
            return wisp_ghost_split(w, o, iwin);
        }
    }
    count(w, &w->nmoved, g != owner);
    rc = wisp_ghost_use(w, o->target, iwin, g, acc, bytes);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = issue_internal(o, t->ghost0 + g, t->off + at, iwin);
    if (t->here) /* a ghost of this node that sleeps wakes now, not at its next poll */
        wisp_doorbell_ring(&wisp_ghost_node.board->bells[g]);
    return rc;
}

int wisp_ghost_rma(MPI_Win win, const struct wisp_ghost_op *o)
{
    struct wisp_ghost_win *w = wisp_ghost_win_find(win);
    if (!w)
        return wisp_ghost_issue(o, o->target, o->disp, win);
    wisp_ghost_op_begin(w);
    int rc = redirect(w, o);
    wisp_ghost_op_end(w);
    return wisp_ghost_win_error(w, rc);
}

int wisp_ghost_flush_target(struct wisp_ghost_win *w, int rank, MPI_Win iwin, bool local)
{
    int (*flush)(int, MPI_Win) = local ? PMPI_Win_flush_local : PMPI_Win_flush;
    const struct wisp_ghost_target *t = &w->t[rank];
    /* The target itself when its route is direct or a put or get went to
     * it by its live profile; its bound ghost when its route is the ghost,
     * and every ghost that got operations since the last flush (async.h). */
    struct wisp_ghost_mark mark;
    uint64_t used = wisp_ghost_flush_begin(w, rank, &mark);
    if (w->route[rank])
        used |= (uint64_t)1 << (t->ghost - t->ghost0);
    int rc = !w->route[rank] || mark.direct ? flush(rank, iwin) : MPI_SUCCESS;
    if (used && !local)
        wisp_ghost_async_flushing(w, rank);
    for (int g = 0; used; g++, used >>= 1)
        if (used & 1) {
            int rc2 = flush(t->ghost0 + g, iwin);
            rc = rc == MPI_SUCCESS ? rc2 : rc;
        }
    if (rc == MPI_SUCCESS && !local)
        wisp_ghost_flushed_since(w, rank, mark);
    return rc;
}

int wisp_ghost_flush(MPI_Win win, int rank, bool local)
{
    struct wisp_ghost_win *w = wisp_ghost_win_find(win);
    int (*flush)(int, MPI_Win) = local ? PMPI_Win_flush_local : PMPI_Win_flush;
    if (!w)
        return flush(rank, win);
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (rank < 0 || rank >= w->size)
        return wisp_ghost_win_error(w, MPI_ERR_RANK);
    MPI_Win iwin;
    int rc = w->access == WISP_GHOST_LOCK || w->access == WISP_GHOST_LOCK_ALL
                 ? wisp_ghost_epoch_window(w, rank, &iwin)
                 : MPI_ERR_RMA_SYNC;
    if (rc == MPI_SUCCESS)
        rc = wisp_ghost_flush_target(w, rank, iwin, local);
    return wisp_ghost_win_error(w, rc);
}

/* MPI_Win_flush_all or _local_all in `global`: the node's ghosts are woken
 * only if this origin sent them an operation since the last such flush (a
 * remote one, for a remote flush). A program that polls with
 * MPI_Win_flush_local_all (NWChem: 3 million calls in 2 s) would
 * otherwise wake the ghosts at every call. */
static int flush_global(struct wisp_ghost_win *w, bool local)
{
    wisp_ghost_books_lock(w);
    uint64_t sent = w->nghost;
    bool wake = sent != w->nghost_flushed[local];
    wisp_ghost_books_unlock(w);
    /* Nothing went to a ghost since: the MPI's own flush_all, cheaper than
     * one per target (NWChem polls it millions of times). */
    int rc = wake ? wisp_ghost_async_flush_all(w, w->global, local)
                  : (local ? PMPI_Win_flush_local_all : PMPI_Win_flush_all)(w->global);
    if (rc == MPI_SUCCESS) {
        wisp_ghost_books_lock(w);
        for (int l = local; l < 2; l++) /* a remote flush completes locally too */
            w->nghost_flushed[l] = sent;
        wisp_ghost_books_unlock(w);
    }
    return rc;
}

int wisp_ghost_flush_all(struct wisp_ghost_win *w, bool local)
{
    int rc = MPI_SUCCESS;
    struct wisp_ghost_mark mark;
    wisp_ghost_flush_begin(w, -1, &mark);
    if (w->access == WISP_GHOST_LOCK_ALL && w->lock_all_global) {
        rc = flush_global(w, local);
    } else if (w->access == WISP_GHOST_LOCK || w->access == WISP_GHOST_LOCK_ALL) {
        for (int i = 0; i < w->nlock; i++)
            if (w->held[i]) {
                /* not rank by rank: only the ranks locked in it may be flushed */
                int rc2 = (local ? PMPI_Win_flush_local_all : PMPI_Win_flush_all)(w->lockwin[i]);
                rc = rc == MPI_SUCCESS ? rc2 : rc;
            }
    } else {
        rc = MPI_ERR_RMA_SYNC;
    }
    if (rc == MPI_SUCCESS && !local)
        wisp_ghost_flushed_since(w, -1, mark);
    return wisp_ghost_win_error(w, rc);
}

/* A lock on oneself must be held before the call returns, since the
 * application may then load and store its memory directly, but the MPI may
 * grant a lock on another process (the ghost) later: so a one-byte get from
 * the ghost's hidden bytes, flushed, waits for it, and a second lock on the
 * process itself gives the MPI's memory barriers (Casper 4.5.2). The info
 * hint no_local_load_store skips both; MPI_MODE_NOCHECK skips the get. */
int wisp_ghost_self_lock(struct wisp_ghost_win *w, int lock_type, int assert, MPI_Win iwin)
{
    if (w->no_local_load_store)
        return MPI_SUCCESS;
    int rc = MPI_SUCCESS, ghost = w->t[w->rank].ghost;
    if (!(assert &MPI_MODE_NOCHECK)) {
        char hidden;
        rc = PMPI_Get(&hidden, 1, MPI_BYTE, ghost, w->t[w->rank].hidden, 1, MPI_BYTE, iwin);
        if (rc == MPI_SUCCESS)
            rc = PMPI_Win_flush(ghost, iwin);
        w->ts[w->rank].granted = rc == MPI_SUCCESS;
    }
    if (rc == MPI_SUCCESS)
        rc = PMPI_Win_lock(lock_type, w->rank, assert, iwin);
    w->self_locked = rc == MPI_SUCCESS;
    return rc;
}

bool wisp_ghost_group_ranks(struct wisp_ghost_win *w, MPI_Group group, int *n, int *ranks)
{
    if (PMPI_Group_size(group, n) != MPI_SUCCESS || *n > w->size)
        return false;
    int *in = malloc(sizeof *in * (size_t)(*n + 1));
    if (!in)
        return false;
    for (int i = 0; i < *n; i++)
        in[i] = i;
    MPI_Group mine;
    PMPI_Comm_group(w->comm, &mine);
    bool ok = PMPI_Group_translate_ranks(group, *n, in, mine, ranks) == MPI_SUCCESS;
    PMPI_Group_free(&mine);
    free(in);
    for (int i = 0; ok && i < *n; i++)
        ok = ranks[i] != MPI_UNDEFINED;
    return ok;
}
