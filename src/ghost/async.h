/*
 * Adaptive asynchronous progress (docs/ghosts.md, "When a ghost serves"):
 * for each served window and each target process, whether operations go
 * to a ghost of the target's node (the route `ghost`) or to the target
 * itself in the same internal window (`direct`). The route changes only at
 * safe points, which every process of the window passes together and where
 * its operations are complete: the window's creation, a fence, and
 * MPI_Win_set_info. There every process says what it wants for the
 * operations on itself: its `async_config` (on, off) or, under auto, what
 * its own profile says: a process that spends most of its time inside MPI
 * progresses its operations itself, one that computes needs a ghost.
 */
#ifndef WISP_GHOST_ASYNC_H
#define WISP_GHOST_ASYNC_H

#include <mpi.h>
#include <stdbool.h>

#include "core/config.h"
#include "ghost/issue.h"
#include "ghost/served.h"

#pragma GCC visibility push(hidden)

/* The mode `info` gives with async_config (the words of WISP_ASYNC, enum
 * wisp_config_async), else `fallback`; a value that is not understood keeps
 * `fallback` and is said once when `say`. */
enum wisp_config_async wisp_ghost_async_mode(MPI_Info info, enum wisp_config_async fallback,
                                             bool say);

/* What this process tells the others at a safe point (an int, allgathered). */
int wisp_ghost_async_wish(const struct wisp_ghost_win *w);

/* Collective over the window: every process's wish, then the routes from it. */
int wisp_ghost_async_exchange(struct wisp_ghost_win *w, enum wisp_async_point point);

/* Take everyone's wishes (by rank in the window) as the routes from now on. */
void wisp_ghost_async_apply(struct wisp_ghost_win *w, const int *wishes,
                            enum wisp_async_point point);

/* Before a served window is freed: its route to this process no longer
 * wants a ghost; WISP_VERBOSE=2 tells how often it switched. */
void wisp_ghost_async_forget(struct wisp_ghost_win *w);

/* Between safe points, a put or a get in `global` (fence, PSCW, lock_all
 * with MPI_MODE_NOCHECK, windows without lock windows: the ghost and the
 * target are always locked there) on a target of this node that decides
 * from its profile goes by the target's live profile (profile.h,
 * Casper(GP)): 1 to a ghost,
 * 0 directly, -1 when this does not apply (the window's route then). */
int wisp_ghost_async_live(const struct wisp_ghost_win *w, const struct wisp_ghost_op *o,
                          MPI_Win iwin);

/* MPI_Win_set_info and MPI_Win_get_info on any window: for a served one,
 * the safe point of the hint, and this process's route as async_config. */
int wisp_ghost_win_set_info(MPI_Win win, MPI_Info info);
int wisp_ghost_win_get_info(MPI_Win win, MPI_Info *info);

/* Where the ghosts share the cores with the application's processes (more
 * processes than cores on this machine), an origin about to flush a target
 * whose ghost is on its node and has not served anything since the
 * origin's last operation to it within a few microseconds (it does not
 * run) sleeps until it has, or a short while, instead of spinning in the
 * MPI on the core the ghost needs. Before each operation
 * through the target's bound ghost, and before a flush of the target. */
void wisp_ghost_async_issuing(struct wisp_ghost_win *w, int rank);
void wisp_ghost_async_flushing(struct wisp_ghost_win *w, int rank);
/* MPI_Win_flush_all (or _local_all) of internal window `iwin` of `w`
 * (wisp_ghost_flush_each), with the node's ghosts polling, awake, until it
 * returns: a ghost nobody wants sleeps between polls, and operations a live
 * profile sent it may be pending. */
int wisp_ghost_async_flush_all(const struct wisp_ghost_win *w, MPI_Win iwin, bool local);

/* Then in the application's processes, when windows are served: keep the
 * profiles (profile.h). */
void wisp_ghost_async_start(void);

#pragma GCC visibility pop

#endif
