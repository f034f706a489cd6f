/*
 * The board that the processes of a (virtual) node share in /dev/shm: one
 * command slot, written only by the node's first application process (every
 * command is collective over the node's application processes), and one
 * doorbell per ghost. A command is followed at once by a collective call
 * that the ghosts join, so the slot is never overwritten before every ghost
 * has read it.
 */
#ifndef WISP_GHOST_BOARD_H
#define WISP_GHOST_BOARD_H

#include <mpi.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/account.h"
#include "shm/fastbox.h"

#pragma GCC visibility push(hidden)

enum {
    WISP_GHOST_MAX = 64,
    WISP_GHOST_LIVE_MAX = 1024, /* application processes of a node with a live profile */
};

enum wisp_ghost_cmd {
    WISP_GHOST_CMD_NONE,
    WISP_GHOST_CMD_WIN_CREATE, /* the window's description follows by PMPI_Bcast on node_all */
    WISP_GHOST_CMD_WIN_FREE,   /* arg: the window's serial */
    WISP_GHOST_CMD_FINALIZE,
};

/* What a ghost served, for an origin of its node that waits for it
 * without a core of its own to spin on (async.h, wisp_ghost_async_flushing). */
struct wisp_ghost_served {
    alignas(64) _Atomic uint32_t seq; /* futex word: polls that did some work */
    _Atomic uint32_t waiters;
};

struct wisp_ghost_board {
    _Atomic uint32_t seq; /* number of commands posted; the last one is in cmd/arg */
    uint32_t cmd, arg;
    /* Per ghost, the seq of the last command it read: cmd/arg are written
     * again only when every ghost has read them. */
    _Atomic uint32_t taken[WISP_GHOST_MAX];
    /* (window, process) pairs of the node whose route is a ghost (async.c). */
    _Atomic uint32_t want;
    /* Processes of the node in a flush of every target (async.c): the
     * ghosts poll meanwhile, as for `want`, since operations a live profile
     * sent them may wait for them. */
    _Atomic uint32_t busy;
    struct wisp_doorbell bells[WISP_GHOST_MAX];
    struct wisp_ghost_served served[WISP_GHOST_MAX];
    /* Each application process's time with MPI, by node rank, which its
     * wrappers write and the node's first ghost judges (profile.c). */
    struct {
        alignas(64) struct wisp_core_live p;
    } live[WISP_GHOST_LIVE_MAX];
};

/* What carve.c sets up for the rest of the ghost layer. */
struct wisp_ghost_node {
    struct wisp_ghost_board *board;
    MPI_Comm all;    /* this node's processes, ghosts included (ghosts last) */
    int all_rank;    /* rank in `all` */
    int users;       /* application processes of this node: ranks 0..users-1 of `all` */
    int ghosts;      /* ghosts per node */
    int world_rank;  /* rank in the real MPI_COMM_WORLD */
    int leader;      /* real world rank of rank 0 of `all`: names the node */
    int *ghost_rank; /* real world ranks of this node's ghosts */
};
extern struct wisp_ghost_node wisp_ghost_node;

/* Operations UCX's progress engine reported (ucx_activity.c), and whether it
 * was ever called in this process. */
extern _Atomic unsigned long wisp_ghost_ucx_events;
extern bool wisp_ghost_ucx_seen;
/* The events are counted: in a ghost, which reads them. */
extern bool wisp_ghost_ucx_count;
/* Empty polls yield the core now and then: the machine is oversubscribed. */
extern bool wisp_ghost_ucx_yield;

/* Node rank 0 (an application process): post a command and wake the ghosts,
 * once they have read the one before (a free is not collective with them
 * when its internal windows are kept, pool.h). */
void wisp_ghost_post(enum wisp_ghost_cmd cmd, uint32_t arg);

/* In a ghost: serve commands until the application finalizes; never returns. */
_Noreturn void wisp_ghost_serve(int ghost);

/* What node rank 0 broadcasts on wisp_ghost_node.all after posting
 * WISP_GHOST_CMD_WIN_CREATE; the member list (nmembers ints) follows. */
struct wisp_ghost_create_msg {
    uint32_t serial;
    int32_t nmembers;
    int32_t nwins;
    int32_t heap; /* the ghosts expose the node's shared heap, not a new segment */
    int32_t set;  /* the id its internal windows are kept under at its free (pool.h), or -1 */
    uint64_t seglen;
};

#pragma GCC visibility pop

#endif
