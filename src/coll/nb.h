/*
 * The nonblocking collectives of a communicator wisp serves on this node
 * (nb.c): MPI_Ibarrier, MPI_Ibcast, MPI_Ireduce, MPI_Iallreduce,
 * MPI_Igather(v), MPI_Iscatter(v), MPI_Iallgather(v), MPI_Ialltoall(v, w),
 * MPI_Ireduce_scatter(_block), MPI_Iscan, MPI_Iexscan; and the rounds of
 * the persistent ones (persist.h), each on a lane of its own, a view whose
 * queue holds that round alone: they match in the order of their inits,
 * not of their starts.
 *
 * Each runs the blocking collective's algorithm, unchanged, on a stack of
 * its own (a coroutine: Boost.Context's switch, src/ult/fcontext.h). Where
 * that algorithm would wait for another member (wisp_coll_wait), the
 * coroutine goes back to whoever moved it, and goes on at the next move.
 * The initiation moves it at once, up to its first wait: this member's
 * contribution is published before MPI_I* returns, so a collective of a few
 * bytes needs nothing more of this member than its completion's look.
 *
 * Moves, always under the engine lock: the initiation; a test or wait of
 * the request (a request of the engine's, form ABOVE, so that it mixes with
 * every other request in MPI_Waitall and the like); every pass of the
 * engine (wisp_p2p_up.above), which every wisp call of the application
 * makes, and so do the rescuer thread while the application is inside
 * another call (an MPI_Comm_dup, a computation) and the progress thread.
 * The algorithms call no MPI function, so the rescuer may move them: a
 * block whose type is not one piece is packed at the start and unpacked
 * by `settle`, both in calls of the user's (an operation waiting for its
 * settle holds back none behind it).
 *
 * Order. A communicator's collectives run one after another, in the order
 * every member started them (MPI's rule): each communicator keeps its
 * operations in a queue, and only the first one moves. A blocking
 * collective on the communicator first moves the queue to its end
 * (wisp_coll_drain), and so does MPI_Comm_free.
 *
 * The routes (barrier.c, bcast.c, reduce.c, gather.c, scatter.c,
 * allgather.c, alltoall.c, reduce_scatter.c, scan.c) decide as the
 * blocking ones do, on what every member passes alike, with
 * more conditions: the communicator's area is set up already (AREA,
 * wisp_coll_view_nb; a nonblocking call never sets one up, since that
 * takes an MPI_Bcast), and the engine is on. Elsewhere the MPI's own
 * MPI_I*; across nodes too, but for the barrier, broadcast, reduce and
 * allreduce, which run in stages where the MPI allows it (hier.h: the
 * leaders' stage calls the MPI's nonblocking collective from whichever
 * thread moves the coroutine). The all-to-alls make every block bytes at the
 * start (alltoall.c), since no member may fall back to the MPI mid-call.
 */
#ifndef WISP_COLL_NB_H
#define WISP_COLL_NB_H

#include <mpi.h>
#include <stdbool.h>

#include "coll/area.h"

#pragma GCC visibility push(hidden)

/* Start a nonblocking collective on `c` (AREA; collective over it, in the
 * same order in every member): `run(c, args)` is its algorithm, run on a
 * stack of its own; `settle(c, args)`, where not NULL, finishes it in the
 * user's call that finds it complete (an MPI error code). The caller
 * counted it served. `args` is malloc's, freed with the operation. The
 * request for the user in *request. MPI_SUCCESS. */
int wisp_coll_nb_begin(struct wisp_coll_comm *c, void (*run)(struct wisp_coll_comm *c, void *args),
                       int (*settle)(struct wisp_coll_comm *c, void *args), void *args,
                       MPI_Request *request);

/* The same, for a round of a persistent collective (persist.h) on its
 * lane `c`: `done(args)`, where not NULL, follows its request's completion
 * instead of free(args); its `settle` may answer WISP_COLL_NB_NOT_YET (a
 * round the MPI's own request runs, persist.c), and is asked again at the
 * user's next call that moves it. */
enum { WISP_COLL_NB_NOT_YET = -1 };
int wisp_coll_nb_round(struct wisp_coll_comm *c, void (*run)(struct wisp_coll_comm *c, void *args),
                       int (*settle)(struct wisp_coll_comm *c, void *args),
                       void (*done)(void *args), void *args, MPI_Request *request);

/* Is a coroutine running on this thread? Its waits go back to its mover
 * (wisp_coll_wait). A call each time (a coroutine may change threads). */
bool wisp_coll_nb_current(void);
/* From a wait inside the running coroutine: back to its mover, until its next move. */
void wisp_coll_nb_yield(void);
/* Inside the running coroutine: its algorithm met `rc` (an MPI error code
 * of the leaders' stage, hier.h), which its request completes with; the
 * first one counts. */
void wisp_coll_nb_error(int rc);
/* Move `c`'s operations (a blocking collective on `c`, or its freeing,
 * waits until they ran: wisp_coll_drain): true once none is left. */
bool wisp_coll_nb_settle(struct wisp_coll_comm *c);
/* The layer's start and stop: the engine's up-calls. */
void wisp_coll_nb_start(void);
void wisp_coll_nb_stop(void);

#pragma GCC visibility pop

#endif
