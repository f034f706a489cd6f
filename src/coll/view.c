/*
 * This process's views of its communicators (view.h): a list found by
 * handle, with a per-thread cache of the last one found.
 */
#include "coll/view.h"

#include <pthread.h>
#include <stdlib.h>

#include "coll/area.h"
#include "coll/hier.h"
#include "coll/topo.h"
#include "core/topo.h"
#include "core/world.h"
#include "p2p/p2p.h"

/* The views, found by their handle. No attribute: a keyval of wisp's would
 * shift the numbers of the user's keyvals. */
static pthread_mutex_t list_lock = PTHREAD_MUTEX_INITIALIZER;
static struct wisp_coll_comm *views;

/* The view found last by this thread; `gen` changes whenever a view is let
 * go of, since the MPI may give its handle to the next communicator. */
static _Atomic unsigned gen;
static _Thread_local struct {
    MPI_Comm handle;
    struct wisp_coll_comm *view;
    unsigned gen;
} last;

/* ---- letting go -------------------------------------------------------------- */

static void view_free(struct wisp_coll_comm *c)
{
    atomic_fetch_add_explicit(&gen, 1, memory_order_release);
    pthread_mutex_lock(&list_lock);
    if (c->prev)
        c->prev->next = c->next;
    else if (views == c)
        views = c->next;
    if (c->next)
        c->next->prev = c->prev;
    pthread_mutex_unlock(&list_lock);
    if (c->hier)
        wisp_coll_hier_free(c->hier);
    wisp_coll_neighbors_free(c->neighbors);
    wisp_coll_area_leave(c);
    free(c);
}

/* Lock held. The view of `comm`, or NULL. */
static struct wisp_coll_comm *view_find(MPI_Comm comm)
{
    for (struct wisp_coll_comm *c = views; c; c = c->next)
        if (c->handle == comm)
            return c;
    return NULL;
}

/* The user frees `comm` (wisp_p2p_comm_up.freeing): the MPI may give its
 * handle to the next communicator. */
static void comm_freeing(MPI_Comm comm)
{
    pthread_mutex_lock(&list_lock);
    struct wisp_coll_comm *c = view_find(comm);
    pthread_mutex_unlock(&list_lock);
    if (!c)
        return;
    if (c->nb_first) /* MPI_Comm_free with collectives in flight: they finish first */
        wisp_coll_drain(c);
    view_free(c);
}

void wisp_coll_views_init(void)
{
    wisp_p2p_comm_up.freeing = comm_freeing;
}

void wisp_coll_views_fini(void)
{
    wisp_p2p_comm_up.freeing = NULL;
    for (;;) {
        pthread_mutex_lock(&list_lock);
        struct wisp_coll_comm *c = views;
        pthread_mutex_unlock(&list_lock);
        if (!c)
            break;
        view_free(c); /* takes it off the list */
    }
    atomic_fetch_add_explicit(&gen, 1, memory_order_release);
    wisp_coll_area_fini();
}

/* ---- setting up -------------------------------------------------------------- */

/* Are all members of `c` on this (virtual) node? Collective over nothing:
 * every member finds the same answer, as they share the node or not. */
static bool all_on_node(struct wisp_coll_comm *c)
{
    if (wisp_topo.node_rank < 0 || c->size > wisp_topo.node_size)
        return false;
    int *ranks = malloc(sizeof(int) * (size_t)c->size * 2);
    if (!ranks)
        return false; /* the same answer everywhere is needed: see setup() */
    int *world = ranks + c->size;
    for (int r = 0; r < c->size; r++)
        ranks[r] = r;
    MPI_Group group, world_group;
    PMPI_Comm_group(c->handle, &group);
    PMPI_Comm_group(wisp_core_user_world, &world_group);
    PMPI_Group_translate_ranks(group, c->size, ranks, world_group, world);
    PMPI_Group_free(&group);
    PMPI_Group_free(&world_group);
    bool all = true;
    for (int r = 0; r < c->size && all; r++) {
        bool here = false;
        for (int p = 0; p < wisp_topo.node_size && !here; p++)
            here = world[r] != MPI_UNDEFINED && wisp_topo.node_peers[p] == world[r];
        all = here;
    }
    free(ranks);
    return all;
}

/* Collective over the communicator, which is NEW: AREA, HIER or MPI, alike
 * in every member. */
static void setup(struct wisp_coll_comm *c)
{
    int inter = 1;
    PMPI_Comm_test_inter(c->handle, &inter);
    if (inter || c->size == 1) { /* alike in every member */
        c->state = WISP_COLL_MPI;
        return;
    }
    /* Inside the user's collective, which would have lent the waiting
     * wildcard receives to the MPI: the same around the set-up's. */
    bool lent = wisp_p2p_lend();
    c->state = wisp_coll_area_setup(c, c->rank == 0 && all_on_node(c));
    if (c->state == WISP_COLL_HIER)
        c->state = wisp_coll_hier_setup(c);
    if (lent)
        wisp_p2p_reclaim();
}

static struct wisp_coll_comm *view_make(MPI_Comm comm)
{
    struct wisp_coll_comm *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->handle = comm;
    c->state = WISP_COLL_NEW;
    if (PMPI_Comm_rank(comm, &c->rank) != MPI_SUCCESS ||
        PMPI_Comm_size(comm, &c->size) != MPI_SUCCESS) {
        free(c); /* not a communicator: the MPI says so in the call */
        return NULL;
    }
    pthread_mutex_lock(&list_lock);
    c->next = views;
    if (views)
        views->prev = c;
    views = c;
    pthread_mutex_unlock(&list_lock);
    return c;
}

struct wisp_coll_comm *wisp_coll_view_here(MPI_Comm comm)
{
    struct wisp_coll_comm *c;
    unsigned now = atomic_load_explicit(&gen, memory_order_acquire);
    if (last.handle == comm && last.gen == now && last.view)
        return last.view;
    if (comm == MPI_COMM_NULL)
        return NULL;
    pthread_mutex_lock(&list_lock);
    c = view_find(comm);
    pthread_mutex_unlock(&list_lock);
    if (!c)
        c = view_make(comm);
    if (!c)
        return NULL; /* no memory for a view: docs/coll.md, "Limits" */
    last.handle = comm;
    last.view = c;
    last.gen = now;
    return c;
}

struct wisp_coll_comm *wisp_coll_view(MPI_Comm comm)
{
    struct wisp_coll_comm *c = wisp_coll_view_here(comm);
    if (!c)
        return NULL;
    if (c->state == WISP_COLL_AREA || c->state == WISP_COLL_HIER) {
        if (c->nb_first)
            wisp_coll_drain(c);
        return c;
    }
    if (c->state == WISP_COLL_MPI)
        return NULL;
    if (c->calls < wisp_coll.after) {
        c->calls++;
        return NULL;
    }
    setup(c);
    return c->state == WISP_COLL_MPI ? NULL : c;
}

struct wisp_coll_comm *wisp_coll_view_ready(MPI_Comm comm)
{
    struct wisp_coll_comm *c = wisp_coll_view_here(comm);
    return c && c->state == WISP_COLL_AREA ? c : NULL;
}

struct wisp_coll_comm *wisp_coll_view_nb_across(MPI_Comm comm)
{
    if (!wisp_coll.on || !wisp_p2p.on)
        return NULL;
    struct wisp_coll_comm *c = wisp_coll_view_here(comm);
    if (!c)
        return NULL;
    /* Across nodes only under WISP_COLL=on: the stages measured slower than
     * the MPI's own at 8 B on a quiet node (docs/coll.md). */
    if (c->state == WISP_COLL_AREA || (c->state == WISP_COLL_HIER && c->hier->nb && wisp_coll.all))
        return c;
    return NULL;
}
