/*
 * A communicator's area in the node's shared heap (area.c), and the one
 * primitive every algorithm of the layer is built on: phases.
 *
 * The area. Allocated by the communicator's rank 0 in its partition of the
 * heap at the communicator's first collectives (after WISP_COLL_AFTER went
 * to the MPI: a communicator made for one call costs nothing more), its
 * address and layout sent to the others with one MPI_Bcast. It holds, per
 * member, WISP_COLL_LINES cache lines that only that member writes (phase p
 * in line p % WISP_COLL_LINES: a sequence number, a word and up to 48 bytes
 * inline), and a staging area in two halves (even and odd phases). A
 * communicator whose members are on several (virtual) nodes gets a view of
 * its part on each node instead, with an area of its own (hier.h). An
 * intercommunicator, one of a single process, or one for which the heap has
 * no room is marked for the MPI, the same way in every member, for good.
 *
 * Phases. Every collective on the communicator is a fixed number of phases
 * that every member goes through alike (the number follows from the call's
 * arguments, the same in every member). In phase p a member may write its
 * line of phase p and its staging half of parity p % 2, then publishes p (a
 * release store of the line's sequence number); others wait until it has
 * published p (acquire) and then read what it wrote. Two rules make reuse
 * safe without any other acknowledgement:
 *   - a member reads the phase-p data of another before it publishes p + 1;
 *   - before it writes its line for phase p, a member waits until every
 *     member has published p - WISP_COLL_LINES + 1 (wisp_coll_reuse_line);
 *     before it writes its half, until every member has published p - 1
 *     (wisp_coll_reuse_half).
 * The data of phase p - WISP_COLL_LINES (p - 2 for a half) lived there, and
 * everyone who read it has published the phase after it since. So a root
 * that only writes a few bytes (a broadcast's) runs up to WISP_COLL_LINES
 * - 1 phases ahead of its readers, a member that writes a half one phase,
 * and no member ever waits for an acknowledgement it would not wait for
 * anyway in an all-to-all phase.
 *
 * Waiting. Nothing here blocks inside the MPI: a member that waits for
 * another moves wisp's point-to-point engine now and then (its pass asks
 * the MPI, with matched probes, for the remote messages that pending
 * wildcard receives wait for, so a remote sender is never stuck behind a
 * collective wisp serves) and pokes the MPI's own progress; on a node with
 * more processes than cores it gives its core away at once.
 *
 * Freed. With the communicator (the engine's route of MPI_Comm_free tells
 * the layer: wisp_p2p_comm_up.freeing) or at the layer's stop. Readers
 * may still be reading a member's staging half when that member has
 * returned and freed the communicator: the area counts the members that
 * still use it, and rank 0 gives it back to the heap only when none does
 * (checked whenever it sets up another area, and at the stop).
 */
#ifndef WISP_COLL_AREA_H
#define WISP_COLL_AREA_H

#include <mpi.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

enum { WISP_COLL_LINE = 64, WISP_COLL_INLINE = 48, WISP_COLL_LINES = 8 };

/* A member's line of one parity: only that member writes it. */
struct wisp_coll_line {
    _Atomic uint64_t seq; /* the last phase of this parity it published */
    uint64_t aux;         /* what the algorithm says (an address, a mode) */
    unsigned char data[WISP_COLL_INLINE];
};
_Static_assert(sizeof(struct wisp_coll_line) == WISP_COLL_LINE, "one cache line");

/* The shared part, in rank 0's partition of the heap. */
struct wisp_coll_shared {
    _Atomic int users; /* members that have not let go of it yet */
    int size;
    uint64_t half;          /* bytes of each staging half */
    _Atomic uint64_t lanes; /* a communicator's: its lanes' directory (persist.h), or 0 */
    char pad[WISP_COLL_LINE - 24];
    struct wisp_coll_line lines[]; /* [member][phase % LINES]; staging after them */
};

/* The states of a communicator's collectives: a communicator starts NEW,
 * counting its calls through the MPI; setup moves it to AREA (all its
 * members on this node), HIER (members on several nodes, some of which hold
 * two or more: hier.h) or MPI. */
enum wisp_coll_state { WISP_COLL_NEW, WISP_COLL_AREA, WISP_COLL_HIER, WISP_COLL_MPI };

struct wisp_coll_hier;
struct wisp_coll_neighbors;

/* This process's view of a communicator. */
struct wisp_coll_comm {
    MPI_Comm handle;
    enum wisp_coll_state state;
    int rank, size;
    unsigned calls;                        /* through the MPI while NEW */
    uint64_t phase;                        /* the last phase this member published */
    struct wisp_coll_shared *shared;       /* AREA */
    struct wisp_coll_hier *hier;           /* HIER */
    struct wisp_coll_neighbors *neighbors; /* topo.h: at the first neighbour collective */
    bool neighbors_tried;
    char *stage;                        /* the first member's first half */
    uint64_t half;                      /* bytes of a staging half */
    struct wisp_coll_comm *prev, *next; /* the process's list (area.c) */
    /* Its nonblocking collectives in flight, in the order started (nb.h),
     * and the list of communicators that have some; under the engine lock
     * (a blocking collective looks at nb_first without it). */
    struct wisp_coll_op *_Atomic nb_first;
    struct wisp_coll_op *nb_last;
    struct wisp_coll_comm *nb_busy_next;
    uint64_t lanes; /* its persistent collectives made so far (persist.h): the next lane */
};

/* The layer's settings and state, filled by coll_start (start.c). */
struct wisp_coll {
    bool on;        /* between the start and the stop, WISP_COLL not off */
    bool all;       /* WISP_COLL=on: wisp's algorithm at every size */
    bool sleepy;    /* more processes than cores: yield at once */
    unsigned after; /* WISP_COLL_AFTER */
    uint64_t stage; /* WISP_COLL_STAGE */
    uint64_t single_copy_min;
    uint64_t neighbor_min; /* WISP_COLL_NEIGHBOR */
    /* The largest data (bytes) each collective takes through the heap:
     * under WISP_COLL=auto the measured limits of docs/coll.md (start.c),
     * under on, everything. */
    uint64_t bcast_max, reduce_max, allreduce_max;
    /* The smallest nonzero data (bytes) they take: below, the MPI's. */
    uint64_t bcast_min, reduce_min, allreduce_min;
    /* The same for MPI_Alltoall (a block's bytes), MPI_Reduce_scatter(_block)
     * (the whole vector's) and MPI_Scan/MPI_Exscan; MPI_Alltoallv and
     * MPI_Alltoallw, whose sizes no member knows alike, all or nothing. */
    uint64_t alltoall_min, alltoall_max, reduce_scatter_min, reduce_scatter_max;
    uint64_t scan_min, scan_max;
    bool alltoallv;
    /* MPI_Gather, MPI_Scatter (a block's bytes) and MPI_Allgather(v) (the
     * largest block's); MPI_Gatherv and MPI_Scatterv, whose sizes only the
     * root knows, all or nothing. */
    uint64_t gather_min, gather_max, scatter_min, scatter_max, allgather_min, allgather_max;
    bool gatherv, scatterv;
    /* Calls served through the heap; calls of the four passed to the MPI
     * (wisp_coll_counter). Relaxed loads and stores, no locked instruction:
     * threads may count over each other, they only report. */
    _Atomic uint64_t served, passed;
    _Atomic uint64_t no_room; /* persistent requests whose lane had no room (persist.c) */
};
extern struct wisp_coll wisp_coll;

static inline void wisp_coll_count(_Atomic uint64_t *counter)
{
    atomic_store_explicit(counter, atomic_load_explicit(counter, memory_order_relaxed) + 1,
                          memory_order_relaxed);
}

/* Collective over `c`'s communicator, whose view has its handle, rank and
 * size: rank 0 offers an area where `on_node` (its answer decides), and
 * every member takes it. AREA; MPI where the heap had no room; HIER where
 * rank 0 found the members on several nodes (hier.h then sets them up). */
enum wisp_coll_state wisp_coll_area_setup(struct wisp_coll_comm *c, bool on_node);
/* This member lets go of `c`'s area (it returned from its last collective
 * on it); rank 0 gives it back to the heap once no member uses it. */
void wisp_coll_area_leave(struct wisp_coll_comm *c);
/* Let go of the areas still in use (after every view let go: view.h). */
void wisp_coll_area_fini(void);

/* ---- lanes (persist.h) ------------------------------------------------------ */

/* A lane's staging half at most: a lane is one persistent request's. */
enum { WISP_COLL_LANE_HALF = 16 << 10 };
/* Where lane k's area is published in the directory of `home`, a
 * communicator's area: the first member makes the directory's chunks up to
 * it (`make`), the others find NULL until it has. A slot holds 0 (not
 * yet), the lane's address, or WISP_COLL_LANE_NONE (the first member found
 * no room for it: persist.c). A chunk the first member finds no room for
 * is WISP_COLL_LANE_NONE in its link: then every slot from there on reads
 * WISP_COLL_LANE_NONE (a slot of no chunk, which nobody writes). */
enum { WISP_COLL_LANE_NONE = 1 };
_Atomic uint64_t *wisp_coll_lane_slot(struct wisp_coll_shared *home, uint64_t k, bool make);
/* The staging half a lane gets: alike in every member (WISP_COLL_STAGE's). */
uint64_t wisp_coll_lane_half(void);
/* The first member's area for a lane of `size` members (WISP_COLL_LANE_HALF
 * halves, or the communicators' where smaller), or NULL where the heap has
 * no room; `lane`, whose rank and size are set, takes it (every member,
 * once it found it). wisp_coll_area_leave lets go of it. */
struct wisp_coll_shared *wisp_coll_lane_alloc(int size);
void wisp_coll_lane_attach(struct wisp_coll_comm *lane, struct wisp_coll_shared *s);
/* A persistent request that has not found its lane yet holds its
 * communicator's area (the directory is there): one more user. */
void wisp_coll_area_hold(struct wisp_coll_shared *home);
void wisp_coll_area_unhold(struct wisp_coll_shared *home);

/* ---- phases ---------------------------------------------------------------- */

static inline struct wisp_coll_line *wisp_coll_line(struct wisp_coll_comm *c, int member,
                                                    uint64_t phase)
{
    return &c->shared->lines[member * WISP_COLL_LINES + (int)(phase % WISP_COLL_LINES)];
}
static inline char *wisp_coll_half(struct wisp_coll_comm *c, int member, uint64_t phase)
{
    return c->stage + ((size_t)member * 2 + (size_t)(phase & 1)) * c->half;
}
static inline bool wisp_coll_reached(struct wisp_coll_comm *c, int member, uint64_t phase)
{
    return atomic_load_explicit(&wisp_coll_line(c, member, phase)->seq, memory_order_acquire) >=
           phase;
}
/* The next phase (the caller then writes its data for it, and publishes). */
static inline uint64_t wisp_coll_next(struct wisp_coll_comm *c)
{
    return c->phase + 1;
}
/* Publish `phase`: this member's data for it is in place, and it has read
 * everything of earlier phases it needed. */
static inline void wisp_coll_publish(struct wisp_coll_comm *c, uint64_t phase)
{
    c->phase = phase;
    atomic_store_explicit(&wisp_coll_line(c, c->rank, phase)->seq, phase, memory_order_release);
}
/* Wait until `member` has published `phase` (progressing wisp meanwhile;
 * in a nonblocking collective's coroutine, going back to its mover). */
void wisp_coll_wait(struct wisp_coll_comm *c, int member, uint64_t phase);
/* Wait until `ready(arg)` (the same way). */
void wisp_coll_wait_for(bool (*ready)(void *arg), void *arg);
/* Wait until every other member has published `phase`. */
void wisp_coll_wait_all(struct wisp_coll_comm *c, uint64_t phase);
/* Before a blocking collective on `c`: its nonblocking ones ran (nb.h). */
void wisp_coll_drain(struct wisp_coll_comm *c);
/* Before writing this member's line of `phase`: every member has read
 * what was there (area.h's top). */
static inline void wisp_coll_reuse_line(struct wisp_coll_comm *c, uint64_t phase)
{
    if (phase >= WISP_COLL_LINES)
        wisp_coll_wait_all(c, phase - WISP_COLL_LINES + 1);
}
/* Before writing this member's staging half of `phase` (and its line). */
static inline void wisp_coll_reuse_half(struct wisp_coll_comm *c, uint64_t phase)
{
    if (phase >= 2)
        wisp_coll_wait_all(c, phase - 1);
}

#pragma GCC visibility pop

#endif
