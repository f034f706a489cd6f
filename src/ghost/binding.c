/*
 * Which ghost of a target's node carries an operation (Casper 4.5.3).
 *
 * Static rank binding (WISP_GHOST_BINDING=rank): the ghost bound to the
 * target process, local index modulo the ghosts. Static segment binding
 * (=segment): the node's exposed memory is cut into one segment per ghost,
 * boundaries 16-byte aligned, and an element goes to the ghost that owns
 * its first byte, so the same element always goes to the same ghost, which
 * keeps MPI's per-element atomicity and ordering of accumulates; an
 * operation over several segments is split (split.c).
 *
 * Locks: the user's lock is taken on the bound ghost only, in the lock
 * window of the target's local index, so that exclusive locks exclude each
 * other there. Another ghost of the node is locked, shared, the first time
 * an operation goes to it. In a lock window only the bound ghost is ever
 * locked exclusively, so these shared locks never wait, and nobody can
 * deadlock on them; but an operation through them is only safe once the
 * lock on the bound ghost is held, so before the first one the origin makes
 * sure of it (a one-byte get from the hidden bytes, flushed). In `global`
 * every ghost is always locked (MPI_MODE_NOCHECK).
 *
 * Dynamic binding (WISP_GHOST_LOAD): in a binding-free interval a put or a
 * get may go to any ghost of the node. The interval is binding-free when
 * the lock on the target is known to be held (in `global`, always; in a lock
 * window, after a flush of the target, a flush_all, a lock with
 * MPI_MODE_NOCHECK or a self lock) and no accumulate-type operation went to
 * the target since the last flush (or fence, complete, lock): an earlier
 * accumulate then still owns the order of its elements at its ghost.
 *
 * Threads (MPI_THREAD_MULTIPLE): this bookkeeping is changed under the
 * window's books lock. A flush forgets the ghosts used only when no
 * operation was under way when it began and none began since: another
 * thread's operation counted just before the flush may reach its ghost only
 * after the flush looked, and must be flushed by the next flush.
 */
#include "ghost/binding.h"

#include <stdlib.h>

#include "core/config.h"
#include "ghost/board.h"

int wisp_ghost_owner(const struct wisp_ghost_win *w, const struct wisp_ghost_target *t, MPI_Aint at)
{
    (void)w;
    int G = wisp_ghost_node.ghosts;
    if (G == 1 || wisp_config.GHOST_BINDING == WISP_GHOST_BINDING_RANK || t->chunk == 0)
        return t->ghost - t->ghost0;
    MPI_Aint v = t->vbase + at;
    MPI_Aint g = v < 0 ? 0 : v / t->chunk;
    return g >= G ? G - 1 : (int)g;
}

/* The ghost of a node (its first at `first` in ops/bytes) that this origin
 * sent the fewest operations or bytes to (WISP_GHOST_LOAD=op, byte). */
static int least_loaded(const struct wisp_ghost_win *w, int first)
{
    const uint64_t *count = wisp_config.GHOST_LOAD == WISP_GHOST_LOAD_OP ? w->ops : w->bytes;
    int best = 0;
    for (int g = 1; g < wisp_ghost_node.ghosts; g++)
        if (count[first + g] < count[first + best])
            best = g;
    return best;
}

int wisp_ghost_free_choice(struct wisp_ghost_win *w, int rank, MPI_Win iwin)
{
    int G = wisp_ghost_node.ghosts;
    if (G == 1 || wisp_config.GHOST_LOAD == WISP_GHOST_LOAD_STATIC)
        return -1;
    wisp_ghost_books_lock(w);
    const struct wisp_ghost_tstate *ts = &w->ts[rank];
    int best = -1;
    if (!ts->acc && (iwin == w->global || ts->granted))
        best = wisp_config.GHOST_LOAD == WISP_GHOST_LOAD_RANDOM
                   ? rand_r(&w->seed) % G
                   : least_loaded(w, w->t[rank].ghost0 - w->size);
    wisp_ghost_books_unlock(w);
    return best;
}

/* Wait until the MPI holds the lock on target t's bound ghost in `iwin`. */
static int force_lock(const struct wisp_ghost_target *t, MPI_Win iwin)
{
    char hidden;
    int rc = PMPI_Get(&hidden, 1, MPI_BYTE, t->ghost, t->hidden, 1, MPI_BYTE, iwin);
    return rc == MPI_SUCCESS ? PMPI_Win_flush(t->ghost, iwin) : rc;
}

/* Lock ghost index g of target `rank`'s node (not its bound ghost), shared,
 * once per epoch, after making sure the user's lock on the bound one is held.
 * The wait for that lock happens outside the books: it may be long. */
static int lock_extra(struct wisp_ghost_win *w, int rank, MPI_Win iwin, int g)
{
    const struct wisp_ghost_target *t = &w->t[rank];
    struct wisp_ghost_tstate *ts = &w->ts[rank];
    uint64_t bit = (uint64_t)1 << g;
    wisp_ghost_books_lock(w);
    bool locked = ts->extra & bit, granted = ts->granted;
    wisp_ghost_books_unlock(w);
    if (locked)
        return MPI_SUCCESS;
    int rc = granted ? MPI_SUCCESS : force_lock(t, iwin);
    wisp_ghost_books_lock(w);
    ts->granted |= rc == MPI_SUCCESS;
    /* Only the bound ghost is ever locked exclusively: this lock never waits. */
    if (rc == MPI_SUCCESS && !(ts->extra & bit))
        rc = PMPI_Win_lock(MPI_LOCK_SHARED, t->ghost0 + g, 0, iwin);
    if (rc == MPI_SUCCESS)
        ts->extra |= bit;
    wisp_ghost_books_unlock(w);
    return rc;
}

int wisp_ghost_use(struct wisp_ghost_win *w, int rank, MPI_Win iwin, int g, bool acc,
                   MPI_Aint bytes)
{
    const struct wisp_ghost_target *t = &w->t[rank];
    int grank = t->ghost0 + g;
    if (iwin != w->global && grank != t->ghost) {
        int rc = lock_extra(w, rank, iwin, g);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    wisp_ghost_books_lock(w);
    struct wisp_ghost_tstate *ts = &w->ts[rank];
    ts->dirty |= (uint64_t)1 << g;
    ts->acc |= acc;
    w->ops[grank - w->size]++;
    w->bytes[grank - w->size] += (uint64_t)bytes;
    wisp_ghost_books_unlock(w);
    return MPI_SUCCESS;
}

void wisp_ghost_op_begin(struct wisp_ghost_win *w)
{
    wisp_ghost_books_lock(w);
    w->started++;
    w->inflight++;
    wisp_ghost_books_unlock(w);
}

void wisp_ghost_op_end(struct wisp_ghost_win *w)
{
    wisp_ghost_books_lock(w);
    w->inflight--;
    wisp_ghost_books_unlock(w);
}

uint64_t wisp_ghost_flush_begin(struct wisp_ghost_win *w, int rank, struct wisp_ghost_mark *mark)
{
    wisp_ghost_books_lock(w);
    *mark = (struct wisp_ghost_mark){.started = w->started, .quiet = w->inflight == 0};
    uint64_t used = 0;
    if (rank >= 0) {
        used = w->ts[rank].dirty;
        mark->direct = w->ts[rank].direct;
    }
    wisp_ghost_books_unlock(w);
    return used;
}

/* Targets `rank` (all: -1) flushed: the lock is held; forget the ghosts used
 * and the accumulates when `forget`. Holding the books. */
static void mark_flushed(struct wisp_ghost_win *w, int rank, bool forget)
{
    for (int r = rank < 0 ? 0 : rank; r < (rank < 0 ? w->size : rank + 1); r++) {
        w->ts[r].granted = true;
        if (forget) {
            w->ts[r].dirty = 0;
            w->ts[r].acc = false;
            w->ts[r].direct = false;
        }
    }
}

void wisp_ghost_flushed_since(struct wisp_ghost_win *w, int rank, struct wisp_ghost_mark mark)
{
    wisp_ghost_books_lock(w);
    mark_flushed(w, rank, mark.quiet && w->started == mark.started);
    wisp_ghost_books_unlock(w);
}

void wisp_ghost_flushed(struct wisp_ghost_win *w, int rank)
{
    wisp_ghost_books_lock(w);
    mark_flushed(w, rank, true);
    wisp_ghost_books_unlock(w);
}

void wisp_ghost_epoch_start(struct wisp_ghost_win *w, int rank, bool granted)
{
    wisp_ghost_books_lock(w);
    for (int r = rank < 0 ? 0 : rank; r < (rank < 0 ? w->size : rank + 1); r++)
        w->ts[r] = (struct wisp_ghost_tstate){.granted = granted};
    wisp_ghost_books_unlock(w);
}

int wisp_ghost_unlock_extra(struct wisp_ghost_win *w, int rank, MPI_Win iwin)
{
    const struct wisp_ghost_target *t = &w->t[rank];
    struct wisp_ghost_tstate *ts = &w->ts[rank];
    int rc = MPI_SUCCESS;
    for (int g = 0; ts->extra; g++)
        if (ts->extra >> g & 1) {
            int rc2 = PMPI_Win_unlock(t->ghost0 + g, iwin);
            rc = rc == MPI_SUCCESS ? rc2 : rc;
            ts->extra &= ~((uint64_t)1 << g);
        }
    return rc;
}
