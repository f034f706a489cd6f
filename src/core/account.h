/*
 * The account of the application's MPI calls: what the wrappers
 * (src/wrap/wrap.h, its writers) record of each call, for the readers below
 * them: the per-function counters of the statistics (stats.c), this
 * process's live profile (profile.h: ghost/profile.c, progress/thread.c)
 * and the activity that a watcher follows (the progress thread).
 */
#ifndef WISP_CORE_ACCOUNT_H
#define WISP_CORE_ACCOUNT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/* Dense ids of the MPI functions that the underlying MPI declares and
 * defines (present.def, generated at configure time), for the accounting
 * arrays and the statistics report. */
enum wisp_fn_id {
#define WISP_FN(f) WISP_FN_ID_##f,
#include "present.def"
#undef WISP_FN
    WISP_FN_COUNT
};
extern const char *const wisp_fn_names[WISP_FN_COUNT];

/* Accounting in the wrappers' hooked path, when WISP_STATS or a feature that
 * needs the time spent in MPI switches it on. */
extern bool wisp_core_accounting;
/* Around an accounted call: the start (0 inside another call), and the
 * end; a `quick` call returns at once, so that its start is taken for its
 * end (one time-stamp read saved). The thread keeps its outermost start
 * (its ULTs may leave MPI in another order than they entered); WISP_STATS
 * counts the process's time with a thread inside MPI (account.c). */
uint64_t wisp_core_account_enter(void);
void wisp_core_account_exit(enum wisp_fn_id id, uint64_t start, bool quick);

/* Calls of `id` so far, and nanoseconds spent in its outermost calls. */
void wisp_core_account_read(enum wisp_fn_id id, uint64_t *ncalls, uint64_t *ns);

/* Switch the accounting on (while no other thread can be inside MPI):
 * calls and time per function when `functions` (WISP_STATS), and the time
 * away from MPI in gaps between calls longer than `gap_ns` unless it is
 * UINT64_MAX (the ghosts' profiles). */
void wisp_core_account_start(bool functions, uint64_t gap_ns);

/* What the wrappers keep of this process's time with MPI, for a reader in
 * another process (a ghost: ghost/async.c), in time-stamp ticks (clock.h). */
struct wisp_core_live {
    _Atomic uint64_t away;      /* in gaps between outermost calls longer than the gap */
    _Atomic uint64_t last_exit; /* the last outermost call's end */
    _Atomic uint32_t inside;    /* a thread is in an outermost call (the last one to enter) */
    _Atomic uint32_t computing; /* the reader's verdict (ghost/async.c) */
    _Atomic int32_t pid;        /* the process's */
};
/* From now on keep it in `shared` (shared memory), or in this process again
 * (NULL), called while no other thread can be inside MPI. */
void wisp_core_account_share(struct wisp_core_live *shared);

/* Where this process's live profile is kept now (profile.h reads it). */
struct wisp_core_live *wisp_core_account_live(void);

/* What the wrappers report of each function (a table they generate): a
 * call that left an operation in flight, one that completes requests
 * (MPI_Wait*, MPI_Test*), one that blocks (those of src/ult/yields.def), a
 * window made or freed. */
enum wisp_core_event {
    WISP_CORE_STARTS = 1,
    WISP_CORE_COMPLETES,
    WISP_CORE_BLOCKS,
    WISP_CORE_WIN_MADE,
    WISP_CORE_WIN_FREED
};

/* The application's activity in MPI, recorded by the wrappers for a watcher
 * (the progress thread), which reads it from a thread of its own. */
struct wisp_core_activity {
    _Atomic unsigned inside;     /* application threads in a call (with an event, if watched) */
    _Atomic bool pending;        /* a start since the last wait or test */
    _Atomic unsigned ends;       /* waits and tests, ever */
    _Atomic bool watcher_asleep; /* the next start calls the hook to wake it */
};
extern struct wisp_core_activity wisp_core_activity;
/* The watcher, set before hooks are enabled, NULL while nobody watches:
 * called for a start while it sleeps and for every window made or freed. */
extern void (*wisp_core_event_hook)(enum wisp_core_event event);
/* At most one application thread inside MPI at a time (every thread level
 * but MPI_THREAD_MULTIPLE) and the watcher orders its side with a
 * process-wide barrier (membarrier) before it sleeps; set with the hook. */
extern bool wisp_core_one_caller;

#pragma GCC visibility pop

#endif
