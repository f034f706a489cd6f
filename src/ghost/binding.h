/*
 * Binding of operations to the ghosts of the target's node (binding.c): which
 * ghost carries an operation, the locks on the other ghosts, and which
 * ghosts a flush must reach.
 */
#ifndef WISP_GHOST_BINDING_H
#define WISP_GHOST_BINDING_H

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

#include "ghost/served.h"

#pragma GCC visibility push(hidden)

/* The ghost index (0 .. ghosts - 1) that owns the byte at `at` of target
 * t's memory under WISP_GHOST_BINDING; the one a put or get may use instead
 * in a binding-free interval under WISP_GHOST_LOAD, or -1 outside one. */
int wisp_ghost_owner(const struct wisp_ghost_win *w, const struct wisp_ghost_target *t,
                     MPI_Aint at);
int wisp_ghost_free_choice(struct wisp_ghost_win *w, int rank, MPI_Win iwin);
/* Before an operation to ghost index g of target `rank`'s node in `iwin`:
 * locks it when it is not the bound ghost of a lock window (after making sure
 * the lock on the bound one is held), and counts the operation. */
int wisp_ghost_use(struct wisp_ghost_win *w, int rank, MPI_Win iwin, int g, bool acc,
                   MPI_Aint bytes);
/* Around every operation on a served window, from its first step to its return. */
void wisp_ghost_op_begin(struct wisp_ghost_win *w);
void wisp_ghost_op_end(struct wisp_ghost_win *w);
/* Before a flush: the ghosts (bits of ghost indices) that got target
 * `rank`'s operations since the last flush (`rank` -1: none), and the mark
 * wisp_ghost_flushed_since needs. */
struct wisp_ghost_mark {
    uint64_t started;
    bool quiet;  /* no operation was under way */
    bool direct; /* a put or get went to the target directly by its live profile */
};
uint64_t wisp_ghost_flush_begin(struct wisp_ghost_win *w, int rank, struct wisp_ghost_mark *mark);
/* After a flush of target `rank` (all ranks: -1) begun at `mark`: the lock
 * is held, and the ghosts used are forgotten unless an operation was under
 * way at the mark or began since (another thread's, which the flush may
 * have missed). */
void wisp_ghost_flushed_since(struct wisp_ghost_win *w, int rank, struct wisp_ghost_mark mark);
/* After a fence or a complete, which no operation may overlap. */
void wisp_ghost_flushed(struct wisp_ghost_win *w, int rank);
/* At the start of a passive epoch on `rank` (all: -1): whether the lock is held at once. */
void wisp_ghost_epoch_start(struct wisp_ghost_win *w, int rank, bool granted);
/* Before unlocking `rank` in `iwin`: release the other ghosts' locks. */
int wisp_ghost_unlock_extra(struct wisp_ghost_win *w, int rank, MPI_Win iwin);

#pragma GCC visibility pop

#endif
