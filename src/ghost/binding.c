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
 */
#include <stdlib.h>

#include "core/config.h"
#include "ghost/board.h"
#include "ghost/win.h"

int wisp_ghost_owner(const struct wisp_ghost_win *w, const struct wisp_ghost_target *t, MPI_Aint at)
{
    (void)w;
    int G = wisp_ghost_node.ghosts;
    if (G == 1 || wisp_config.GHOST_BINDING == WISP_GHOST_BY_RANK || t->chunk == 0)
        return t->ghost - t->ghost0;
    MPI_Aint v = t->vbase + at;
    MPI_Aint g = v < 0 ? 0 : v / t->chunk;
    return g >= G ? G - 1 : (int)g;
}

int wisp_ghost_free_choice(struct wisp_ghost_win *w, int rank, MPI_Win iwin)
{
    int G = wisp_ghost_node.ghosts;
    const struct wisp_ghost_tstate *ts = &w->ts[rank];
    if (G == 1 || wisp_config.GHOST_LOAD == WISP_GHOST_LOAD_STATIC || ts->acc ||
        (iwin != w->global && !ts->granted))
        return -1;
    if (wisp_config.GHOST_LOAD == WISP_GHOST_LOAD_RANDOM)
        return rand_r(&w->seed) % G;
    const uint64_t *count = wisp_config.GHOST_LOAD == WISP_GHOST_LOAD_OP ? w->ops : w->bytes;
    int first = w->t[rank].ghost0 - w->size, best = 0;
    for (int g = 1; g < G; g++)
        if (count[first + g] < count[first + best])
            best = g;
    return best;
}

/* Wait until the MPI holds the lock on target t's bound ghost in `iwin`. */
static int force_lock(const struct wisp_ghost_target *t, MPI_Win iwin)
{
    char hidden;
    int rc = PMPI_Get(&hidden, 1, MPI_BYTE, t->ghost, t->hidden, 1, MPI_BYTE, iwin);
    return rc == MPI_SUCCESS ? PMPI_Win_flush(t->ghost, iwin) : rc;
}

int wisp_ghost_use(struct wisp_ghost_win *w, int rank, MPI_Win iwin, int g, bool acc,
                   MPI_Aint bytes)
{
    const struct wisp_ghost_target *t = &w->t[rank];
    struct wisp_ghost_tstate *ts = &w->ts[rank];
    int grank = t->ghost0 + g, rc = MPI_SUCCESS;
    if (iwin != w->global && grank != t->ghost && !(ts->extra >> g & 1)) {
        if (!ts->granted)
            rc = force_lock(t, iwin);
        ts->granted = rc == MPI_SUCCESS;
        if (rc == MPI_SUCCESS)
            rc = PMPI_Win_lock(MPI_LOCK_SHARED, grank, 0, iwin);
        if (rc == MPI_SUCCESS)
            ts->extra |= (uint64_t)1 << g;
    }
    if (rc != MPI_SUCCESS)
        return rc;
    ts->dirty |= (uint64_t)1 << g;
    ts->acc |= acc;
    w->ops[grank - w->size]++;
    w->bytes[grank - w->size] += (uint64_t)bytes;
    return MPI_SUCCESS;
}

uint64_t wisp_ghost_used(const struct wisp_ghost_win *w, int rank)
{
    const struct wisp_ghost_target *t = &w->t[rank];
    return w->ts[rank].dirty | (uint64_t)1 << (t->ghost - t->ghost0);
}

void wisp_ghost_flushed(struct wisp_ghost_win *w, int rank)
{
    for (int r = rank < 0 ? 0 : rank; r < (rank < 0 ? w->size : rank + 1); r++) {
        w->ts[r].dirty = 0;
        w->ts[r].acc = false;
        w->ts[r].granted = true;
    }
}

void wisp_ghost_epoch_start(struct wisp_ghost_win *w, int rank, bool granted)
{
    for (int r = rank < 0 ? 0 : rank; r < (rank < 0 ? w->size : rank + 1); r++)
        w->ts[r] = (struct wisp_ghost_tstate){.granted = granted};
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
