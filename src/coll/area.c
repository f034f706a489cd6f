/*
 * Communicators' areas in the shared heap: set up at a communicator's first
 * collectives, let go of when the communicator is freed, given back to the
 * heap when no member uses them any more; and waiting for a phase while the
 * engine moves (area.h tells the story; view.c finds a communicator's view).
 */
#include "coll/area.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coll/nb.h"
#include "core/wait.h"
#include "p2p/p2p.h"
#include "shm/heap.h"

struct wisp_coll wisp_coll;

/* Rank 0's areas that members still use after it let go. */
static pthread_mutex_t zombie_lock = PTHREAD_MUTEX_INITIALIZER;
struct zombie {
    struct wisp_coll_shared *shared;
    struct zombie *next;
};
static struct zombie *zombies;

/* ---- letting go -------------------------------------------------------------- */

/* The chunks of a lanes' directory (persist.h): slots, and the next
 * chunk's address; 512 bytes each. */
enum { LANE_SLOTS = 63 };
struct lanes {
    _Atomic uint64_t slot[LANE_SLOTS];
    _Atomic uint64_t next;
};

/* Lock held. Rank 0's areas that no member uses any more go back, with
 * their lanes' directory. */
static void zombies_sweep(void)
{
    for (struct zombie **z = &zombies; *z;) {
        struct zombie *dead = *z;
        if (atomic_load_explicit(&dead->shared->users, memory_order_acquire) == 0) {
            *z = dead->next;
            for (uint64_t d = atomic_load_explicit(&dead->shared->lanes, memory_order_relaxed),
                          next;
                 d && d != WISP_COLL_LANE_NONE; d = next) {
                next = atomic_load_explicit(&((struct lanes *)(uintptr_t)d)->next,
                                            memory_order_relaxed);
                wisp_shm_heap_free((void *)(uintptr_t)d);
            }
            wisp_shm_heap_free(dead->shared);
            free(dead);
        } else {
            z = &dead->next;
        }
    }
}

void wisp_coll_area_leave(struct wisp_coll_comm *c)
{
    if (!c->shared)
        return;
    /* Everything this member read is read: it returned from its last
     * collective on the communicator. */
    struct wisp_coll_shared *shared = c->shared;
    c->shared = NULL;
    atomic_fetch_sub_explicit(&shared->users, 1, memory_order_acq_rel);
    pthread_mutex_lock(&zombie_lock);
    if (c->rank == 0) {
        struct zombie *z = malloc(sizeof *z);
        if (z) {
            z->shared = shared;
            z->next = zombies;
            zombies = z;
        } /* else the area is lost to the heap: no worse than a leak */
    }
    zombies_sweep();
    pthread_mutex_unlock(&zombie_lock);
}

void wisp_coll_area_fini(void)
{
    pthread_mutex_lock(&zombie_lock);
    zombies_sweep();
    /* What members still use goes with the heap at the process's end. */
    while (zombies) {
        struct zombie *z = zombies;
        zombies = z->next;
        free(z);
    }
    pthread_mutex_unlock(&zombie_lock);
}

/* ---- setting up -------------------------------------------------------------- */

/* Rank 0's area for `size` members, or NULL where the heap has no room. */
static struct wisp_coll_shared *area_alloc(int size, uint64_t half)
{
    size_t bytes = sizeof(struct wisp_coll_shared) +
                   (size_t)size * (WISP_COLL_LINES * sizeof(struct wisp_coll_line) + 2 * half);
    pthread_mutex_lock(&zombie_lock);
    zombies_sweep();
    pthread_mutex_unlock(&zombie_lock);
    struct wisp_coll_shared *s = wisp_shm_heap_alloc(bytes, WISP_COLL_LINE, false);
    if (s && !wisp_shm_heap_holds(s, bytes)) {
        wisp_shm_heap_free(s);
        s = NULL;
    }
    if (s) {
        /* Only the header and the lines start at zero: a half is written
         * before it is read, so its pages are touched (made) by its first
         * use, not here (zeroing 2 x 256 KiB took 15 us of a set-up). */
        memset(s, 0, (size_t)((char *)&s->lines[size * WISP_COLL_LINES] - (char *)s));
        atomic_store_explicit(&s->users, size, memory_order_relaxed);
        s->size = size;
        s->half = half;
    }
    return s;
}

enum wisp_coll_state wisp_coll_area_setup(struct wisp_coll_comm *c, bool on_node)
{
    /* The area's address, its halves' bytes, and whether the members span
     * nodes: rank 0's answer decides (a member may fail to look, for
     * memory), and every member joins its broadcast. */
    uint64_t offer[3] = {0, 0, 0};
    if (c->rank == 0 && on_node) {
        uint64_t half = (wisp_coll.stage / 2) & ~(uint64_t)(WISP_COLL_LINE - 1);
        struct wisp_coll_shared *s = area_alloc(c->size, half);
        offer[0] = (uint64_t)(uintptr_t)s;
        offer[1] = s ? half : 0;
    } else if (c->rank == 0) {
        offer[2] = 1;
    }
    PMPI_Bcast(offer, 3, MPI_UINT64_T, 0, c->handle);
    if (offer[2])
        return WISP_COLL_HIER;
    if (!offer[0])
        return WISP_COLL_MPI; /* the heap had no room: the MPI's, never a hang */
    c->shared = (struct wisp_coll_shared *)(uintptr_t)offer[0];
    c->half = offer[1];
    c->stage = (char *)&c->shared->lines[c->size * WISP_COLL_LINES];
    c->phase = 0;
    return WISP_COLL_AREA;
}

/* ---- lanes -------------------------------------------------------------------- */

/* Rank 0's chunk of a directory, or NULL where the heap has no room. */
static struct lanes *lanes_alloc(void)
{
    struct lanes *l = wisp_shm_heap_alloc(sizeof *l, WISP_COLL_LINE, true);
    if (l && !wisp_shm_heap_holds(l, sizeof *l)) {
        wisp_shm_heap_free(l);
        l = NULL;
    }
    return l;
}

/* The slot of every lane past a chunk that has no room: never written. */
static _Atomic uint64_t no_room = WISP_COLL_LANE_NONE;

_Atomic uint64_t *wisp_coll_lane_slot(struct wisp_coll_shared *home, uint64_t k, bool make)
{
    _Atomic uint64_t *link = &home->lanes;
    for (uint64_t chunk = 0;; chunk++) {
        uint64_t at = atomic_load_explicit(link, memory_order_acquire);
        if (!at && make) { /* the first member alone writes the links */
            struct lanes *l = lanes_alloc();
            at = l ? (uint64_t)(uintptr_t)l : WISP_COLL_LANE_NONE;
            atomic_store_explicit(link, at, memory_order_release);
        }
        if (at == WISP_COLL_LANE_NONE)
            return &no_room;
        if (!at)
            return NULL;
        struct lanes *l = (struct lanes *)(uintptr_t)at;
        if (chunk == k / LANE_SLOTS)
            return &l->slot[k % LANE_SLOTS];
        link = &l->next;
    }
}

uint64_t wisp_coll_lane_half(void)
{
    uint64_t half = (wisp_coll.stage / 2) & ~(uint64_t)(WISP_COLL_LINE - 1);
    return half < WISP_COLL_LANE_HALF ? half : WISP_COLL_LANE_HALF;
}

struct wisp_coll_shared *wisp_coll_lane_alloc(int size)
{
    return area_alloc(size, wisp_coll_lane_half());
}

void wisp_coll_lane_attach(struct wisp_coll_comm *lane, struct wisp_coll_shared *s)
{
    lane->shared = s;
    lane->half = s->half;
    lane->stage = (char *)&s->lines[lane->size * WISP_COLL_LINES];
    lane->phase = 0;
    lane->state = WISP_COLL_AREA;
}

void wisp_coll_area_hold(struct wisp_coll_shared *home)
{
    atomic_fetch_add_explicit(&home->users, 1, memory_order_relaxed);
}

void wisp_coll_area_unhold(struct wisp_coll_shared *home)
{
    /* From a coroutine too, the rescuer's: no lock; rank 0 gives the area
     * back at its next sweep. */
    atomic_fetch_sub_explicit(&home->users, 1, memory_order_acq_rel);
}

/* ---- waiting ----------------------------------------------------------------- */

/* One idle round of a wait: every 64th, and every one that yields (a
 * yield's round takes a microsecond or more), a pass of the engine (which
 * asks the MPI for the remote messages of waiting wildcard receives) and a
 * poke of the MPI, which moves only when called: a one-sided operation that
 * another process aims at this one waits for it (rma/rma_contig over Open
 * MPI took 6 times native with a poke every 8192 rounds); the core given
 * away at once where processes outnumber cores, after core/wait.h's spin
 * elsewhere (the member waited for may share this core). */
static void idle(struct wisp_core_wait *w)
{
    unsigned r = w->polls + 1;
    if (r % 64 == 0 || w->yielding) {
        if (wisp_p2p_busy() || wisp_p2p_remote_waiting()) {
            wisp_p2p_lock();
            wisp_p2p_progress();
            wisp_p2p_unlock();
        }
        wisp_p2p_poke();
    }
    if (wisp_core_wait_due(w) || (wisp_coll.sleepy && r > 16))
        wisp_core_wait_yield(w);
    else
        wisp_cpu_relax();
}

/* A wait's round: in a coroutine (nb.h), back to its mover. A coroutine
 * runs only while the engine counts nonblocking operations in flight: the
 * blocking collectives' waits ask no more than that count otherwise. */
static void wait_round(struct wisp_core_wait *w)
{
    if (wisp_p2p_count(&wisp_p2p.above) && wisp_coll_nb_current())
        wisp_coll_nb_yield();
    else
        idle(w);
}

void wisp_coll_wait(struct wisp_coll_comm *c, int member, uint64_t phase)
{
    struct wisp_core_wait w = WISP_CORE_WAIT_INIT;
    while (!wisp_coll_reached(c, member, phase))
        wait_round(&w);
    wisp_core_wait_end(&w);
}

void wisp_coll_wait_for(bool (*ready)(void *arg), void *arg)
{
    struct wisp_core_wait w = WISP_CORE_WAIT_INIT;
    while (!ready(arg))
        wait_round(&w);
    wisp_core_wait_end(&w);
}

void wisp_coll_wait_all(struct wisp_coll_comm *c, uint64_t phase)
{
    struct wisp_core_wait w = WISP_CORE_WAIT_INIT;
    for (int m = 0; m < c->size; m++)
        while (m != c->rank && !wisp_coll_reached(c, m, phase))
            wait_round(&w);
    wisp_core_wait_end(&w);
}

void wisp_coll_drain(struct wisp_coll_comm *c)
{
    struct wisp_core_wait w = WISP_CORE_WAIT_INIT;
    while (!wisp_coll_nb_settle(c))
        idle(&w);
    wisp_core_wait_end(&w);
}
