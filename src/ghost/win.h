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
    int async_mode;      /* this process's enum wisp_config_async for the window */
    bool adaptive;       /* some process decides from its profile: fences exchange wishes */
    int *wishes;         /* room for everyone's, by rank */
    unsigned nswitch[3]; /* switches of the route to this process, by enum wisp_async_point */
    uint64_t nghost;     /* operations this origin sent to ghosts */
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
 * windows, which give the address it would begin at (Open MPI 4.1 leaves
 * it unset in an MPI_Win_allocate window). An MPI_Win_create window is the
 * application's own memory (rank: w->rank). */
static inline void *wisp_ghost_app_base(const struct wisp_ghost_win *w, int rank)
{
#if defined(OPEN_MPI)
    bool empty_is_null = w->flavor == MPI_WIN_FLAVOR_ALLOCATE;
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

/* served.c: the windows this process serves. Their number: while 0
 * nothing is looked up. */
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

/* MPI_Win_allocate(_shared) with ghosts: served when the communicator holds all
 * application processes of every node it touches (one node for the shared flavor);
 * otherwise the underlying MPI's window. */
int wisp_ghost_win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                            void *baseptr, MPI_Win *win, int flavor);
/* MPI_Win_create with ghosts: served when, besides, every process's memory lies
 * in the node's shared heap, which the ghosts map at the same address. */
int wisp_ghost_win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                          MPI_Win *win);
int wisp_ghost_win_free(struct wisp_ghost_win *w);

/* At MPI_Finalize: free the served windows the application left, oldest first. */
void wisp_ghost_win_free_all(void);

/* WISP_GHOST_WINDOWS=auto (target_help.c): collective over MPI_COMM_WORLD at
 * MPI_Init, ghosts included: find out whether the MPI needs the target's
 * help for one-sided operations, and say so with WISP_VERBOSE. */
void wisp_ghost_windows_decide(void);
/* Whether the ghosts serve windows at all; and, under auto, why (or why not). */
bool wisp_ghost_windows_served(void);
const char *wisp_ghost_windows_because(void);

/* MPI_Win_lock and MPI_Win_unlock on a served window (epoch.c). */
int wisp_ghost_lock(struct wisp_ghost_win *w, int lock_type, int rank, int assert);
int wisp_ghost_unlock(struct wisp_ghost_win *w, int rank);

/* The MPI functions of windows and their epochs, on any window: a served
 * window's own implementation, or the MPI's (routes.def). epoch.c: */
int wisp_ghost_win_lock(int lock_type, int rank, int assert, MPI_Win win);
int wisp_ghost_win_unlock(int rank, MPI_Win win);
int wisp_ghost_win_lock_all(int assert, MPI_Win win);
int wisp_ghost_win_unlock_all(MPI_Win win);
int wisp_ghost_win_fence(int assert, MPI_Win win);
int wisp_ghost_win_sync(MPI_Win win);
int wisp_ghost_win_flush_all(MPI_Win win, bool local);
/* pscw.c: */
int wisp_ghost_win_post(MPI_Group group, int assert, MPI_Win win);
int wisp_ghost_win_start(MPI_Group group, int assert, MPI_Win win);
int wisp_ghost_win_complete(MPI_Win win);
int wisp_ghost_win_wait(MPI_Win win);
int wisp_ghost_win_test(MPI_Win win, int *flag);
/* win.c: */
int wisp_ghost_win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win);
int wisp_ghost_win_free_handle(MPI_Win *win);
int wisp_ghost_win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag);
int wisp_ghost_win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit,
                                void *baseptr);

/* Where an operation on target `rank` (valid, not MPI_PROC_NULL) goes in this
 * origin's current epoch: the internal window, or MPI_ERR_RMA_SYNC. */
int wisp_ghost_epoch_window(struct wisp_ghost_win *w, int rank, MPI_Win *iwin);

/* The kinds of one-sided operations, and one call of any of them (the R
 * forms give `request`, the _c forms set `large`). */
enum wisp_ghost_kind {
    WISP_GHOST_PUT,
    WISP_GHOST_GET,
    WISP_GHOST_ACC,
    WISP_GHOST_GET_ACC,
    WISP_GHOST_FOP,
    WISP_GHOST_CAS,
};
struct wisp_ghost_op {
    enum wisp_ghost_kind kind;
    bool large;
    const void *origin;
    MPI_Count ocount;
    MPI_Datatype otype;
    void *result;
    MPI_Count rcount;
    MPI_Datatype rtype;
    const void *compare;
    int target;
    MPI_Aint disp;
    MPI_Count tcount;
    MPI_Datatype ttype;
    MPI_Op op;
    MPI_Request *request;
};

/* Any one-sided operation on `win`: the MPI's own when the window is not
 * served, else redirected to the ghosts (redirect.c). */
int wisp_ghost_rma(MPI_Win win, const struct wisp_ghost_op *op);

/* The operation as the MPI's call on `win`, to `rank` at `disp`. */
int wisp_ghost_issue(const struct wisp_ghost_op *op, int rank, MPI_Aint disp, MPI_Win win);

/* MPI_Win_flush_all (local false) or _local_all on internal window `iwin`
 * in a lock_all epoch (`global`), done as a flush of each of its ranks
 * (issue.c says why). */
int wisp_ghost_flush_each(const struct wisp_ghost_win *w, MPI_Win iwin, bool local);

/* MPI_Win_flush (local false) or MPI_Win_flush_local on any window. */
int wisp_ghost_flush(MPI_Win win, int rank, bool local);

/* The same on a served window, in `iwin`, without the error handler. */
int wisp_ghost_flush_target(struct wisp_ghost_win *w, int rank, MPI_Win iwin, bool local);

/* MPI_Win_flush_all / _local_all on a served window (redirect.c). */
int wisp_ghost_flush_all(struct wisp_ghost_win *w, bool local);

/* MPI_Win_shared_query(_c): whether wisp answers (a served shared window),
 * and the answer. */
bool wisp_ghost_shared_query(MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit,
                             void *baseptr);

/* Binding of operations to the ghosts of the target's node (binding.c).
 * The ghost index (0 .. ghosts - 1) that owns the byte at `at` of target
 * t's memory under WISP_GHOST_BINDING; the one a put or get may use instead
 * in a binding-free interval under WISP_GHOST_LOAD, or -1 outside one. */
int wisp_ghost_owner(const struct wisp_ghost_win *w, const struct wisp_ghost_target *t,
                     MPI_Aint at);
int wisp_ghost_free_choice(struct wisp_ghost_win *w, int rank, MPI_Win iwin);
/* Before an operation to ghost index g of target `rank`'s node in `iwin`:
 * locks it when it is not the bound ghost of a lock window (after making sure
 * the lock on the bound one is held), and counts the operation. */
int wisp_ghost_use(struct wisp_ghost_win *w, int rank, MPI_Win iwin, int g, bool acc,
                   MPI_Aint bytes);
/* Around every operation on a served window, from its first step to its return. */
void wisp_ghost_op_begin(struct wisp_ghost_win *w);
void wisp_ghost_op_end(struct wisp_ghost_win *w);
/* Before a flush: the ghosts (bits of ghost indices) that got target
 * `rank`'s operations since the last flush (`rank` -1: none), and the mark
 * wisp_ghost_flushed_since needs. */
struct wisp_ghost_mark {
    uint64_t started;
    bool quiet;  /* no operation was under way */
    bool direct; /* a put or get went to the target directly by its live profile */
};
uint64_t wisp_ghost_flush_begin(struct wisp_ghost_win *w, int rank, struct wisp_ghost_mark *mark);
/* After a flush of target `rank` (all ranks: -1) begun at `mark`: the lock
 * is held, and the ghosts used are forgotten unless an operation was under
 * way at the mark or began since (another thread's, which the flush may
 * have missed). */
void wisp_ghost_flushed_since(struct wisp_ghost_win *w, int rank, struct wisp_ghost_mark mark);
/* After a fence or a complete, which no operation may overlap. */
void wisp_ghost_flushed(struct wisp_ghost_win *w, int rank);
/* At the start of a passive epoch on `rank` (all: -1): whether the lock is held at once. */
void wisp_ghost_epoch_start(struct wisp_ghost_win *w, int rank, bool granted);
/* Before unlocking `rank` in `iwin`: release the other ghosts' locks. */
int wisp_ghost_unlock_extra(struct wisp_ghost_win *w, int rank, MPI_Win iwin);

/* An operation whose target elements belong to several ghosts: one
 * operation per ghost, over the elements it owns (split.c). */
int wisp_ghost_split(struct wisp_ghost_win *w, const struct wisp_ghost_op *op, MPI_Win iwin);

/* Byte offsets, from the buffer's address, of the *n elements of esize
 * bytes of (count, type), in packed order; NULL when memory is short
 * (elements.c: from the datatype engine, from the MPI's MPI_Pack for types
 * the engine refuses; _mpi always from MPI_Pack, for tests). The
 * predefined type a derived type of one type is made of; MPI_BYTE for a
 * type of several. */
MPI_Aint *wisp_ghost_element_offsets(MPI_Count count, MPI_Datatype type, int esize, int *n);
MPI_Aint *wisp_ghost_element_offsets_mpi(MPI_Count count, MPI_Datatype type, int esize, int *n);
MPI_Datatype wisp_ghost_basic_type(MPI_Datatype type);

/* `rc`, after calling the application window's error handler when it is an error. */
int wisp_ghost_win_error(struct wisp_ghost_win *w, int rc);

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
