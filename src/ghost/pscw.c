/*
 * Post-start-complete-wait on a served window, in passive mode (Casper
 * 4.5.4.2): the epochs travel in `global`, always in a lock_all epoch, and
 * the synchronization is point-to-point messages on the window's
 * communicator. The target tells each origin of its exposure group that
 * its memory is exposed (MPI_Win_post) and expects from each a message when
 * its accesses are complete (MPI_Win_complete), received by MPI_Win_wait or
 * MPI_Win_test. Every function falls back to the MPI's own for a window
 * wisp does not serve.
 */
#include "ghost/pscw.h"

#include "ghost/async.h"
#include "ghost/binding.h"
#include "ghost/issue.h"
#include "ghost/redirect.h"

/*
 * MPI_Win_post on a served window: PSCW in passive mode (Casper 4.5.4.2).
 * The target tells each origin of `group` that its memory is exposed with a
 * zero-byte message (none with MPI_MODE_NOCHECK, which promises that the
 * origins' starts come later anyway), and expects from each a message when
 * its accesses are complete (MPI_Win_complete), received by
 * MPI_Win_wait or MPI_Win_test.
 */
int wisp_ghost_win_post(MPI_Group group, int assert, MPI_Win win)
{
    struct wisp_ghost_win *w = wisp_ghost_win_find(win);
    if (!w)
        return PMPI_Win_post(group, assert, win);
    if (w->exposed)
        return wisp_ghost_win_error(w, MPI_ERR_RMA_SYNC);
    if (!wisp_ghost_group_ranks(w, group, &w->npost, w->post))
        return wisp_ghost_win_error(w, MPI_ERR_GROUP);
    int rc = PMPI_Win_sync(w->global); /* local stores before the post are visible */
    for (int i = 0; i < w->npost && rc == MPI_SUCCESS; i++) {
        rc = PMPI_Irecv(NULL, 0, MPI_BYTE, w->post[i], WISP_GHOST_TAG_DONE, w->comm,
                        &w->post_done[i]);
        if (rc == MPI_SUCCESS && !(assert &MPI_MODE_NOCHECK)) {
            MPI_Request req;
            rc = PMPI_Isend(NULL, 0, MPI_BYTE, w->post[i], WISP_GHOST_TAG_POST, w->comm, &req);
            if (rc == MPI_SUCCESS)
                rc = PMPI_Request_free(&req);
        }
    }
    w->exposed = rc == MPI_SUCCESS;
    return wisp_ghost_win_error(w, rc);
}

/* MPI_Win_start on a served window: waits for the post message of each
 * target of `group` (none with MPI_MODE_NOCHECK); see wisp_ghost_win_post. */
int wisp_ghost_win_start(MPI_Group group, int assert, MPI_Win win)
{
    struct wisp_ghost_win *w = wisp_ghost_win_find(win);
    if (!w)
        return PMPI_Win_start(group, assert, win);
    /* After a fence without MPI_MODE_NOSUCCEED no epoch is open unless another fence follows. */
    if (w->access != WISP_GHOST_NO_ACCESS && w->access != WISP_GHOST_FENCE)
        return wisp_ghost_win_error(w, MPI_ERR_RMA_SYNC);
    if (!wisp_ghost_group_ranks(w, group, &w->nstart, w->start))
        return wisp_ghost_win_error(w, MPI_ERR_GROUP);
    int rc = MPI_SUCCESS;
    if (!(assert &MPI_MODE_NOCHECK))
        for (int i = 0; i < w->nstart && rc == MPI_SUCCESS; i++)
            rc = PMPI_Recv(NULL, 0, MPI_BYTE, w->start[i], WISP_GHOST_TAG_POST, w->comm,
                           MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS)
        w->access = WISP_GHOST_PSCW;
    wisp_ghost_epoch_start(w, -1, true);
    return wisp_ghost_win_error(w, rc);
}

/* MPI_Win_complete on a served window: completes this origin's operations,
 * then tells each target of the access group; see wisp_ghost_win_post. */
int wisp_ghost_win_complete(MPI_Win win)
{
    struct wisp_ghost_win *w = wisp_ghost_win_find(win);
    if (!w)
        return PMPI_Win_complete(win);
    if (w->access != WISP_GHOST_PSCW)
        return wisp_ghost_win_error(w, MPI_ERR_RMA_SYNC);
    int rc = wisp_ghost_async_flush_all(w, w->global, false);
    wisp_ghost_flushed(w, -1);
    for (int i = 0; i < w->nstart && rc == MPI_SUCCESS; i++) {
        MPI_Request req;
        rc = PMPI_Isend(NULL, 0, MPI_BYTE, w->start[i], WISP_GHOST_TAG_DONE, w->comm, &req);
        if (rc == MPI_SUCCESS)
            rc = PMPI_Request_free(&req);
    }
    w->access = WISP_GHOST_NO_ACCESS;
    return wisp_ghost_win_error(w, rc);
}

/* MPI_Win_wait on a served window: the completion message of every origin
 * of the exposure group; see wisp_ghost_win_post. */
int wisp_ghost_win_wait(MPI_Win win)
{
    struct wisp_ghost_win *w = wisp_ghost_win_find(win);
    if (!w)
        return PMPI_Win_wait(win);
    if (!w->exposed)
        return wisp_ghost_win_error(w, MPI_ERR_RMA_SYNC);
    int rc = MPI_SUCCESS;
    for (int i = 0; i < w->npost && rc == MPI_SUCCESS; i++)
        rc = PMPI_Wait(&w->post_done[i], MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Win_sync(w->global); /* loads after the wait see the origins' updates */
    w->exposed = false;
    return wisp_ghost_win_error(w, rc);
}

/* MPI_Win_test on a served window: MPI_Win_wait without blocking. */
int wisp_ghost_win_test(MPI_Win win, int *flag)
{
    struct wisp_ghost_win *w = wisp_ghost_win_find(win);
    if (!w)
        return PMPI_Win_test(win, flag);
    if (!w->exposed)
        return wisp_ghost_win_error(w, MPI_ERR_RMA_SYNC);
    int rc = MPI_SUCCESS, done = 1;
    for (int i = 0; i < w->npost && rc == MPI_SUCCESS; i++) {
        int one = 1;
        rc = PMPI_Test(&w->post_done[i], &one, MPI_STATUS_IGNORE);
        done &= one;
    }
    *flag = done && rc == MPI_SUCCESS;
    if (rc == MPI_SUCCESS && *flag) {
        rc = PMPI_Win_sync(w->global);
        w->exposed = false;
    }
    return wisp_ghost_win_error(w, rc);
}
