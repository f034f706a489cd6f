/*
 * Internal windows kept for the next served window. Creating a served
 * window's internal windows (`global` and its lock windows) with the ghosts
 * is most of its creation. In a window whose memory is in the node's shared
 * heap, over the kept communicator of icomm.c, every member (its
 * application processes and the ghosts) exposes the whole heap in them, so
 * they fit any later such window with as many lock windows. So a free keeps
 * them as a set, and a creation takes the set on top of the pool when all
 * its application processes have the same one there: they see the same
 * creations and frees in the same order, and the creation's allreduce
 * checks that they agree (new windows otherwise). The ghosts take part only
 * in a set's making: they file it, as the pool of every set made, and
 * neither its later use nor its return is theirs to know. MPI_Finalize
 * frees the sets in the order they were made, every member alike. Of each
 * size there are never more sets than served windows of that size were
 * once alive together (two sizes: with lock windows and without).
 */
#ifndef WISP_GHOST_POOL_H
#define WISP_GHOST_POOL_H

#include <mpi.h>
#include <stdbool.h>

#pragma GCC visibility push(hidden)

struct wisp_ghost_set {
    int id; /* the same in every member: the sets made over the kept communicator, counted */
    int nwins;
    struct wisp_ghost_set *next;
    MPI_Win wins[]; /* `global`, then the lock windows */
};

/* What an application process says in a creation's allreduce (MPI_MIN over
 * them): whether it could keep the window's set, and the id of the set it
 * would take, also negated, so that equal minima of both mean that every
 * process has the same one on top. */
enum { WISP_GHOST_POOL_OK, WISP_GHOST_POOL_TOP, WISP_GHOST_POOL_TOP_NEG, WISP_GHOST_POOL_VOTE };
struct wisp_ghost_pool_vote {
    struct wisp_ghost_set *set; /* a new record, NULL if it could not be kept */
    int vote[WISP_GHOST_POOL_VOTE];
};

/* Before the allreduce: a record for `nwins` windows when the window can
 * use the pool (`poolable`), and this process's vote. */
void wisp_ghost_pool_vote(struct wisp_ghost_pool_vote *v, bool poolable, int nwins);
/* After it, with the minima: true when a kept set was taken (*set, its
 * windows ready); false means: make the windows, into (*set)->wins where
 * *set is not NULL (a new set, its id given; NULL: a window nobody keeps). */
bool wisp_ghost_pool_decide(struct wisp_ghost_pool_vote *v, const int *minima,
                            struct wisp_ghost_set **set);
/* Keep a set: at a served window's free; in a ghost, a set just made, with its id. */
void wisp_ghost_pool_put(struct wisp_ghost_set *set);
/* In a ghost: whether no set was made (then no window can be in use without a command). */
bool wisp_ghost_pool_empty(void);
/* At MPI_Finalize, in every member, after the served windows are freed:
 * free the sets, collective over the kept communicator. */
void wisp_ghost_pool_release(void);

#pragma GCC visibility pop

#endif
