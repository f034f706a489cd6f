/*
 * Communicators' areas in the shared heap: found from a handle, set up at
 * a communicator's first collectives, freed with it; and waiting for a
 * phase while the engine moves (area.h tells the story).
 */
#include "coll/area.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/log.h"
#include "core/topo.h"
#include "core/world.h"
#include "p2p/p2p.h"
#include "shm/heap.h"

struct wisp_coll wisp_coll;

/* The views of this process's communicators, found by their handle (the
 * user's MPI_Comm_free lets go of one, the stop of the rest), and the areas
 * of rank 0 that members still use after it let go. No attribute: a keyval
 * of wisp's would shift the numbers of the user's keyvals. */
static pthread_mutex_t list_lock = PTHREAD_MUTEX_INITIALIZER;
static struct wisp_coll_comm *views;
struct zombie {
    struct wisp_coll_shared *shared;
    struct zombie *next;
};
static struct zombie *zombies;

/* The view found last by this thread; `gen` changes whenever a view is let
 * go of, since the MPI may give its handle to the next communicator. */
static _Atomic unsigned gen;
static _Thread_local struct {
    MPI_Comm handle;
    struct wisp_coll_comm *view;
    unsigned gen;
} last;

/* ---- letting go -------------------------------------------------------------- */

/* Lock held. Rank 0's areas that no member uses any more go back. */
static void zombies_sweep(void)
{
    for (struct zombie **z = &zombies; *z;) {
        struct zombie *dead = *z;
        if (atomic_load_explicit(&dead->shared->users, memory_order_acquire) == 0) {
            *z = dead->next;
            wisp_shm_heap_free(dead->shared);
            free(dead);
        } else {
            z = &dead->next;
        }
    }
}

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
    if (c->shared) {
        /* Everything this member read is read: it returned from its last
         * collective on the communicator. */
        struct wisp_coll_shared *shared = c->shared;
        bool owner = c->rank == 0;
        atomic_fetch_sub_explicit(&shared->users, 1, memory_order_acq_rel);
        if (owner) {
            struct zombie *z = malloc(sizeof *z);
            if (z) {
                z->shared = shared;
                z->next = zombies;
                zombies = z;
            } /* else the area is lost to the heap: no worse than a leak */
        }
        zombies_sweep();
    }
    pthread_mutex_unlock(&list_lock);
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
    if (c)
        view_free(c);
}

void wisp_coll_area_init(void)
{
    wisp_p2p_comm_up.freeing = comm_freeing;
}

void wisp_coll_area_fini(void)
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
    pthread_mutex_lock(&list_lock);
    zombies_sweep();
    /* What members still use goes with the heap at the process's end. */
    while (zombies) {
        struct zombie *z = zombies;
        zombies = z->next;
        free(z);
    }
    pthread_mutex_unlock(&list_lock);
    atomic_fetch_add_explicit(&gen, 1, memory_order_release);
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

/* Collective over the communicator, which is NEW: AREA or MPI, alike in
 * every member. */
static void setup(struct wisp_coll_comm *c)
{
    int inter = 1;
    PMPI_Comm_test_inter(c->handle, &inter);
    if (inter || c->size == 1) { /* alike in every member */
        c->state = WISP_COLL_MPI;
        return;
    }
    /* Whether the members share this node is alike everywhere too, but
     * rank 0's answer decides (a member may fail to look, for memory), and
     * every member joins its broadcast. */
    uint64_t offer[2] = {0, 0}; /* the area's address, its halves' bytes */
    if (c->rank == 0 && all_on_node(c)) {
        uint64_t half = (wisp_coll.stage / 2) & ~(uint64_t)(WISP_COLL_LINE - 1);
        size_t bytes =
            sizeof(struct wisp_coll_shared) +
            (size_t)c->size * (WISP_COLL_LINES * sizeof(struct wisp_coll_line) + 2 * half);
        pthread_mutex_lock(&list_lock);
        zombies_sweep();
        pthread_mutex_unlock(&list_lock);
        struct wisp_coll_shared *s = wisp_shm_heap_alloc(bytes, WISP_COLL_LINE, true);
        if (s && !wisp_shm_heap_holds(s, bytes)) {
            wisp_shm_heap_free(s);
            s = NULL;
        }
        if (s) {
            atomic_store_explicit(&s->users, c->size, memory_order_relaxed);
            s->size = c->size;
            s->half = half;
            offer[0] = (uint64_t)(uintptr_t)s;
            offer[1] = half;
        }
    }
    /* Inside the user's collective, which would have lent the waiting
     * wildcard receives to the MPI: the same around this one. */
    bool lent = wisp_p2p_lend();
    PMPI_Bcast(offer, 2, MPI_UINT64_T, 0, c->handle);
    if (lent)
        wisp_p2p_reclaim();
    if (!offer[0]) {
        c->state = WISP_COLL_MPI; /* the heap had no room: the MPI's, never a hang */
        return;
    }
    c->shared = (struct wisp_coll_shared *)(uintptr_t)offer[0];
    c->half = offer[1];
    c->stage = (char *)&c->shared->lines[c->size * WISP_COLL_LINES];
    c->phase = 0;
    c->state = WISP_COLL_AREA;
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

struct wisp_coll_comm *wisp_coll_comm_get(MPI_Comm comm)
{
    struct wisp_coll_comm *c;
    unsigned now = atomic_load_explicit(&gen, memory_order_acquire);
    if (last.handle == comm && last.gen == now && last.view) {
        c = last.view;
    } else {
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
    }
    if (c->state == WISP_COLL_AREA)
        return c;
    if (c->state == WISP_COLL_MPI)
        return NULL;
    if (c->calls < wisp_coll.after) {
        c->calls++;
        return NULL;
    }
    setup(c);
    return c->state == WISP_COLL_AREA ? c : NULL;
}

/* ---- waiting ----------------------------------------------------------------- */

/* One idle round of a wait: every 64th a pass of the engine (which asks
 * the MPI for the remote messages of waiting wildcard receives) and a poke
 * of the MPI, which moves only when called: a one-sided operation that
 * another process aims at this one waits for it (rma/rma_contig over Open
 * MPI took 6 times native with a poke every 8192 rounds); the core given
 * away at once where processes outnumber cores, now and then after a long
 * spin elsewhere. */
static void idle(unsigned *rounds)
{
    unsigned r = ++*rounds;
    if (r % 64 == 0) {
        if (wisp_p2p_busy() || wisp_p2p_remote_waiting()) {
            wisp_p2p_lock();
            wisp_p2p_progress();
            wisp_p2p_unlock();
        }
        wisp_p2p_poke();
    }
    if ((wisp_coll.sleepy && r > 16) || (r > (1u << 14) && r % 16 == 0))
        sched_yield();
    else
        wisp_cpu_relax();
}

void wisp_coll_wait(struct wisp_coll_comm *c, int member, uint64_t phase)
{
    unsigned rounds = 0;
    while (!wisp_coll_reached(c, member, phase))
        idle(&rounds);
}

void wisp_coll_wait_all(struct wisp_coll_comm *c, uint64_t phase)
{
    unsigned rounds = 0;
    for (int m = 0; m < c->size; m++)
        while (m != c->rank && !wisp_coll_reached(c, m, phase))
            idle(&rounds);
}
