/*
 * Served communicators (comm.c): looked up from a handle, made (a context
 * agreed on) and freed.
 */
#ifndef WISP_P2P_COMM_H
#define WISP_P2P_COMM_H

#include <mpi.h>
#include <stdbool.h>

#include "p2p/types.h"

#pragma GCC visibility push(hidden)

/* The communicators looked up last, served and not: most programs use one
 * or two, and every call of a point-to-point function asks. */
struct wisp_p2p_comm_cache {
    struct wisp_p2p_comm *last;
    MPI_Comm unserved;
};
extern struct wisp_p2p_comm_cache wisp_p2p_comm_cache;
struct wisp_p2p_comm *wisp_p2p_comm_lookup(MPI_Comm comm);

/* The served communicator behind `comm`, or NULL (the MPI serves it all). */
static inline struct wisp_p2p_comm *wisp_p2p_comm_of(MPI_Comm comm)
{
    struct wisp_p2p_comm *last = wisp_p2p_comm_cache.last;
    if (last && last->handle == comm)
        return last;
    return comm == wisp_p2p_comm_cache.unserved ? NULL : wisp_p2p_comm_lookup(comm);
}
/* Does wisp serve `comm` (takes the lock)? */
bool wisp_p2p_serves(MPI_Comm comm);

/* After the MPI created `comm` (collective over it, may be MPI_COMM_NULL):
 * agree on a context and serve it. Returns an MPI error code. */
int wisp_p2p_comm_created(MPI_Comm comm);
/* Before the MPI frees `comm`. */
void wisp_p2p_comm_freeing(MPI_Comm comm);
/* The functions that make a communicator: `rc`, the MPI's return code, and
 * the new communicator; gives it a context (collective, as they are). */
int wisp_p2p_comm_made(int rc, MPI_Comm *newcomm);
/* MPI_Comm_free and MPI_Comm_disconnect: the layers above and the engine
 * let go of the communicator first, then `mpi_free` (the MPI's function). */
int wisp_p2p_comm_release(MPI_Comm *comm, int (*mpi_free)(MPI_Comm *));
/* An event the layers above the engine register for (src/coll): the user
 * frees a communicator, which the MPI frees next (its handle may then come
 * back for another one). The routes of MPI_Comm_free and
 * MPI_Comm_disconnect are the engine's, one route a function; a
 * callback, so that no attribute keyval of wisp's shows in the user's
 * keyval numbers. NULL: no one listens. */
struct wisp_p2p_comm_callbacks {
    void (*freeing)(MPI_Comm comm);
};
extern struct wisp_p2p_comm_callbacks wisp_p2p_comm_up;
/* A persistent request of wisp uses `c` (may be NULL) until it is freed. */
void wisp_p2p_comm_hold(struct wisp_p2p_comm *c);
void wisp_p2p_comm_unhold(struct wisp_p2p_comm *c);
void wisp_p2p_comm_init(MPI_Comm world);
void wisp_p2p_comm_fini(void);

#pragma GCC visibility pop

#endif
