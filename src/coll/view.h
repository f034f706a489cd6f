/*
 * This process's views of its communicators (view.c): found from a
 * handle, set up at a communicator's first collectives after
 * WISP_COLL_AFTER (an area on one node, area.h; parts on several, hier.h),
 * let go of when the user frees the communicator and at the layer's stop.
 */
#ifndef WISP_COLL_VIEW_H
#define WISP_COLL_VIEW_H

#include <mpi.h>

#include "coll/area.h"
#include "p2p/p2p.h"

#pragma GCC visibility push(hidden)

/* The view of `comm`, ready for a collective: AREA or HIER when wisp serves
 * it, else NULL (the MPI serves this call). Counts the call while the
 * communicator is NEW and sets it up when its time comes (collective: every
 * member calls this for the same collective). */
struct wisp_coll_comm *wisp_coll_view(MPI_Comm comm);
/* The view of `comm`, made if need be, as it is: no call counted, nothing
 * set up (the neighbour collectives, which need no area). NULL without
 * memory or for MPI_COMM_NULL. */
struct wisp_coll_comm *wisp_coll_view_here(MPI_Comm comm);
/* The view of `comm` if its area is set up (AREA), else NULL; no call
 * counted, nothing set up. */
struct wisp_coll_comm *wisp_coll_view_ready(MPI_Comm comm);
/* The view of `comm` where wisp may serve its nonblocking collectives now
 * (nb.h): its area set up, and the engine on (it moves them); else NULL. */
static inline struct wisp_coll_comm *wisp_coll_view_nb(MPI_Comm comm)
{
    return wisp_coll.on && wisp_p2p.on ? wisp_coll_view_ready(comm) : NULL;
}
/* The same for the nonblocking barrier, broadcast, reduce and allreduce,
 * which have a form across nodes (hier.h): also HIER, where the MPI allows
 * the leaders' stage on any thread (`nb`). */
struct wisp_coll_comm *wisp_coll_view_nb_across(MPI_Comm comm);
/* The same as wisp_coll_view, for the collectives that have no
 * hierarchical form: AREA, else NULL. */
static inline struct wisp_coll_comm *wisp_coll_comm_get(MPI_Comm comm)
{
    struct wisp_coll_comm *c = wisp_coll_view(comm);
    return c && c->state == WISP_COLL_AREA ? c : NULL;
}

/* Set up the layer (it hears of the communicators the user frees), and let
 * go of every view, then of the areas still in use (area.c). */
void wisp_coll_views_init(void);
void wisp_coll_views_fini(void);

#pragma GCC visibility pop

#endif
