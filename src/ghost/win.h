/*
 * Windows served by ghost processes (docs/ghosts.md). The memory of a window
 * from MPI_Win_allocate or MPI_Win_allocate_shared lives in one segment per
 * node that the node's ghosts map too: first WISP_GHOST_HIDDEN hidden bytes,
 * then each application process's memory in node order. Internal windows
 * over the application's processes and their nodes' ghosts carry the
 * operations, all addressed to ghosts, which expose the whole segment with
 * displacement unit 1; the application's handle is a window over its
 * processes only, on the same memory, for attributes, group, info, error
 * handler and names.
 *
 * Internal windows of one served window: `global`, which every application
 * process holds in a lock_all epoch (MPI_MODE_NOCHECK) from creation to
 * free and which carries fence, PSCW and lock_all MPI_MODE_NOCHECK epochs;
 * and `lockwin[i]`, one per local application process index i, which carry
 * lock epochs (and lock_all, as a lock on every target), so that locks on
 * different processes of a node do not serialize on their shared ghost
 * while locks on one process still exclude each other (Casper 4.5.1).
 */
#ifndef WISP_GHOST_WIN_H
#define WISP_GHOST_WIN_H

#include <mpi.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

enum {
    WISP_GHOST_HIDDEN = 64, /* bytes at the start of a segment that no application sees */
    WISP_GHOST_TAG_POST = 1,
    WISP_GHOST_TAG_DONE = 2,
};

/* A window's memory on one node, mapped in its application processes and ghosts. */
struct wisp_ghost_segment {
    char *base;
    size_t len;
};

/* Collective over wisp_ghost_node.all: create (node rank 0, which also commits the
 * memory), open and map a segment of `len` bytes; `ok` false in any process skips
 * the mapping. Returns whether this process has it. */
bool wisp_ghost_segment_map(struct wisp_ghost_segment *seg, size_t len, bool ok);
void wisp_ghost_segment_unmap(struct wisp_ghost_segment *seg);

/* Collective over the processes `members` (real world ranks, in the order
 * they get in the new communicator). Returns whether it worked. */
bool wisp_ghost_icomm_create(const int *members, int n, MPI_Comm *icomm);

/* What node rank 0 broadcasts on wisp_ghost_node.all after posting
 * WISP_GHOST_CMD_WIN_CREATE; the member list (nmembers ints) follows. */
struct wisp_ghost_create_msg {
    uint32_t serial;
    int32_t nmembers;
    int32_t nwins;
    uint64_t seglen;
};

/* One application process of a served window, as every origin sees it. */
struct wisp_ghost_target {
    MPI_Aint off; /* of its memory: displacement 0 in its ghosts' windows */
    MPI_Aint size;
    int disp_unit;
    int ghost; /* rank in icomm of the ghost that serves it */
    int local; /* its index among its node's application processes */
};

enum wisp_ghost_access {
    WISP_GHOST_NO_ACCESS,
    WISP_GHOST_FENCE,
    WISP_GHOST_PSCW,
    WISP_GHOST_LOCK,
    WISP_GHOST_LOCK_ALL,
};

struct wisp_ghost_win {
    MPI_Win win;    /* the application's handle */
    int flavor;     /* MPI_WIN_FLAVOR_ALLOCATE or MPI_WIN_FLAVOR_SHARED */
    MPI_Comm comm;  /* duplicate of the application's communicator */
    MPI_Comm icomm; /* its processes (same ranks), then the ghosts of their nodes */
    int rank, size;
    struct wisp_ghost_segment seg;
    MPI_Win global;
    int nlock;
    MPI_Win *lockwin;
    struct wisp_ghost_target *t; /* by rank */
    bool no_local_load_store;    /* info hint: no load/store on the local memory */
    uint32_t serial;

    /* This process's epochs. */
    enum wisp_ghost_access access;
    bool lock_all_global;   /* the lock_all epoch lives in `global` */
    unsigned char *locked;  /* per target: 0, or the lock type + 1 */
    int *held;              /* per lock window: locks held in it */
    int nlocked;            /* targets locked */
    bool self_locked;       /* the second lock of a self lock is held */
    int nstart, *start;     /* PSCW access group, ranks */
    int npost, *post;       /* PSCW exposure group, ranks */
    MPI_Request *post_done; /* their completion messages */
    bool exposed;
    struct wisp_ghost_win *next;
};

/* Number of served windows in this process: while 0 nothing is looked up. */
extern _Atomic int wisp_ghost_nserved;
struct wisp_ghost_win *wisp_ghost_win_lookup(MPI_Win win);

static inline struct wisp_ghost_win *wisp_ghost_win_find(MPI_Win win)
{
    if (__builtin_expect(atomic_load_explicit(&wisp_ghost_nserved, memory_order_relaxed) == 0, 1))
        return NULL;
    return wisp_ghost_win_lookup(win);
}

/* MPI_Win_allocate(_shared) with ghosts: served when the communicator holds all
 * application processes of every node it touches (one node for the shared flavor);
 * otherwise the underlying MPI's window. */
int wisp_ghost_win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                            void *baseptr, MPI_Win *win, int flavor);
int wisp_ghost_win_free(struct wisp_ghost_win *w);

/* At MPI_Finalize: free the served windows the application left, oldest first. */
void wisp_ghost_win_free_all(void);

/* Where an operation on target `rank` at displacement `disp` goes: the internal
 * window, the ghost's rank in it and the displacement in bytes. MPI_PROC_NULL goes
 * to MPI_PROC_NULL of `global`. Returns MPI_SUCCESS or an MPI error code. */
int wisp_ghost_route(struct wisp_ghost_win *w, int rank, MPI_Aint disp, MPI_Win *iwin, int *grank,
                     MPI_Aint *gdisp);

/* `rc`, after calling the application window's error handler when it is an error. */
int wisp_ghost_win_error(struct wisp_ghost_win *w, int rc);

/* The internal window and ghost rank that carry this process's current passive
 * epoch to `rank` (valid, not MPI_PROC_NULL), or MPI_ERR_RMA_SYNC. */
int wisp_ghost_passive_target(struct wisp_ghost_win *w, int rank, MPI_Win *iwin, int *grank);

/* The lock of a self lock after the lock on one's ghost in `iwin`: waits until
 * the MPI holds it, then locks oneself (see redirect.c). */
int wisp_ghost_self_lock(struct wisp_ghost_win *w, int lock_type, int assert, MPI_Win iwin);

/* The ranks in the window of the processes of `group` (n of them); false when
 * one is not in the window. */
bool wisp_ghost_group_ranks(struct wisp_ghost_win *w, MPI_Group group, int *n, int *ranks);

/* Whether an MPI_Get_accumulate with these datatypes must go element by element
 * (Open MPI, getacc_split.c), and doing so. */
bool wisp_ghost_getacc_split_needed(MPI_Datatype origin, MPI_Datatype result, MPI_Datatype target,
                                    MPI_Op op);
int wisp_ghost_getacc_split(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                            void *result_addr, int result_count, MPI_Datatype result_datatype,
                            int grank, MPI_Aint gdisp, int target_count,
                            MPI_Datatype target_datatype, MPI_Op op, MPI_Win iwin);

#pragma GCC visibility pop

#endif
