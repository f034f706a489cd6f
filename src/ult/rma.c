/*
 * One-sided communication from ULTs. MPI_Win_flush, MPI_Win_unlock and
 * their forms have no nonblocking counterpart, and inside the MPI they wait
 * for the target (for its help, without asynchronous progress): a ULT in
 * one would hold its whole kernel thread. So this file counts the
 * passive-target epochs of each window (MPI_Win_lock(_all) to
 * MPI_Win_unlock(_all)), and inside one MPI_Put, MPI_Get, MPI_Accumulate and
 * MPI_Get_accumulate from a ULT become MPI_Rput, MPI_Rget, MPI_Raccumulate
 * and MPI_Rget_accumulate,
 * whose requests this file keeps per window and target. A flush or an
 * unlock first waits for the requests of its targets, testing and yielding
 * (wait.c), then calls the MPI's own, which has only the remote completion
 * of operations that already left to wait for (docs/ult.md). Request-based
 * operations are only allowed in passive-target epochs, hence the count:
 * in a fence or PSCW epoch the operations stay as they were.
 *
 * The MPI's flush still costs a round trip to the target where the MPI
 * moves one-sided operations as messages (Open MPI's osc pt2pt over TCP),
 * and blocks the kernel thread meanwhile. So an MPI_Accumulate of a ULT
 * becomes an MPI_Rget_accumulate into scratch memory, whose request
 * completes only once the target applied it, as an MPI_Rget's completes
 * once its data arrived; and a flush whose requests are done skips the
 * MPI's when no other operation went out since the epoch began or the
 * window's last full flush: no put, no operation from outside a ULT, none
 * that another ULT is still waiting for (wisp_core_rma_unsure counts the
 * others, process-wide; a flush that cannot tell calls the MPI's). That
 * rests on the implementations applying a get-accumulate at the target
 * before its result leaves it, as both Debian MPIs do.
 */
#include "ult/ult.h"

#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

#include "wrap/wrap.h"

struct pending {
    MPI_Request request;
    int target;
    unsigned long seq; /* issue order on its window */
    void *scratch;     /* an accumulate's result, freed once it completes */
    bool taken;        /* a settle tests it */
};

struct window {
    MPI_Win win;
    int epochs; /* passive-target epochs open (lock_all counts one) */
    struct pending *ops;
    int count, cap;
    unsigned long issued; /* operations tracked so far */
    unsigned long unsure; /* wisp_core_rma_unsure when nothing was left to the MPI's flush */
};

static struct {
    pthread_mutex_t lock; /* ULTs of several kernel threads share the table */
    struct window *wins;
    int count, cap;
} rma = {.lock = PTHREAD_MUTEX_INITIALIZER};

_Atomic int wisp_ult_rma_windows;

/* Locked. NULL when `win` has no entry and `add` is false (or no memory). */
static struct window *find(MPI_Win win, bool add)
{
    for (int i = 0; i < rma.count; i++)
        if (rma.wins[i].win == win)
            return &rma.wins[i];
    if (!add)
        return NULL;
    if (rma.count == rma.cap) {
        int cap = rma.cap ? 2 * rma.cap : 8;
        struct window *wins = realloc(rma.wins, (size_t)cap * sizeof *wins);
        if (!wins)
            return NULL;
        rma.wins = wins;
        rma.cap = cap;
    }
    rma.wins[rma.count] = (struct window){.win = win};
    atomic_store(&wisp_ult_rma_windows, rma.count + 1);
    return &rma.wins[rma.count++];
}

/* Locked: forget a window with no epoch and nothing pending (its handle
 * may name another window once it is freed). */
static void forget_if_idle(struct window *w)
{
    if (w->epochs > 0 || w->count > 0)
        return;
    free(w->ops);
    *w = rma.wins[--rma.count];
    atomic_store(&wisp_ult_rma_windows, rma.count);
}

bool wisp_ult_rma_open(MPI_Win win)
{
    pthread_mutex_lock(&rma.lock);
    struct window *w = find(win, false);
    bool open = w && w->epochs > 0;
    pthread_mutex_unlock(&rma.lock);
    return open;
}

int wisp_ult_rma_track(MPI_Win win, int target, MPI_Request request, void *scratch)
{
    pthread_mutex_lock(&rma.lock);
    struct window *w = find(win, false);
    if (w && w->count == w->cap) {
        int cap = w->cap ? 2 * w->cap : 16;
        struct pending *ops = realloc(w->ops, (size_t)cap * sizeof *ops);
        if (ops) {
            w->ops = ops;
            w->cap = cap;
        }
    }
    bool kept = w && w->count < w->cap;
    if (kept)
        w->ops[w->count++] = (struct pending){request, target, w->issued++, scratch, false};
    pthread_mutex_unlock(&rma.lock);
    if (kept)
        return MPI_SUCCESS;
    /* No room to remember it: complete it now, as the blocking call would. */
    int rc = wisp_ult_wait(&request, MPI_STATUS_IGNORE);
    free(scratch);
    return rc;
}

int wisp_ult_accumulate(const void *origin, MPI_Count ocount, MPI_Datatype otype, int target,
                        MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win)
{
    /* The target's old values come back in the origin's layout: accumulate
     * requires the same type signature on both sides. */
    MPI_Count lb, extent, true_lb, true_extent;
    PMPI_Type_get_extent_x(otype, &lb, &extent);
    PMPI_Type_get_true_extent_x(otype, &true_lb, &true_extent);
    size_t bytes = ocount > 0 ? (size_t)(true_extent + (ocount - 1) * extent) : 0;
    char *scratch = malloc(bytes ? bytes : 1);
    bool small = ocount <= INT_MAX && tcount <= INT_MAX;
    MPI_Request request;
    int rc;
    if (!scratch || !small) { /* as before: the MPI's flush completes it */
#ifdef WISP_HAVE_MPI_Raccumulate_c
        if (!small)
            rc = wisp_impl.MPI_Raccumulate_c(origin, ocount, otype, target, disp, tcount, ttype, op,
                                             win, &request);
        else
#endif
            rc = wisp_impl.MPI_Raccumulate(origin, (int)ocount, otype, target, disp, (int)tcount,
                                           ttype, op, win, &request);
        free(scratch);
        scratch = NULL;
    } else {
        wisp_core_rma_completes = true;
        rc = wisp_impl.MPI_Rget_accumulate(origin, (int)ocount, otype, scratch - true_lb,
                                           (int)ocount, otype, target, disp, (int)tcount, ttype, op,
                                           win, &request);
        wisp_core_rma_completes = false;
    }
    if (rc != MPI_SUCCESS) {
        free(scratch);
        return rc;
    }
    return wisp_ult_rma_track(win, target, request, scratch);
}

/* Wait for the requests of `target` (-1: all) on `win` issued before the
 * call. Not those that other ULTs issue meanwhile: with several ULTs
 * issuing all the time, a flush would wait for generation after generation
 * of them. Each request is tested by one ULT at a time, which marks it
 * taken and removes it once complete; a request another ULT has taken is
 * waited for by yielding until it is gone, so that on return every one
 * issued before is complete. */
static int settle(MPI_Win win, int target)
{
    int rc = MPI_SUCCESS;
    pthread_mutex_lock(&rma.lock);
    struct window *entry = find(win, false);
    unsigned long before = entry ? entry->issued : 0;
    pthread_mutex_unlock(&rma.lock);
    for (;;) {
        struct pending mine = {.request = MPI_REQUEST_NULL};
        bool others = false;
        pthread_mutex_lock(&rma.lock);
        struct window *w = find(win, false);
        for (int i = 0; w && i < w->count; i++) {
            struct pending *op = &w->ops[i];
            if ((target >= 0 && op->target != target) || op->seq >= before)
                continue;
            if (!op->taken) {
                op->taken = true;
                mine = *op;
                break;
            }
            others = true;
        }
        pthread_mutex_unlock(&rma.lock);
        if (mine.request == MPI_REQUEST_NULL && !others)
            return rc;
        if (mine.request == MPI_REQUEST_NULL) {
            if (!wisp_ult_yield_once())
                sched_yield(); /* its owner runs on another kernel thread */
            continue;
        }
        int r = wisp_ult_wait(&mine.request, MPI_STATUS_IGNORE);
        free(mine.scratch);
        pthread_mutex_lock(&rma.lock);
        w = find(win, false);
        for (int i = 0; w && i < w->count; i++)
            if (w->ops[i].seq == mine.seq) {
                w->ops[i] = w->ops[--w->count];
                break;
            }
        pthread_mutex_unlock(&rma.lock);
        if (rc == MPI_SUCCESS)
            rc = r;
    }
}

/* After settle: whether the MPI's flush has anything left to complete. */
static bool flush_needed(MPI_Win win)
{
    pthread_mutex_lock(&rma.lock);
    struct window *w = find(win, false);
    bool needed =
        !w || w->unsure != atomic_load_explicit(&wisp_core_rma_unsure, memory_order_relaxed);
    pthread_mutex_unlock(&rma.lock);
    return needed;
}

/* Before the MPI's flush of every target of `win`: what it covers. */
static unsigned long unsure_now(void)
{
    return atomic_load_explicit(&wisp_core_rma_unsure, memory_order_relaxed);
}

static void flushed_all(MPI_Win win, unsigned long covered)
{
    pthread_mutex_lock(&rma.lock);
    struct window *w = find(win, false);
    if (w)
        w->unsure = covered;
    pthread_mutex_unlock(&rma.lock);
}

static void epoch_opened(MPI_Win win)
{
    pthread_mutex_lock(&rma.lock);
    struct window *w = find(win, true);
    if (w && w->epochs++ == 0)
        w->unsure = unsure_now(); /* nothing of the window can be pending before */
    pthread_mutex_unlock(&rma.lock);
}

static void epoch_closed(MPI_Win win)
{
    pthread_mutex_lock(&rma.lock);
    struct window *w = find(win, false);
    if (w) {
        if (w->epochs > 0)
            w->epochs--;
        forget_if_idle(w);
    }
    pthread_mutex_unlock(&rma.lock);
}

int wisp_ult_win_lock(int type, int rank, int assert, MPI_Win win,
                      int (*next)(int, int, int, MPI_Win))
{
    int rc = next(type, rank, assert, win);
    if (rc == MPI_SUCCESS)
        epoch_opened(win);
    return rc;
}

int wisp_ult_win_lock_all(int assert, MPI_Win win, int (*next)(int, MPI_Win))
{
    int rc = next(assert, win);
    if (rc == MPI_SUCCESS)
        epoch_opened(win);
    return rc;
}

int wisp_ult_win_settle(int rank, MPI_Win win, bool closes, int (*next)(int, MPI_Win))
{
    int rc = settle(win, rank);
    int rc_next = closes || flush_needed(win) ? next(rank, win) : MPI_SUCCESS;
    if (closes && rc_next == MPI_SUCCESS)
        epoch_closed(win);
    return rc != MPI_SUCCESS ? rc : rc_next;
}

int wisp_ult_win_settle_all(MPI_Win win, bool closes, int (*next)(MPI_Win))
{
    int rc = settle(win, -1);
    unsigned long covered = unsure_now();
    int rc_next = closes || flush_needed(win) ? next(win) : MPI_SUCCESS;
    if (rc_next == MPI_SUCCESS && !closes)
        flushed_all(win, covered);
    if (closes && rc_next == MPI_SUCCESS)
        epoch_closed(win);
    return rc != MPI_SUCCESS ? rc : rc_next;
}
