/*
 * An operation whose target elements belong to several ghosts under static
 * segment binding (split.c).
 */
#ifndef WISP_GHOST_SPLIT_H
#define WISP_GHOST_SPLIT_H

#include <mpi.h>

#include "ghost/issue.h"
#include "ghost/served.h"

#pragma GCC visibility push(hidden)

/* One operation per ghost, over the elements it owns, in internal window
 * `iwin`. */
int wisp_ghost_split(struct wisp_ghost_win *w, const struct wisp_ghost_op *op, MPI_Win iwin);

#pragma GCC visibility pop

#endif
