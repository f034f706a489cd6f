/*
 * Access epochs of a served window: locks on one target (MPI_Win_lock,
 * MPI_Win_unlock), on all (MPI_Win_lock_all, MPI_Win_unlock_all), fences,
 * and MPI_Win_sync; PSCW is in pscw.c. The functions that take an MPI_Win
 * fall back to the MPI's own for a window wisp does not serve.
 *
 * The lock goes to the ghost bound to the target (or, while the target's
 * operations go to it directly, to the target itself: async.h), in the lock
 * window of the target's local index, so that locks on different processes of one node do
 * not exclude each other while locks on one process do (Casper 4.5.1). A
 * lock on oneself must be held when the call returns: see
 * wisp_ghost_self_lock (redirect.c). A window created with a hint that no
 * lock will come has no lock windows, and there a lock would not exclude
 * anything: it fails with MPI_ERR_RMA_SYNC, as an epoch the window cannot
 * have.
 */
#include "ghost/epoch.h"

#include <stdatomic.h>

#include "ghost/async.h"
#include "ghost/binding.h"
#include "ghost/issue.h"
#include "ghost/redirect.h"

/* Who holds the locks on target `rank` in its lock window: its bound ghost,
 * or the target itself while its operations go to it directly (async.h). */
static int lock_rank(const struct wisp_ghost_win *w, int rank)
{
    return w->route[rank] ? w->t[rank].ghost : rank;
}

/* After a fence without MPI_MODE_NOSUCCEED no epoch is open unless another fence follows. */
static bool may_lock(const struct wisp_ghost_win *w, int rank)
{
    bool other_epoch = w->access != WISP_GHOST_NO_ACCESS && w->access != WISP_GHOST_FENCE &&
                       w->access != WISP_GHOST_LOCK;
    return w->nlock > 0 && !other_epoch && !w->locked[rank];
}

int wisp_ghost_lock(struct wisp_ghost_win *w, int lock_type, int rank, int assert)
{
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (rank < 0 || rank >= w->size)
        return wisp_ghost_win_error(w, MPI_ERR_RANK);
    if (lock_type != MPI_LOCK_SHARED && lock_type != MPI_LOCK_EXCLUSIVE)
        return PMPI_Win_lock(lock_type, rank, assert, w->win); /* the MPI's own error */
    if (!may_lock(w, rank))
        return wisp_ghost_win_error(w, MPI_ERR_RMA_SYNC);
    const struct wisp_ghost_target *t = &w->t[rank];
    MPI_Win iwin = w->lockwin[t->local];
    wisp_ghost_epoch_start(w, rank, assert &MPI_MODE_NOCHECK);
    int rc = PMPI_Win_lock(lock_type, lock_rank(w, rank), assert, iwin);
    if (rc == MPI_SUCCESS && rank == w->rank && w->route[rank])
        rc = wisp_ghost_self_lock(w, lock_type, assert, iwin);
    if (rc == MPI_SUCCESS) {
        w->held[t->local]++;
        w->locked[rank] = (unsigned char)(lock_type + 1);
        w->nlocked++;
        w->access = WISP_GHOST_LOCK;
    }
    return wisp_ghost_win_error(w, rc);
}

int wisp_ghost_unlock(struct wisp_ghost_win *w, int rank)
{
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (rank < 0 || rank >= w->size)
        return wisp_ghost_win_error(w, MPI_ERR_RANK);
    if (w->access != WISP_GHOST_LOCK || !w->locked[rank])
        return wisp_ghost_win_error(w, MPI_ERR_RMA_SYNC);
    const struct wisp_ghost_target *t = &w->t[rank];
    MPI_Win iwin = w->lockwin[t->local];
    int rc = MPI_SUCCESS;
    if (rank == w->rank && w->self_locked) {
        rc = PMPI_Win_unlock(w->rank, iwin);
        w->self_locked = false;
    }
    int rc2 = wisp_ghost_unlock_extra(w, rank, iwin);
    rc = rc == MPI_SUCCESS ? rc2 : rc;
    rc2 = PMPI_Win_unlock(lock_rank(w, rank), iwin);
    rc = rc == MPI_SUCCESS ? rc2 : rc;
    w->held[t->local]--;
    w->locked[rank] = 0;
    if (--w->nlocked == 0)
        w->access = WISP_GHOST_NO_ACCESS;
    return wisp_ghost_win_error(w, rc);
}

/*
 * MPI_Win_lock_all on a served window. Another origin may hold an exclusive
 * lock on one of the targets, in that target's lock window, which a lock_all
 * in another window would not see: so the epoch becomes a shared lock on
 * every target's ghost in the target's lock window (Casper 4.5.4.3), with
 * the self-lock rule for the calling process. With MPI_MODE_NOCHECK (no
 * conflicting lock can exist) or without lock windows it lives in the
 * `global` window, which is always in a lock_all epoch.
 */
int wisp_ghost_win_lock_all(int assert, MPI_Win win)
{
    struct wisp_ghost_win *w = wisp_ghost_win_find(win);
    if (!w)
        return PMPI_Win_lock_all(assert, win);
    /* After a fence without MPI_MODE_NOSUCCEED no epoch is open unless another fence follows. */
    if (w->access != WISP_GHOST_NO_ACCESS && w->access != WISP_GHOST_FENCE)
        return wisp_ghost_win_error(w, MPI_ERR_RMA_SYNC);
    int rc = MPI_SUCCESS;
    w->lock_all_global = w->nlock == 0 || (assert &MPI_MODE_NOCHECK);
    wisp_ghost_epoch_start(w, -1, w->lock_all_global);
    if (w->lock_all_global) {
        rc = PMPI_Win_sync(w->global);
    } else {
        for (int r = 0; r < w->size && rc == MPI_SUCCESS; r++) {
            const struct wisp_ghost_target *t = &w->t[r];
            rc = PMPI_Win_lock(MPI_LOCK_SHARED, lock_rank(w, r), assert, w->lockwin[t->local]);
            if (rc == MPI_SUCCESS)
                w->held[t->local]++;
        }
        if (rc == MPI_SUCCESS && w->route[w->rank])
            rc = wisp_ghost_self_lock(w, MPI_LOCK_SHARED, assert, w->lockwin[w->t[w->rank].local]);
    }
    w->access = WISP_GHOST_LOCK_ALL;
    return wisp_ghost_win_error(w, rc);
}

/* MPI_Win_unlock_all on a served window: see wisp_ghost_win_lock_all. */
int wisp_ghost_win_unlock_all(MPI_Win win)
{
    struct wisp_ghost_win *w = wisp_ghost_win_find(win);
    if (!w)
        return PMPI_Win_unlock_all(win);
    if (w->access != WISP_GHOST_LOCK_ALL)
        return wisp_ghost_win_error(w, MPI_ERR_RMA_SYNC);
    int rc = MPI_SUCCESS;
    if (w->lock_all_global) {
        /* The epoch stays open in `global`: complete this origin's operations. */
        rc = wisp_ghost_async_flush_all(w, w->global, false);
        int rc2 = PMPI_Win_sync(w->global);
        rc = rc == MPI_SUCCESS ? rc2 : rc;
    } else {
        const struct wisp_ghost_target *me = &w->t[w->rank];
        if (w->self_locked) {
            rc = PMPI_Win_unlock(w->rank, w->lockwin[me->local]);
            w->self_locked = false;
        }
        for (int r = 0; r < w->size; r++) {
            const struct wisp_ghost_target *t = &w->t[r];
            int rc2 = wisp_ghost_unlock_extra(w, r, w->lockwin[t->local]);
            rc = rc == MPI_SUCCESS ? rc2 : rc;
            rc2 = PMPI_Win_unlock(lock_rank(w, r), w->lockwin[t->local]);
            rc = rc == MPI_SUCCESS ? rc2 : rc;
            w->held[t->local]--;
        }
    }
    w->access = WISP_GHOST_NO_ACCESS;
    return wisp_ghost_win_error(w, rc);
}

/*
 * MPI_Win_fence on a served window, in passive mode (Casper 4.5.4.1): a
 * ghost never blocks in a fence, so it can serve simultaneous epochs of
 * other windows and processes. The operations of an epoch travel in
 * `global`, always in a lock_all epoch; a fence completes this origin's
 * operations (flush_all, skipped after MPI_MODE_NOPRECEDE), then a barrier
 * over the window's processes makes them complete everywhere before anyone
 * goes on, and MPI_Win_sync orders the local loads and stores around it.
 * MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED (nothing to complete, nothing
 * to start) needs no barrier. Casper also skipped it for NOSTORE | NOPUT |
 * NOPRECEDE, but those two are local assertions: processes that gave
 * different ones would not all enter the barrier.
 */
int wisp_ghost_win_fence(int assert, MPI_Win win)
{
    struct wisp_ghost_win *w = wisp_ghost_win_find(win);
    if (!w)
        return PMPI_Win_fence(assert, win);
    if (w->access != WISP_GHOST_NO_ACCESS && w->access != WISP_GHOST_FENCE)
        return wisp_ghost_win_error(w, MPI_ERR_RMA_SYNC);
    int rc = MPI_SUCCESS;
    if (!(assert &MPI_MODE_NOPRECEDE) && w->access == WISP_GHOST_FENCE)
        rc = wisp_ghost_async_flush_all(w, w->global, false);
    wisp_ghost_flushed(w, -1);
    bool nothing = (assert &MPI_MODE_NOPRECEDE) && (assert &MPI_MODE_NOSUCCEED);
    if (rc == MPI_SUCCESS && !nothing) {
        rc = PMPI_Win_sync(w->global);
        if (rc == MPI_SUCCESS) /* deciding from profiles: the barrier exchanges them too */
            rc = w->adaptive ? wisp_ghost_async_exchange(w, WISP_ASYNC_AT_FENCE)
                             : PMPI_Barrier(w->comm);
        if (rc == MPI_SUCCESS)
            rc = PMPI_Win_sync(w->global);
    }
    w->access = assert &MPI_MODE_NOSUCCEED ? WISP_GHOST_NO_ACCESS : WISP_GHOST_FENCE;
    return wisp_ghost_win_error(w, rc);
}

/* MPI_Win_sync on a served window: a memory barrier through `global`, which
 * is always in a passive epoch, and the application's window. */
int wisp_ghost_win_sync(MPI_Win win)
{
    struct wisp_ghost_win *w = wisp_ghost_win_find(win);
    if (!w)
        return PMPI_Win_sync(win);
    atomic_thread_fence(memory_order_seq_cst);
    return wisp_ghost_win_error(w, PMPI_Win_sync(w->global));
}

/* The functions of the MPI: a served window's epochs, or the MPI's own. */
int wisp_ghost_win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
    struct wisp_ghost_win *w = wisp_ghost_win_find(win);
    return w ? wisp_ghost_lock(w, lock_type, rank, assert)
             : PMPI_Win_lock(lock_type, rank, assert, win);
}

int wisp_ghost_win_unlock(int rank, MPI_Win win)
{
    struct wisp_ghost_win *w = wisp_ghost_win_find(win);
    return w ? wisp_ghost_unlock(w, rank) : PMPI_Win_unlock(rank, win);
}

int wisp_ghost_win_flush_all(MPI_Win win, bool local)
{
    struct wisp_ghost_win *w = wisp_ghost_win_find(win);
    if (w)
        return wisp_ghost_flush_all(w, local);
    return local ? PMPI_Win_flush_local_all(win) : PMPI_Win_flush_all(win);
}
