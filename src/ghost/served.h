/*
 * Windows served by ghost processes (docs/ghosts.md): the state of one, as
 * every file of the windows shares it, and the table of those this process
 * serves (served.c; win.c creates and frees them). The memory of a window
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
#ifndef WISP_GHOST_SERVED_H
#define WISP_GHOST_SERVED_H

#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ghost/segment.h"

#pragma GCC visibility push(hidden)

enum {
    WISP_GHOST_SEG_ALIGN = 16, /* segment boundaries: the largest common basic datatype */
    WISP_GHOST_TAG_POST = 1,
    WISP_GHOST_TAG_DONE = 2,
};

/* One application process of a served window, as every origin sees it. */
struct wisp_ghost_target {
    MPI_Aint off; /* of its memory: displacement 0 in its ghosts' windows */
    MPI_Aint size;
    int disp_unit;
    int ghost;       /* rank in icomm of the ghost bound to it (static rank binding) */
    int ghost0;      /* rank in icomm of its node's first ghost */
    int local;       /* its index among its node's application processes */
    MPI_Aint vbase;  /* where its memory starts in its node's exposed memory (segments) */
    MPI_Aint chunk;  /* length of its node's segments: ghost i owns [i chunk, (i + 1) chunk) */
    MPI_Aint hidden; /* displacement of bytes no application touches, in its ghosts' windows */
    bool here;       /* on this process's node: its ghosts' doorbells can be rung */
};

/* What one origin knows about its passive epoch on one target, for the
 * ghosts other than the bound one (binding.c). */
struct wisp_ghost_tstate {
    uint64_t extra;          /* other ghosts of its node locked (shared) in the lock window */
    uint64_t dirty;          /* ghosts that got operations since the last flush */
    bool granted;            /* the lock on the bound ghost is known to be held */
    bool acc;                /* an accumulate-type operation went to it since the last flush */
    bool direct;             /* a put or get went to it directly, by its live profile, since then */
    _Atomic uint32_t served; /* its bound ghost's served count before the last operation */
};

/* The application runs MPI_THREAD_MULTIPLE: state that threads share takes locks. */
extern bool wisp_ghost_threaded;

enum wisp_ghost_access {
    WISP_GHOST_NO_ACCESS,
    WISP_GHOST_FENCE,
    WISP_GHOST_PSCW,
    WISP_GHOST_LOCK,
    WISP_GHOST_LOCK_ALL,
};

/* Why a safe point of adaptive progress (async.h) was passed, for the
 * counts WISP_VERBOSE reports, each with the name the log gives it. */
#define WISP_ASYNC_POINTS(X)                                                                       \
    X(WISP_ASYNC_AT_CREATE, "creation")                                                            \
    X(WISP_ASYNC_AT_FENCE, "fence")                                                                \
    X(WISP_ASYNC_AT_HINT, "MPI_Win_set_info")
enum wisp_async_point {
#define WISP_ASYNC_POINT(point, name) point,
    WISP_ASYNC_POINTS(WISP_ASYNC_POINT)
#undef WISP_ASYNC_POINT
};
#define WISP_ASYNC_ONE(point, name) +1
enum { WISP_ASYNC_NPOINTS = 0 WISP_ASYNC_POINTS(WISP_ASYNC_ONE) };
#undef WISP_ASYNC_ONE

struct wisp_ghost_win {
    MPI_Win win;   /* the application's handle */
    int flavor;    /* MPI_WIN_FLAVOR_ALLOCATE, _SHARED or _CREATE (memory in the heap) */
    void *base;    /* this process's memory */
    MPI_Comm comm; /* duplicate of the application's communicator */
    int rank, size;
    struct wisp_ghost_segment seg;
    MPI_Win global;
    int nlock;
    MPI_Win *lockwin;
    struct wisp_ghost_target *t; /* by rank */
    bool no_local_load_store;    /* info hint: no load/store on the local memory */
    bool noncontig;              /* info hint alloc_shared_noncontig (wisp_ghost_app_base) */
    struct wisp_ghost_set *set;  /* its internal windows, kept at its free (pool.h), or NULL */
    /* Memory in the node's shared heap (MPI_Win_create, or MPI_Win_allocate's
     * taken from it): the ghosts expose the heap. */
    bool heap;
    uint32_t serial;
    uint64_t *ops, *bytes; /* issued by this origin to each ghost (icomm rank - size) */
    int nranks;            /* of the internal windows: the processes, then the ghosts */
    unsigned seed;         /* WISP_GHOST_LOAD=random */
    uint64_t nsplit;       /* operations split across segments (WISP_VERBOSE=3 tells) */
    uint64_t nmoved;       /* puts and gets sent to another ghost than the static one */

    /* Adaptive progress (async.h): per target, whether its operations go to
     * a ghost (1) or to it directly (0), changed only at safe points. */
    unsigned char *route;
    int async_mode;  /* this process's enum wisp_config_async for the window */
    bool adaptive;   /* some process decides from its profile: fences exchange wishes */
    int *wishes;     /* room for everyone's, by rank */
    uint64_t nghost; /* operations this origin sent to ghosts */
    /* Switches of the route to this process, by enum wisp_async_point. */
    unsigned nswitch[WISP_ASYNC_NPOINTS];
    /* nghost when a flush_all in `global` last began that then returned,
     * [0] remote, [1] local (redirect.c): none sent since, no ghost wakes */
    uint64_t nghost_flushed[2];
    uint64_t ndirect; /* and to their targets directly */
    uint64_t nlive;   /* of them, puts and gets routed by the target's live profile */

    /* The bookkeeping above (ops, bytes, counters) and in ts is shared by the
     * threads of an MPI_THREAD_MULTIPLE process: changed under `books`
     * (wisp_ghost_books_lock), never held across a call that may wait. */
    pthread_mutex_t books;
    uint64_t started; /* operations begun (wisp_ghost_rma) */
    int inflight;     /* of them, not yet returned */

    /* This process's epochs. */
    enum wisp_ghost_access access;
    bool lock_all_global;         /* the lock_all epoch lives in `global` */
    unsigned char *locked;        /* per target: 0, or the lock type + 1 */
    struct wisp_ghost_tstate *ts; /* per target */
    int *held;                    /* per lock window: locks held in it */
    int nlocked;                  /* targets locked */
    bool self_locked;             /* the second lock of a self lock is held */
    int nstart, *start;           /* PSCW access group, ranks */
    int npost, *post;             /* PSCW exposure group, ranks */
    MPI_Request *post_done;       /* their completion messages */
    bool exposed;
    struct wisp_ghost_win *next;        /* served.c's list, oldest first */
    struct wisp_ghost_win *same_bucket; /* and its hash table, */
    unsigned bucket;                    /* in this bucket */
};

static inline void wisp_ghost_books_lock(struct wisp_ghost_win *w)
{
    if (wisp_ghost_threaded)
        pthread_mutex_lock(&w->books);
}

static inline void wisp_ghost_books_unlock(struct wisp_ghost_win *w)
{
    if (wisp_ghost_threaded)
        pthread_mutex_unlock(&w->books);
}

/* Where the application is told process `rank`'s part of a served window
 * begins (baseptr, MPI_WIN_BASE, MPI_Win_shared_query): a part of no bytes
 * begins at NULL, as in MPICH's own windows, except in Open MPI's shared
 * windows of contiguous parts, which give the address it would begin at
 * (Open MPI 4.1 leaves it unset in an MPI_Win_allocate window, and gives
 * NULL with alloc_shared_noncontig). An MPI_Win_create window is the
 * application's own memory (rank: w->rank). */
static inline void *wisp_ghost_app_base(const struct wisp_ghost_win *w, int rank)
{
#if defined(OPEN_MPI)
    bool empty_is_null = w->flavor == MPI_WIN_FLAVOR_ALLOCATE || w->noncontig;
#else
    bool empty_is_null = true;
#endif
    if (w->flavor == MPI_WIN_FLAVOR_CREATE)
        return w->base;
    if (w->t[rank].size == 0 && empty_is_null)
        return NULL;
    if (w->heap) /* an MPI_Win_allocate window in the heap: only its own part is asked for */
        return w->base;
    return w->seg.base + w->t[rank].off;
}

/* The windows this process serves. Their number: while 0 nothing is looked
 * up. */
extern _Atomic int wisp_ghost_nserved;
struct wisp_ghost_win *wisp_ghost_win_lookup(MPI_Win win);
/* win.c adds a window it created, and removes one before it frees it. */
void wisp_ghost_served_add(struct wisp_ghost_win *w);
void wisp_ghost_served_remove(struct wisp_ghost_win *w);
/* The oldest one still served, or NULL (MPI_Finalize frees them all). */
struct wisp_ghost_win *wisp_ghost_served_first(void);

static inline struct wisp_ghost_win *wisp_ghost_win_find(MPI_Win win)
{
    if (__builtin_expect(atomic_load_explicit(&wisp_ghost_nserved, memory_order_relaxed) == 0, 1))
        return NULL;
    return wisp_ghost_win_lookup(win);
}

#pragma GCC visibility pop

#endif
