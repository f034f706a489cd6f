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
 */
#include "ult/ult.h"

#include <pthread.h>
#include <stdlib.h>

struct pending {
    MPI_Request request;
    int target;
    unsigned long seq; /* issue order on its window */
};

struct window {
    MPI_Win win;
    int epochs; /* passive-target epochs open (lock_all counts one) */
    struct pending *ops;
    int count, cap;
    unsigned long issued; /* operations tracked so far */
};

static struct {
    pthread_mutex_t lock; /* ULTs of several kernel threads share the table */
    struct window *wins;
    int count, cap;
} rma = {.lock = PTHREAD_MUTEX_INITIALIZER};

_Atomic int wisp_ult_rma_windows;
_Atomic int wisp_ult_rma_requests;

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

int wisp_ult_rma_track(MPI_Win win, int target, MPI_Request request)
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
    if (kept) {
        w->ops[w->count++] = (struct pending){request, target, w->issued++};
        atomic_fetch_add(&wisp_ult_rma_requests, 1);
    }
    pthread_mutex_unlock(&rma.lock);
    /* No room to remember it: complete it now, as the blocking call would. */
    return kept ? MPI_SUCCESS : wisp_ult_wait(&request, MPI_STATUS_IGNORE);
}

/* Wait for the requests of `target` (-1: all) on `win` issued before the
 * call, one at a time, each taken out of the table first. Not those that
 * other ULTs issue meanwhile: with several ULTs issuing all the time, a
 * flush would wait for generation after generation of them. (Those that
 * another ULT settles concurrently are left to it; the MPI's own flush,
 * called next, completes every operation the process issued.) */
static int settle(MPI_Win win, int target)
{
    int rc = MPI_SUCCESS;
    pthread_mutex_lock(&rma.lock);
    struct window *entry = find(win, false);
    unsigned long before = entry ? entry->issued : 0;
    pthread_mutex_unlock(&rma.lock);
    for (;;) {
        MPI_Request request = MPI_REQUEST_NULL;
        pthread_mutex_lock(&rma.lock);
        struct window *w = find(win, false);
        for (int i = 0; w && i < w->count; i++)
            if ((target < 0 || w->ops[i].target == target) && w->ops[i].seq < before) {
                request = w->ops[i].request;
                w->ops[i] = w->ops[--w->count];
                atomic_fetch_sub(&wisp_ult_rma_requests, 1);
                break;
            }
        pthread_mutex_unlock(&rma.lock);
        if (request == MPI_REQUEST_NULL)
            return rc;
        int r = wisp_ult_wait(&request, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS)
            rc = r;
    }
}

static void epoch_opened(MPI_Win win)
{
    pthread_mutex_lock(&rma.lock);
    struct window *w = find(win, true);
    if (w)
        w->epochs++;
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
    int rc_next = next(rank, win);
    if (closes && rc_next == MPI_SUCCESS)
        epoch_closed(win);
    return rc != MPI_SUCCESS ? rc : rc_next;
}

int wisp_ult_win_settle_all(MPI_Win win, bool closes, int (*next)(MPI_Win))
{
    int rc = settle(win, -1);
    int rc_next = next(win);
    if (closes && rc_next == MPI_SUCCESS)
        epoch_closed(win);
    return rc != MPI_SUCCESS ? rc : rc_next;
}
