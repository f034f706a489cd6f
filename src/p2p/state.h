/*
 * The engine's settings and counters, its node segment (laid out in
 * transport.h) and the callbacks through which the transport reports
 * events up to matching and lending, defined in state.c at the bottom so
 * that every file reads them without depending on start.c, which fills
 * them.
 */
#ifndef WISP_P2P_STATE_H
#define WISP_P2P_STATE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/stats.h" /* wisp_stats_shm, which the engine counts */
#include "p2p/types.h"

#pragma GCC visibility push(hidden)

struct wisp_p2p {
    bool on;      /* between MPI_Init and MPI_Finalize, WISP_SHM on */
    bool threads; /* MPI_THREAD_MULTIPLE: application threads share the lock */
    bool sleepy;  /* more processes than cores here: wait in the kernel */
    int node_rank, node_size;
    int tag_ub; /* MPI_TAG_UB: larger tags go to the MPI, which reports them */
    uint64_t immediate_max, stage, single_copy_min, cma_min, synergy_min, block;
    /* Both counted under the lock and looked at without it (the rescuer,
     * the progress thread, blocking calls choosing their path): relaxed
     * atomics, whose loads and stores are plain ones on the machine. */
    _Atomic unsigned outstanding; /* work that needs this process inside wisp */
    _Atomic unsigned deferred;    /* receives the rescuer completed that still need the MPI */
    _Atomic unsigned above;       /* operations of the layers above in flight (also outstanding) */
    bool rescuing;                /* the rescuer thread holds the lock: no calls into the MPI */
    bool cma;                     /* private messages are read with process_vm_readv (cma.c) */
    bool ring_always;   /* the node's processes run progress threads: ring after each put */
    bool waitall_polls; /* MPI_Waitall of the MPI's requests polls (wisp_p2p_progress_thread) */
    bool forward_asked; /* the transport saw a slot of this process in FORWARD (lend/forward.c) */
};
extern struct wisp_p2p wisp_p2p;

/* A look at one of the engine's counters, with or without the lock. */
static inline unsigned wisp_p2p_count(const _Atomic unsigned *counter)
{
    return atomic_load_explicit(counter, memory_order_relaxed);
}
/* Lock held (the only writer then): a load and a store, no locked
 * instruction; a look without the lock sees the old or the new value. */
static inline void wisp_p2p_count_add(_Atomic unsigned *counter, int delta)
{
    atomic_store_explicit(counter, wisp_p2p_count(counter) + (unsigned)delta, memory_order_relaxed);
}

/* Has this process work in flight that only it can move? Then its blocking
 * calls into the MPI must keep the engine going. */
static inline bool wisp_p2p_busy(void)
{
    return wisp_p2p.on && wisp_p2p_count(&wisp_p2p.outstanding);
}

/* The number of communicators with receives waiting in their `remote` queues (match.c). */
extern _Atomic unsigned wisp_p2p_remote_count;
/* Are receives waiting in `remote` queues (a look without the lock)? */
static inline bool wisp_p2p_remote_waiting(void)
{
    return wisp_p2p_count(&wisp_p2p_remote_count) != 0; /* also without the lock */
}

/* The node's segment: rings, doorbells, slots, records (start.c lays it out). */
struct wisp_p2p_segment {
    char *base;
    size_t size, slot_stride;
    uint32_t ring_cells; /* per fastbox ring, the same in every process of the node */
    int fd;              /* the segment's file, for slots committed later; -1 */
};
extern struct wisp_p2p_segment wisp_p2p_seg;
/* Progress passes of the application's threads (counted by progress.c). */
extern _Atomic unsigned long wisp_p2p_passes;

/*
 * The engine's event callbacks: what the transport reports up, as UCX's
 * transports report an active message to the handler that the protocol
 * layer set (uct_iface_set_am_handler). start.c fills them in with
 * matching's and lending's functions; the transport's files call nothing
 * above them by name. Only events go here: a query or a step that a lower
 * file needs of a higher one is a call, and so is counted by
 * tools/check_file_loops.py, which exempts a struct of `_callbacks` only.
 */
struct wisp_p2p_callbacks {
    /* A message came for served communicator `comm`: match or queue it
     * (wisp_p2p_incoming, match.c). */
    void (*incoming)(struct wisp_p2p_comm *comm, struct wisp_p2p_msg *msg);
    /* Lending has a say (lend_parts.h, enum wisp_p2p_lend_kind): a message
     * met a lent receive, a marked one is taken or dropped, a copy aside is
     * whole, the MPI gave a local message. Its one entry from below
     * (wisp_p2p_lend_on, lend/lend.c); the return as the kind says. */
    bool (*lending)(const struct wisp_p2p_lend_event *event);
    /* The layers above have operations in flight (`above` counts them: the
     * node's nonblocking collectives, src/coll/nb.h): move them, in every
     * pass, the rescuer's and the progress thread's too; true if any moved.
     * Lock held; never calls the MPI. */
    bool (*above)(void);
    /* A request of theirs (form ABOVE) is tested: move its operation; true
     * once it completed. Lock held. */
    bool (*above_test)(struct wisp_p2p_req *req);
    /* A persistent request of theirs (kind ABOVE, form PERSISTENT:
     * src/coll/persist.h), inactive, is started (MPI_Start): start a round
     * of `above`, its operation, whose request (form ABOVE) goes to *round;
     * an MPI error code. Lock not held. */
    int (*above_start)(void *above, MPI_Request *round);
    /* The user frees such a request: the layer lets go of `above` (at once,
     * or once its round in flight ran). Lock held. */
    void (*above_free)(void *above);
};
extern struct wisp_p2p_callbacks wisp_p2p_up;

#pragma GCC visibility pop

#endif
