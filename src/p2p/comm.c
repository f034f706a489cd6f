/*
 * Served communicators. Each gets a context number at creation: every
 * member offers the numbers it has free and one allreduce (bitwise and)
 * picks the lowest free everywhere, so a message's context names the same
 * communicator in sender and receiver. Intercommunicators and
 * communicators made without a collective wisp sees (MPI_Comm_idup) are
 * not served: all their traffic goes to the MPI, in every member alike; so
 * are those with no two members on one node (serve()).
 */
#include "p2p/comm.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/log.h"
#include "core/topo.h"
#include "core/world.h"
#include "core/wrapper.h"
#include "p2p/contexts.h"
#include "p2p/recv.h"
#include "p2p/lock.h"
#include "p2p/match.h"
#include "p2p/send.h"
#include "p2p/state.h"

enum { CONTEXTS = WISP_P2P_CONTEXTS, WORDS = CONTEXTS / 64, BUCKETS = 1024 };

struct entry {
    struct entry *next;
    struct entry *freed_next; /* in `freed` */
    struct wisp_p2p_comm comm;
};

static bool agreeing; /* the whole job takes part in context agreement */

static uint64_t free_ctx[WORDS];
static struct entry *buckets[BUCKETS];
static struct entry *freed; /* freed by the application, still used by wisp */

static size_t bucket_of(MPI_Comm handle)
{
    return (size_t)(((uintptr_t)handle * 0x9e3779b97f4a7c15u) >> 54) % BUCKETS;
}

struct wisp_p2p_comm_cache wisp_p2p_comm_cache = {NULL, MPI_COMM_NULL};

struct wisp_p2p_comm *wisp_p2p_comm_lookup(MPI_Comm handle)
{
    if (!wisp_p2p.on)
        return NULL;
    for (struct entry *e = buckets[bucket_of(handle)]; e; e = e->next)
        if (e->comm.handle == handle)
            return wisp_p2p_comm_cache.last = &e->comm;
    wisp_p2p_comm_cache.unserved = handle;
    return NULL;
}

bool wisp_p2p_serves(MPI_Comm comm)
{
    if (!wisp_p2p.on)
        return false;
    wisp_p2p_lock();
    bool served = wisp_p2p_comm_of(comm) != NULL;
    wisp_p2p_unlock();
    return served;
}

/* The messages that came before `c` was served, in the order they came. */
static void deliver_early(struct wisp_p2p_comm *c)
{
    struct wisp_list *early = wisp_p2p_comm_early();
    for (struct wisp_list *l = early->next, *next; l != early; l = next) {
        next = l->next;
        struct wisp_p2p_msg *msg = wisp_list_entry(l, struct wisp_p2p_msg, link);
        if (msg->ctx != c->ctx)
            continue;
        wisp_list_remove(&msg->link);
        msg->source = c->rank_of[msg->from];
        wisp_p2p_incoming(c, msg);
    }
}

static int lowest_free(const uint64_t *mask)
{
    for (int w = 0; w < WORDS; w++)
        if (mask[w])
            return w * 64 + __builtin_ctzll(mask[w]);
    return -1;
}

static void take(int ctx)
{
    free_ctx[ctx / 64] &= ~(1ull << (ctx % 64));
}

/* Serve `handle` with the agreed `ctx`, if another member lives on this
 * node. Without one wisp would carry only messages to self, yet every
 * wildcard receive would cost matched probes and every poll a pass of the
 * engine: the MPI keeps such a communicator whole (MPI_COMM_SELF, every
 * communicator under WISP_VNODE_SIZE=1), as each member on this node alike
 * decides. */
static int serve(MPI_Comm handle, int ctx)
{
    struct entry *e = calloc(1, sizeof *e);
    if (!e)
        return MPI_ERR_NO_MEM;
    struct wisp_p2p_comm *c = &e->comm;
    c->handle = handle;
    c->ctx = ctx;
    c->anchor = MPI_REQUEST_NULL;
    PMPI_Comm_rank(handle, &c->rank);
    PMPI_Comm_size(handle, &c->size);
    c->node_of = malloc(sizeof(int) * (size_t)c->size * 2);
    c->rank_of = malloc(sizeof(int) * (size_t)wisp_p2p.node_size);
    if (!c->node_of || !c->rank_of) {
        free(c->node_of);
        free(c->rank_of);
        free(e);
        return MPI_ERR_NO_MEM;
    }
    /* Comm ranks -> ranks of the application's world -> node ranks. */
    int *ranks = c->node_of + c->size, *world = c->node_of;
    for (int r = 0; r < c->size; r++)
        ranks[r] = r;
    MPI_Group group, world_group;
    PMPI_Comm_group(handle, &group);
    PMPI_Comm_group(wisp_core_user_world, &world_group);
    PMPI_Group_translate_ranks(group, c->size, ranks, world_group, world);
    PMPI_Group_free(&group);
    PMPI_Group_free(&world_group);
    for (int p = 0; p < wisp_p2p.node_size; p++)
        c->rank_of[p] = -1;
    int locals = 0;
    for (int r = 0; r < c->size; r++) {
        int node = -1;
        for (int p = 0; p < wisp_p2p.node_size && world[r] != MPI_UNDEFINED; p++)
            if (wisp_topo.node_peers[p] == world[r])
                node = p;
        c->node_of[r] = node;
        if (node >= 0) {
            c->rank_of[node] = r;
            locals++;
        } else {
            c->has_remote = true;
        }
    }
    if (locals < 2) { /* no peer on this node: nothing for wisp to carry */
        free(c->node_of);
        free(c->rank_of);
        free(e);
        return MPI_SUCCESS;
    }
    wisp_list_init(&c->posted);
    wisp_list_init(&c->unexpected);
    wisp_list_init(&c->remote);
    wisp_list_init(&c->remote_link);
    wisp_core_begin(WISP_CORE_SERVED);          /* sends, receives and probes look from now on */
    if (wisp_p2p_comm_cache.unserved == handle) /* a handle the MPI used before */
        wisp_p2p_comm_cache.unserved = MPI_COMM_NULL;
    size_t b = bucket_of(handle);
    e->next = buckets[b];
    buckets[b] = e;
    wisp_p2p_comm_set_ctx(ctx, c);
    deliver_early(c);
    return MPI_SUCCESS;
}

/*
 * Contexts offered to a communicator being created are reserved until its
 * agreement ends, so that one created at the same time by another thread
 * (on another parent, as MPI allows) cannot agree on the same number.
 *
 * The first round is eager: each agreement offers the lowest word of
 * contexts (64) that no other one holds, so that threads creating
 * communicators in the same order everywhere each find a context at once
 * (4 threads duplicating communicators: 11 times slower than the MPI alone
 * when each retried). When offers crossed (two threads that took their
 * words in opposite orders in two processes), the later rounds are
 * ordered, as MPICH allocates its context ids: the agreements of a process
 * queue by a key that is the same in every member, and only the first one
 * queued, while no other holds them, offers every free context; the others
 * offer none. The one with the lowest key in the whole job is first in
 * every member's queue, so once the rounds that held them before are
 * over it holds every member's contexts and ends; then the next. Random
 * pauses alone did not converge with 3 or more processes of 4 threads
 * each (MPICH's threads/comm/comm_create_group_threads: no end after
 * 300 s).
 *
 * An offer is WORDS words of contexts, a word that is all ones when it holds
 * back nothing free (so that an empty result with it means every context is
 * used, not a clash) and, in the first round, the key: the new
 * communicator's rank 0 gives it (its count of agreements and its world
 * rank: no two agreements have the same), the others all ones.
 */
enum { ALL_OFFERED = WORDS, KEY, OFFER };

struct waiter {
    uint64_t key;
    struct waiter *next;
};

static uint64_t reserved[WORDS];
static struct waiter *queue; /* agreements past their first round, by key */
static bool held;            /* the first of them offers every free context */
static uint32_t agreements;  /* begun here, for the keys */

/* Offers in `mask` the first `words` words with contexts free and not
 * reserved, and reserves them. */
static void offer(uint64_t mask[OFFER], int words)
{
    bool held_back = false;
    for (int w = 0, offered = 0; w < WORDS; w++) {
        uint64_t open = free_ctx[w] & ~reserved[w];
        mask[w] = offered < words ? open : 0;
        offered += mask[w] != 0;
        held_back |= (free_ctx[w] & ~mask[w]) != 0;
        reserved[w] |= mask[w];
    }
    mask[ALL_OFFERED] = held_back ? 0 : ~0ull;
}

static void withdraw(const uint64_t mask[OFFER])
{
    for (int w = 0; w < WORDS; w++)
        reserved[w] &= ~mask[w];
}

static void enqueue(struct waiter *me)
{
    struct waiter **at = &queue;
    while (*at && (*at)->key < me->key)
        at = &(*at)->next;
    me->next = *at;
    *at = me;
}

static void dequeue(struct waiter *me)
{
    for (struct waiter **at = &queue; *at; at = &(*at)->next)
        if (*at == me) {
            *at = me->next;
            return;
        }
}

static void pause_before_retry(int attempt, unsigned *seed)
{
    int range_us = 1 << (attempt < 10 ? attempt : 10);
    long ns = (long)(rand_r(seed) % range_us) * 1000;
    nanosleep(&(struct timespec){0, ns}, NULL);
}

/* Agree with the other members of `comm` on a context: -1 when none is
 * free in all of them, -2 after an MPI error (in *rc). Lock not held. */
static int agree(MPI_Comm comm, int *rc)
{
    unsigned seed = (unsigned)(uintptr_t)pthread_self() ^ (unsigned)wisp_topo.world_rank;
    int rank;
    PMPI_Comm_rank(comm, &rank);
    struct waiter me = {0, NULL};
    for (int attempt = 0;; attempt++) {
        uint64_t mine[OFFER], common[OFFER];
        bool own = false;
        wisp_p2p_lock();
        if (attempt == 0) {
            offer(mine, 1);
            mine[KEY] =
                rank == 0 ? (uint64_t)agreements << 32 | (uint32_t)wisp_topo.world_rank : ~0ull;
            agreements++;
        } else {
            own = queue == &me && !held;
            held |= own;
            offer(mine, own ? WORDS : 0);
            mine[KEY] = ~0ull;
        }
        wisp_p2p_unlock();
        memcpy(common, mine, sizeof common);
        *rc = PMPI_Allreduce(MPI_IN_PLACE, common, OFFER, MPI_UINT64_T, MPI_BAND, comm);
        int ctx = *rc == MPI_SUCCESS ? lowest_free(common) : -2;
        bool done = ctx >= 0 || ctx == -2 || common[ALL_OFFERED];
        wisp_p2p_lock();
        withdraw(mine);
        if (own)
            held = false;
        if (ctx >= 0)
            take(ctx); /* in every member: the context is used, served or not */
        if (attempt == 0 && !done) {
            me.key = common[KEY];
            enqueue(&me);
        } else if (attempt > 0 && done) {
            dequeue(&me);
        }
        wisp_p2p_unlock();
        if (done)
            return ctx;
        pause_before_retry(attempt, &seed);
    }
}

int wisp_p2p_comm_created(MPI_Comm comm)
{
    if (!agreeing || comm == MPI_COMM_NULL)
        return MPI_SUCCESS;
    int inter = 0;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter)
        return MPI_SUCCESS;
    int rc = MPI_SUCCESS, ctx = agree(comm, &rc);
    if (ctx == -2)
        return rc;
    if (ctx < 0) {
        wisp_log(1, "no free point-to-point context: a communicator goes to the MPI");
        return MPI_SUCCESS;
    }
    wisp_p2p_lock();
    rc = wisp_p2p.on ? serve(comm, ctx) : MPI_SUCCESS;
    wisp_p2p_unlock();
    return rc;
}

int wisp_p2p_comm_made(int rc, MPI_Comm *newcomm)
{
    return rc == MPI_SUCCESS ? wisp_p2p_comm_created(*newcomm) : rc;
}

/*
 * MPI_Comm_free while wisp still uses the communicator: persistent requests
 * may be started, and pending operations finish, as MPI allows. The entry
 * then stays, and an inactive persistent receive of the MPI's own on it (an
 * anchor) keeps the MPI's communicator, and so its handle, alive after the
 * user's free; both go when wisp is done with it.
 */
static bool in_use(struct wisp_p2p_comm *c)
{
    return c->holds || !wisp_list_empty(&c->posted) || !wisp_list_empty(&c->remote) ||
           wisp_p2p_sends_on(c);
}

static void drop_unexpected(struct wisp_p2p_comm *c)
{
    while (!wisp_list_empty(&c->unexpected)) {
        struct wisp_p2p_msg *msg = wisp_list_entry(c->unexpected.next, struct wisp_p2p_msg, link);
        wisp_list_remove(&msg->link);
        wisp_p2p_msg_drop(msg);
    }
}

static void destroy(struct entry *e)
{
    struct wisp_p2p_comm *c = &e->comm;
    if (wisp_p2p_comm_cache.last == c)
        wisp_p2p_comm_cache.last = NULL;
    if (c->anchor != MPI_REQUEST_NULL)
        PMPI_Request_free(&c->anchor);
    wisp_p2p_comm_set_ctx(c->ctx, NULL);
    free_ctx[c->ctx / 64] |= 1ull << (c->ctx % 64);
    free(c->node_of);
    free(c->rank_of);
    free(e);
}

/* Forget the communicators the user freed that wisp no longer uses. */
static void collect(void)
{
    for (struct entry **link = &freed; *link;) {
        struct entry *e = *link;
        if (!e->comm.holds) /* nothing can receive them any more */
            drop_unexpected(&e->comm);
        if (in_use(&e->comm)) {
            link = &e->freed_next;
            continue;
        }
        *link = e->freed_next;
        for (struct entry **b = &buckets[bucket_of(e->comm.handle)]; *b; b = &(*b)->next)
            if (*b == e) {
                *b = e->next;
                break;
            }
        destroy(e);
    }
}

static void user_freed(struct entry *e)
{
    struct wisp_p2p_comm *c = &e->comm;
    if (in_use(c) && c->anchor == MPI_REQUEST_NULL)
        PMPI_Recv_init(NULL, 0, MPI_BYTE, c->rank, 0, c->handle, &c->anchor);
    e->freed_next = freed;
    freed = e;
    collect();
}

void wisp_p2p_comm_freeing(MPI_Comm comm)
{
    if (!agreeing)
        return;
    wisp_p2p_lock();
    if (wisp_p2p.on) {
        for (struct entry *e = buckets[bucket_of(comm)]; e; e = e->next)
            if (e->comm.handle == comm && !e->comm.freed) {
                e->comm.freed = true;
                /* the handle names no live communicator of the user's */
                wisp_p2p_comm_cache.last = NULL;
                user_freed(e);
                break;
            }
    }
    wisp_p2p_unlock();
}

struct wisp_p2p_comm_callbacks wisp_p2p_comm_up;

int wisp_p2p_comm_release(MPI_Comm *comm, int (*mpi_free)(MPI_Comm *))
{
    if (wisp_p2p_comm_up.freeing && *comm != MPI_COMM_NULL)
        wisp_p2p_comm_up.freeing(*comm);
    wisp_p2p_comm_freeing(*comm);
    return mpi_free(comm);
}

void wisp_p2p_comm_hold(struct wisp_p2p_comm *c)
{
    if (c)
        c->holds++;
}

void wisp_p2p_comm_unhold(struct wisp_p2p_comm *c)
{
    if (--c->holds == 0 && c->freed)
        collect();
}

void wisp_p2p_comm_init(MPI_Comm world)
{
    memset(free_ctx, 0xff, sizeof free_ctx);
    /* Where no node holds two processes (one process per node, virtual
     * nodes of one), serve() would keep no communicator: skip the
     * allreduce each one would cost (4 threads duplicating communicators
     * 12345 times each: over 180 s against the MPI's 149 s with Open MPI).
     * Every process sees the same counts. */
    agreeing = wisp_topo.node_count < wisp_topo.world_size;
    wisp_p2p_comm_created(world); /* MPI_COMM_SELF has no peer: the MPI's alone */
}

void wisp_p2p_comm_fini(void)
{
    freed = NULL;
    for (int b = 0; b < BUCKETS; b++)
        while (buckets[b]) {
            struct entry *e = buckets[b];
            buckets[b] = e->next;
            destroy(e);
        }
    struct wisp_list *early = wisp_p2p_comm_early();
    while (!wisp_list_empty(early)) { /* for communicators never made here */
        struct wisp_list *l = early->next;
        wisp_list_remove(l);
        wisp_p2p_msg_drop(wisp_list_entry(l, struct wisp_p2p_msg, link));
    }
    wisp_p2p_comm_cache.last = NULL;
    wisp_p2p_comm_cache.unserved = MPI_COMM_NULL;
    agreeing = false;
}
