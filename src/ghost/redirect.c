/*
 * Redirection of one-sided operations on a served window (win.h): the
 * target becomes the ghost bound to it (static rank binding: with several
 * ghosts per node, a process's local index picks its ghost, so locks,
 * ordering and atomicity on one process stay with one ghost, Casper 4.5.3.1),
 * the displacement becomes a byte offset into the ghost's view of the node's
 * memory, and the internal window is the one that carries the origin's
 * current epoch. Errors the MPI would report for the application's window
 * (bad rank, negative displacement, no epoch) are reported the same way.
 */
#include "ghost/win.h"

#include <stdlib.h>

int wisp_ghost_win_error(struct wisp_ghost_win *w, int rc)
{
    if (rc != MPI_SUCCESS)
        PMPI_Win_call_errhandler(w->win, rc);
    return rc;
}

int wisp_ghost_passive_target(struct wisp_ghost_win *w, int rank, MPI_Win *iwin, int *grank)
{
    const struct wisp_ghost_target *t = &w->t[rank];
    *grank = t->ghost;
    switch (w->access) {
    case WISP_GHOST_LOCK:
        if (!w->locked[rank])
            return MPI_ERR_RMA_SYNC;
        *iwin = w->nlock ? w->lockwin[t->local] : w->global;
        return MPI_SUCCESS;
    case WISP_GHOST_LOCK_ALL:
        *iwin = w->lock_all_global ? w->global : w->lockwin[t->local];
        return MPI_SUCCESS;
    default:
        return MPI_ERR_RMA_SYNC;
    }
}

int wisp_ghost_route(struct wisp_ghost_win *w, int rank, MPI_Aint disp, MPI_Win *iwin, int *grank,
                     MPI_Aint *gdisp)
{
    if (rank == MPI_PROC_NULL) {
        *iwin = w->global; /* always in an epoch: the operation is a no-op */
        *grank = MPI_PROC_NULL;
        *gdisp = 0;
        return MPI_SUCCESS;
    }
    if (rank < 0 || rank >= w->size)
        return MPI_ERR_RANK;
    if (disp < 0)
        return MPI_ERR_DISP;
    const struct wisp_ghost_target *t = &w->t[rank];
    *gdisp = t->off + disp * t->disp_unit;
    if (w->access == WISP_GHOST_FENCE || w->access == WISP_GHOST_PSCW) {
        *iwin = w->global;
        *grank = t->ghost;
        return MPI_SUCCESS;
    }
    return wisp_ghost_passive_target(w, rank, iwin, grank);
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
        rc = PMPI_Get(&hidden, 1, MPI_BYTE, ghost, 0, 1, MPI_BYTE, iwin);
        if (rc == MPI_SUCCESS)
            rc = PMPI_Win_flush(ghost, iwin);
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
