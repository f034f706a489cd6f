/*
 * The hook points of every generated MPI wrapper (src/wrap/gen/):
 * communicator translation, dispatch to an implementation, and enter/exit
 * accounting. The exported MPI_X is a single indirect jump through
 * `wisp_entry`. While no feature needs translation or accounting, an entry
 * slot holds the implementation itself (PMPI_X or a hand-written one), so the
 * wrapper costs one jump; wisp_wrap_hooks_enable() points every slot at the
 * generated hooked_MPI_X, which translates, accounts and calls `wisp_impl`,
 * or, when only a watcher of the application's activity (the progress
 * thread) needs them, the slots of the functions that report an event at
 * the generated watched_MPI_X, which records the event and nothing else.
 */
#ifndef WISP_WRAP_H
#define WISP_WRAP_H

#include <mpi.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "wisp_have.h" /* generated at configure time: WISP_HAVE_MPI_* */

/* Deprecated MPI functions are wrapped like any other. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#pragma GCC visibility push(hidden)

/* One slot per MPI function that the underlying MPI declares and defines. */
struct wisp_dispatch {
#define WISP_FN(f) __typeof__(P##f) *f;
#include "present.def"
#undef WISP_FN
};
extern struct wisp_dispatch wisp_entry; /* what the exported MPI_X call */
extern struct wisp_dispatch wisp_serve; /* wisp_entry, but without a tool's slots */
extern struct wisp_dispatch wisp_next;  /* a profiling tool's MPI_X after libwisp, else NULL */
/* At load, once wisp_mpi and wisp_next are known (src/wrap/pmpi.h): the
 * MPI's functions, and a tool's after libwisp, into the tables. */
void wisp_wrap_mpi_found(void);
extern struct wisp_dispatch wisp_impl;          /* PMPI_X or wisp_impl_MPI_X */
extern const struct wisp_dispatch wisp_hooked;  /* the generated hooked_MPI_X */
extern const struct wisp_dispatch wisp_watched; /* watched_MPI_X, NULL without an event */

/* Route no call through hooks, only the calls with an event through the
 * watched path, or every call through its hooks (translation, accounting,
 * events). Called only while no other thread can be inside MPI (MPI_Init,
 * MPI_Finalize). */
enum wisp_wrap_hooks { WISP_WRAP_DIRECT, WISP_WRAP_WATCH, WISP_WRAP_HOOK_ALL };
void wisp_wrap_hooks_enable(enum wisp_wrap_hooks hooks);
/* Groups of functions that are the MPI's own until wisp has something to do
 * in them (dispatch.c): its first request, its first served communicator. */
enum wisp_wrap_group { WISP_WRAP_REQUESTS, WISP_WRAP_SERVED };
void wisp_wrap_begin(enum wisp_wrap_group group);

/* Dense ids for the accounting arrays and the statistics report. */
enum wisp_fn_id {
#define WISP_FN(f) WISP_FN_ID_##f,
#include "present.def"
#undef WISP_FN
    WISP_FN_COUNT
};
extern const char *const wisp_fn_names[WISP_FN_COUNT];

/* The communicator the application sees as MPI_COMM_WORLD. It is the real
 * world until ghost processes are carved out of it. */
extern MPI_Comm wisp_wrap_user_world;

static inline MPI_Comm wisp_wrap_comm_in(MPI_Comm comm)
{
    return comm == MPI_COMM_WORLD ? wisp_wrap_user_world : comm;
}

/* The status of a single completion made of several (MPI_Sendrecv through
 * two requests): `from`, but MPI_ERROR as the caller left it, as the
 * standard says single completions do. */
static inline void wisp_wrap_status_single(MPI_Status *status, const MPI_Status *from)
{
    if (status == MPI_STATUS_IGNORE)
        return;
    int error = status->MPI_ERROR;
    *status = *from;
    status->MPI_ERROR = error;
}

/* What the wrappers report of each function (generated): a call that left
 * an operation in flight, one that completes requests (MPI_Wait*,
 * MPI_Test*), one that blocks (those of src/ult/yields.def), a window made
 * or freed. */
enum wisp_wrap_event {
    WISP_WRAP_STARTS = 1,
    WISP_WRAP_COMPLETES,
    WISP_WRAP_BLOCKS,
    WISP_WRAP_WIN_MADE,
    WISP_WRAP_WIN_FREED
};
extern const unsigned char wisp_wrap_events[WISP_FN_COUNT];
/* The calls that return at once (gen_wrappers.py's QUICK and the starts). */
extern const bool wisp_wrap_quick[WISP_FN_COUNT];

/* The application's activity in MPI, recorded by the wrappers for a watcher
 * (the progress thread), which reads it from a thread of its own. */
struct wisp_wrap_activity {
    _Atomic unsigned inside;     /* application threads in a call (with an event, if watched) */
    _Atomic bool pending;        /* a start since the last wait or test */
    _Atomic unsigned ends;       /* waits and tests, ever */
    _Atomic bool watcher_asleep; /* the next start calls the hook to wake it */
};
extern struct wisp_wrap_activity wisp_wrap_activity;
/* The watcher, set before hooks are enabled, NULL while nobody watches:
 * called for a start while it sleeps and for every window made or freed. */
extern void (*wisp_wrap_event_hook)(enum wisp_wrap_event event);
/* At most one application thread inside MPI at a time (every thread level
 * but MPI_THREAD_MULTIPLE) and the watcher orders its side with a
 * process-wide barrier (membarrier) before it sleeps; set with the hook. */
extern bool wisp_wrap_one_caller;

/* Add `d` to a counter that the application's threads write and other
 * threads only read; the new value. With one caller at a time a plain load
 * and store (the calls are ordered by the application's own
 * synchronization), so that no locked instruction is paid per call. */
static inline __attribute__((always_inline)) unsigned wisp_wrap_count(_Atomic unsigned *counter,
                                                                      int d)
{
    if (!wisp_wrap_one_caller)
        return atomic_fetch_add_explicit(counter, (unsigned)d, memory_order_relaxed) + (unsigned)d;
    unsigned n = atomic_load_explicit(counter, memory_order_relaxed) + (unsigned)d;
    atomic_store_explicit(counter, n, memory_order_relaxed);
    return n;
}

/* Record what a call did, after it. A start wakes a sleeping watcher:
 * either the watcher, which stores `watcher_asleep` and then reads
 * `pending`, sees this start, or this start sees it asleep (with one
 * caller, the watcher's membarrier between its two steps orders this side;
 * else both sides are sequentially consistent). */
static inline __attribute__((always_inline)) void wisp_wrap_note(enum wisp_wrap_event event)
{
    struct wisp_wrap_activity *a = &wisp_wrap_activity;
    if (event == WISP_WRAP_COMPLETES) {
        atomic_store_explicit(&a->pending, false, memory_order_relaxed);
        wisp_wrap_count(&a->ends, 1);
    } else if (event == WISP_WRAP_STARTS) {
        bool asleep;
        if (wisp_wrap_one_caller) {
            atomic_store_explicit(&a->pending, true, memory_order_relaxed);
            atomic_signal_fence(memory_order_seq_cst);
            asleep = atomic_load_explicit(&a->watcher_asleep, memory_order_relaxed);
        } else {
            atomic_store(&a->pending, true);
            asleep = atomic_load(&a->watcher_asleep);
        }
        if (asleep)
            wisp_wrap_event_hook(event);
    } else if (event != WISP_WRAP_BLOCKS) {
        wisp_wrap_event_hook(event);
    }
}

/* Accounting in the hooked path, when WISP_STATS or a feature that needs the
 * time spent in MPI switches it on (account.c). */
extern bool wisp_wrap_accounting;
uint64_t wisp_wrap_enter_timed(void);
void wisp_wrap_exit_timed(enum wisp_fn_id id, uint64_t start);

/* Around every hooked call. */
static inline __attribute__((always_inline)) uint64_t wisp_wrap_enter(void)
{
    if (wisp_wrap_event_hook)
        wisp_wrap_count(&wisp_wrap_activity.inside, 1);
    return wisp_wrap_accounting ? wisp_wrap_enter_timed() : 0;
}

static inline __attribute__((always_inline)) void wisp_wrap_exit(enum wisp_fn_id id, uint64_t start)
{
    if (wisp_wrap_event_hook) {
        wisp_wrap_count(&wisp_wrap_activity.inside, -1);
        if (wisp_wrap_events[id])
            wisp_wrap_note((enum wisp_wrap_event)wisp_wrap_events[id]);
    }
    if (wisp_wrap_accounting)
        wisp_wrap_exit_timed(id, start);
}

#define WISP_WRAP_HOOKED(fn, args)                                                                 \
    do {                                                                                           \
        uint64_t start_ = wisp_wrap_enter();                                                       \
        __typeof__(wisp_impl.fn args) rc_ = wisp_impl.fn args;                                     \
        wisp_wrap_exit(WISP_FN_ID_##fn, start_);                                                   \
        return rc_;                                                                                \
    } while (0)

/* The watched path: only a function with an event, when the watcher is the
 * only thing hooked (no translation, no accounting). Starts are counted
 * inside too, though they return at once: in a loop of them the watcher
 * then finds the application inside and naps longer, which costs the loop
 * less than the two stores (measured on the 8 B message rate). */
#define WISP_WRAP_WATCHED(fn, event, args)                                                         \
    do {                                                                                           \
        wisp_wrap_count(&wisp_wrap_activity.inside, 1);                                            \
        __typeof__(wisp_impl.fn args) rc_ = wisp_impl.fn args;                                     \
        wisp_wrap_count(&wisp_wrap_activity.inside, -1);                                           \
        wisp_wrap_note(event);                                                                     \
        return rc_;                                                                                \
    } while (0)

#pragma GCC visibility pop

#define WISP_EXPORT __attribute__((visibility("default")))

#endif
