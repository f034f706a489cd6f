/*
 * MPI-4's persistent collectives on the node (persist.c): MPI_Barrier_init,
 * MPI_Bcast_init, MPI_Reduce_init, MPI_Allreduce_init,
 * MPI_Reduce_scatter(_block)_init, MPI_Scan_init, MPI_Exscan_init, where
 * the MPI declares them (MPICH 4; Open MPI 4.1 has only its MPIX_*_init
 * extension, which stays the MPI's).
 *
 * They match in the order of their inits (MPI-4.1 section 6.13), not of
 * their starts: a program may start them in different orders in different
 * members (MPICH's coll/p_order does), and an init must not wait for
 * another member. So each persistent request gets a lane of its own: its
 * own phases in an area of its own, which nothing else of the communicator
 * touches. Lane k of a communicator is each member's k-th persistent init
 * on it that wisp serves: the same lane everywhere, found without any
 * communication. The communicator's first member makes the lane's area at
 * its first start (a small one: WISP_COLL_LANE_HALF halves) and publishes
 * its address in slot k of a directory that the communicator's area holds
 * (chunks of 63 slots, area.h, made by the first member as they are
 * needed); every other member looks there at its first start, and waits
 * for it if need be (a start may wait for another member; an init may
 * not).
 *
 * Each start is a round: the nonblocking form's algorithm on a coroutine
 * (nb.h), on the lane, whose queue holds that round alone. Rounds of
 * different lanes, and the communicator's blocking and nonblocking
 * collectives, never wait for each other. The request is the engine's
 * (persistent, kind ABOVE; each round's a request of form ABOVE), so that
 * MPI_Start, MPI_Startall, MPI_Request_free and every completion mix it
 * with point-to-point requests and the MPI's.
 *
 * No room. The first member that finds no room in the heap for a lane
 * (or for the directory's chunk) at its first start publishes
 * WISP_COLL_LANE_NONE in its slot (area.h) instead of killing the job; the
 * others learn it at their first start, in the round's coroutine, as they
 * would the address. Every round of that lane is then the MPI's own
 * persistent request for the same call, which every MPI_*_init makes
 * first (local, no waiting: MPICH's init only records the call), kept as
 * the lane's backup: started and tested in the user's calls through the
 * round's settle (nb.h's WISP_COLL_NB_NOT_YET), so start orders that
 * differ between members stay the MPI's business. Where the MPI has no
 * request of its own, no room still ends the job.
 *
 * MPI_Gather(v)_init, MPI_Scatter(v)_init, MPI_Allgather(v)_init and
 * MPI_Alltoall(v, w)_init run the nonblocking form's steps each round:
 * the blocks opened as bytes at the start (begin), the phases on the
 * lane, the copies unpacked in the call that completes the round.
 *
 * The decision is the nonblocking form's, at the init: the communicator's
 * area is set up, the engine is on, and the call is one wisp serves; else
 * the MPI's MPI_*_init. The lane goes with its request (MPI_Request_free,
 * once its round in flight, if any, ran) or at the layer's stop; until it
 * found its lane, a request holds its communicator's area (the directory),
 * so the communicator may be freed first.
 */
#ifndef WISP_COLL_PERSIST_H
#define WISP_COLL_PERSIST_H

#include <mpi.h>

#include "coll/area.h"

#pragma GCC visibility push(hidden)

/* What a persistent collective does: `run` each round on the lane
 * (`args` the route's, kept from the init to the free); `settle`, where not
 * NULL, finishes a round in the user's call that finds it complete (an MPI
 * error code); `begin`, where not NULL, comes first at each start, in the
 * user's call (a broadcast's root packs there; an MPI error code);
 * `release` lets go of `args` (NULL: free). */
struct wisp_coll_persist_ops {
    void (*run)(struct wisp_coll_comm *c, void *args);
    int (*settle)(struct wisp_coll_comm *c, void *args);
    int (*begin)(struct wisp_coll_comm *c, void *args);
    void (*release)(void *args);
};

/* MPI_*_init of a call that wisp serves on `c` (AREA; as wisp_coll_view_nb
 * gives it): the next lane of `c`, the request in *request, which holds on
 * entry the MPI's own request for the same call (MPI_REQUEST_NULL where
 * the MPI has none), kept for the case its lane has no room. MPI_SUCCESS;
 * no memory ends the job (every member took this path). */
int wisp_coll_persist_init(struct wisp_coll_comm *c, const struct wisp_coll_persist_ops *ops,
                           void *args, MPI_Request *request);
/* The layer's start and stop: the engine's up-calls; the lanes let go of. */
void wisp_coll_persist_start(void);
void wisp_coll_persist_stop(void);

#pragma GCC visibility pop

#endif
