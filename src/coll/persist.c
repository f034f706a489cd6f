/*
 * MPI-4's persistent collectives through lanes of their own (persist.h
 * tells the story).
 *
 * A request's states, under the engine lock:
 *
 *   inactive  between rounds (or never started); `active` false
 *   active    a round on the lane's queue (nb.c), until its request
 *             completed (round_done)
 *   freed     the user freed it: gone at once where inactive, else on the
 *             dead list once the round ran, gone at the next call here
 *             (the round's completion is inside nb.c's queue walk, which
 *             still looks at the lane)
 *
 * And its lane's: not found yet (`lane.shared` NULL, `none` false), found
 * (`lane.shared`), or none (`none`: the first member found no room for it;
 * every round is the MPI's request `backup`, started and tested in the
 * user's calls through the round's settle; `backup_on` while one runs).
 */
#include "coll/persist.h"

#include <stdlib.h>

#include "coll/nb.h"
#include "core/log.h"
#include "p2p/lock.h"
#include "p2p/p2p.h"

struct wisp_coll_persist {
    struct wisp_coll_comm lane;    /* its view: its phases, its area once found */
    struct wisp_coll_shared *home; /* its communicator's area, held until the lane is found */
    uint64_t k;                    /* its lane's number */
    const struct wisp_coll_persist_ops *ops;
    void *args;
    MPI_Request backup; /* the MPI's own persistent request, or MPI_REQUEST_NULL */
    bool active, freed, none, backup_on;
    struct wisp_coll_persist *prev, *next; /* `live`, or `dead` */
};

/* Under the engine lock: the requests not freed yet, and those freed
 * whose last round has run since. */
static struct wisp_coll_persist *live, *dead;

static void unlink_live(struct wisp_coll_persist *p)
{
    if (p->prev)
        p->prev->next = p->next;
    else
        live = p->next;
    if (p->next)
        p->next->prev = p->prev;
    p->prev = p->next = NULL;
}

/* Lock held; `p` is off both lists, and no round of it in flight. */
static void destroy(struct wisp_coll_persist *p)
{
    if (p->home)
        wisp_coll_area_unhold(p->home);
    wisp_coll_area_leave(&p->lane); /* nothing where it never found its lane */
    if (p->backup != MPI_REQUEST_NULL)
        PMPI_Request_free(&p->backup);
    if (p->ops->release)
        p->ops->release(p->args);
    else
        free(p->args);
    free(p);
}

static void reap(void)
{
    while (dead) {
        struct wisp_coll_persist *p = dead;
        dead = p->next;
        destroy(p);
    }
}

/* ---- the lane ---------------------------------------------------------------- */

/* The lane has none (lock held): every round is the MPI's request. */
static void lane_none(struct wisp_coll_persist *p)
{
    p->none = true;
    wisp_coll_count(&wisp_coll.no_room);
    wisp_coll_area_unhold(p->home);
    p->home = NULL;
}

/* The first member, at its first start (lock held): the lane's area, its
 * address in the directory; or, where the heap has no room for it (or for
 * the directory's chunk), WISP_COLL_LANE_NONE there, and the lane has none
 * (the others learn it at their first start, area.h). */
static void lane_make(struct wisp_coll_persist *p)
{
    _Atomic uint64_t *slot = wisp_coll_lane_slot(p->home, p->k, true);
    bool chunk = atomic_load_explicit(slot, memory_order_relaxed) != WISP_COLL_LANE_NONE;
    struct wisp_coll_shared *s = chunk ? wisp_coll_lane_alloc(p->lane.size) : NULL;
    if (!s) {
        if (chunk)
            atomic_store_explicit(slot, WISP_COLL_LANE_NONE, memory_order_release);
        lane_none(p);
        return;
    }
    wisp_coll_lane_attach(&p->lane, s);
    atomic_store_explicit(slot, (uint64_t)(uintptr_t)s, memory_order_release);
    wisp_coll_area_unhold(p->home);
    p->home = NULL;
}

static bool published(void *arg)
{
    struct wisp_coll_persist *p = arg;
    _Atomic uint64_t *slot = wisp_coll_lane_slot(p->home, p->k, false);
    return slot && atomic_load_explicit(slot, memory_order_acquire);
}

/* Another member, in its first round's coroutine: the lane the first
 * member made (waiting for it), or none. */
static void lane_find(struct wisp_coll_persist *p)
{
    wisp_coll_wait_for(published, p);
    uint64_t at =
        atomic_load_explicit(wisp_coll_lane_slot(p->home, p->k, false), memory_order_acquire);
    if (at == WISP_COLL_LANE_NONE) {
        lane_none(p);
        return;
    }
    wisp_coll_lane_attach(&p->lane, (struct wisp_coll_shared *)(uintptr_t)at);
    wisp_coll_area_unhold(p->home);
    p->home = NULL;
}

/* ---- rounds ------------------------------------------------------------------- */

static void round_run(struct wisp_coll_comm *lane, void *arg)
{
    struct wisp_coll_persist *p = arg;
    if (!p->none && !lane->shared)
        lane_find(p);
    if (!p->none)
        p->ops->run(lane, p->args);
}

/* A round of a lane that has none (lock held, a call of the user's): the
 * MPI's request started, then tested until it completed. */
static int backup_settle(struct wisp_coll_persist *p)
{
    if (p->backup == MPI_REQUEST_NULL) {
        wisp_log_error("a persistent collective: no room in the shared heap for its lane "
                       "(WISP_HEAP_SIZE, WISP_COLL_STAGE), and the MPI made no request of its own");
        PMPI_Abort(p->lane.handle, 1);
    }
    int rc, done = 0;
    if (!p->backup_on) {
        if ((rc = PMPI_Start(&p->backup)) != MPI_SUCCESS)
            return rc;
        p->backup_on = true;
    }
    rc = PMPI_Test(&p->backup, &done, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS && !done)
        return WISP_COLL_NB_NOT_YET;
    p->backup_on = false;
    return rc;
}

static int round_settle(struct wisp_coll_comm *lane, void *arg)
{
    struct wisp_coll_persist *p = arg;
    if (p->none)
        return backup_settle(p);
    return p->ops->settle ? p->ops->settle(lane, p->args) : MPI_SUCCESS;
}

/* Lock held: the round's request completed. */
static void round_done(void *arg)
{
    struct wisp_coll_persist *p = arg;
    p->active = false;
    if (p->freed) {
        p->next = dead;
        dead = p;
    }
}

/* wisp_p2p_up.above_start: MPI_Start of an inactive request of ours. */
static int start(void *above, MPI_Request *round)
{
    struct wisp_coll_persist *p = above;
    wisp_p2p_lock();
    reap();
    if (!p->lane.shared && !p->none && p->lane.rank == 0)
        lane_make(p);
    wisp_p2p_unlock();
    /* Only this member's rounds change `none` and `lane.shared`, and none
     * is in flight. */
    wisp_coll_count(p->none ? &wisp_coll.passed : &wisp_coll.served);
    if (p->ops->begin && !p->none) {
        int rc = p->ops->begin(&p->lane, p->args);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    /* A lane known to have none: the MPI's request starts here, as it
     * would natively (a member that learns it in its first round starts
     * it at that round's settle, backup_settle). */
    if (p->none && p->backup != MPI_REQUEST_NULL) {
        int rc = PMPI_Start(&p->backup);
        if (rc != MPI_SUCCESS)
            return rc;
        p->backup_on = true;
    }
    wisp_p2p_lock();
    p->active = true;
    wisp_p2p_unlock();
    /* A round whose lane is not found yet may turn out to have none: it
     * settles in the user's call (backup_settle). */
    bool settles = p->none || !p->lane.shared || p->ops->settle;
    return wisp_coll_nb_round(&p->lane, round_run, settles ? round_settle : NULL, round_done, p,
                              round);
}

/* wisp_p2p_up.above_free (lock held): the user frees it. */
static void request_free(void *above)
{
    struct wisp_coll_persist *p = above;
    reap();
    unlink_live(p);
    p->freed = true;
    if (!p->active)
        destroy(p);
}

int wisp_coll_persist_init(struct wisp_coll_comm *c, const struct wisp_coll_persist_ops *ops,
                           void *args, MPI_Request *request)
{
    struct wisp_coll_persist *p = calloc(1, sizeof *p);
    if (!p) {
        wisp_log_error("a persistent collective: no memory");
        PMPI_Abort(c->handle, 1);
    }
    p->lane.handle = c->handle;
    p->lane.rank = c->rank;
    p->lane.size = c->size;
    p->lane.state = WISP_COLL_AREA;
    p->home = c->shared;
    p->ops = ops;
    p->args = args;
    p->backup = *request; /* the MPI's own, made by the caller */
    wisp_coll_area_hold(p->home);
    wisp_p2p_lock();
    reap();
    p->k = c->lanes++;
    p->next = live;
    if (live)
        live->prev = p;
    live = p;
    wisp_p2p_above_persistent(p, c->handle, request);
    wisp_p2p_unlock();
    return MPI_SUCCESS;
}

/* ---- start and stop ----------------------------------------------------------- */

void wisp_coll_persist_start(void)
{
    wisp_p2p_up.above_start = start;
    wisp_p2p_up.above_free = request_free;
}

/* After the stop: the requests are gone with the layer (MPI_Start and
 * MPI_Request_free after MPI_Finalize are erroneous). */
static int start_stopped(void *above, MPI_Request *round)
{
    (void)above;
    (void)round;
    return MPI_ERR_REQUEST;
}

static void free_stopped(void *above)
{
    (void)above;
}

void wisp_coll_persist_stop(void)
{
    /* The requests the user did not free let go of their lanes; a round
     * still in flight at MPI_Finalize belongs to an erroneous program: its
     * request is left as it is. */
    wisp_p2p_lock();
    reap();
    for (struct wisp_coll_persist *p = live, *next; p; p = next) {
        next = p->next;
        if (p->active)
            continue;
        unlink_live(p);
        destroy(p);
    }
    wisp_p2p_up.above_start = start_stopped;
    wisp_p2p_up.above_free = free_stopped;
    wisp_p2p_unlock();
}
