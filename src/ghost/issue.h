/*
 * One one-sided operation of the application, as every layer of the
 * windows passes it on, and its last step: the MPI's own call on an
 * internal window (issue.c); the completion of all of them on one, and the
 * error of the application's window.
 */
#ifndef WISP_GHOST_ISSUE_H
#define WISP_GHOST_ISSUE_H

#include <mpi.h>
#include <stdbool.h>

#include "ghost/served.h"

#pragma GCC visibility push(hidden)

/* The kinds of one-sided operations, and one call of any of them (the R
 * forms give `request`, the _c forms set `large`). */
enum wisp_ghost_kind {
    WISP_GHOST_PUT,
    WISP_GHOST_GET,
    WISP_GHOST_ACC,
    WISP_GHOST_GET_ACC,
    WISP_GHOST_FOP,
    WISP_GHOST_CAS,
};
struct wisp_ghost_op {
    enum wisp_ghost_kind kind;
    bool large;
    const void *origin;
    MPI_Count ocount;
    MPI_Datatype otype;
    void *result;
    MPI_Count rcount;
    MPI_Datatype rtype;
    const void *compare;
    int target;
    MPI_Aint disp;
    MPI_Count tcount;
    MPI_Datatype ttype;
    MPI_Op op;
    MPI_Request *request;
};

/* The operation as the MPI's call on `win`, to `rank` at `disp`. */
int wisp_ghost_issue(const struct wisp_ghost_op *op, int rank, MPI_Aint disp, MPI_Win win);

/* MPI_Win_flush_all (local false) or _local_all on internal window `iwin`
 * in a lock_all epoch (`global`), done as a flush of each of its ranks
 * (issue.c says why). */
int wisp_ghost_flush_each(const struct wisp_ghost_win *w, MPI_Win iwin, bool local);

/* `rc`, after calling the application window's error handler when it is an error. */
int wisp_ghost_win_error(struct wisp_ghost_win *w, int rc);

#pragma GCC visibility pop

#endif
