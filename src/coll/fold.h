/*
 * Folding members' contributions where they lie (fold.c), for the
 * reductions that want a range of elements folded over a run of members
 * (MPI_Reduce_scatter, MPI_Scan, MPI_Exscan): in their lines, in their
 * staging halves, or in their own buffers in the heap, read in place. The
 * members are folded in rank order, x_first op ... op x_last, whatever
 * order they arrive in: the same bits everywhere (op.h).
 */
#ifndef WISP_COLL_FOLD_H
#define WISP_COLL_FOLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coll/area.h"
#include "coll/op.h"

#pragma GCC visibility push(hidden)

/* Where the members' data of a phase lies. */
enum wisp_coll_from {
    WISP_COLL_FROM_LINE, /* the line's inline bytes */
    WISP_COLL_FROM_HALF, /* the staging half of the phase's parity */
    WISP_COLL_FROM_AUX   /* the address in the line's word (wisp_coll_offer) */
};

/* Elements [at, at + n) of the members first..last, folded in rank order
 * into `to` (to[0] is element `at`) through a private accumulator, so `to`
 * may be one of the inputs. */
void wisp_coll_fold_members(struct wisp_coll_comm *c, struct wisp_coll_fold f, uint64_t phase,
                            enum wisp_coll_from from, int first, int last, size_t at, size_t n,
                            char *to);

/* A phase in which every member offers `in` (`bytes`) for the others to
 * read in place, in its line's word (0 where it is not in the heap); true
 * if every member's is, the same answer everywhere. `*phase`: the phase. */
bool wisp_coll_offer(struct wisp_coll_comm *c, const void *in, uint64_t bytes, uint64_t *phase);

#pragma GCC visibility pop

#endif
