/*
 * The hook points of every generated MPI wrapper (src/wrap/gen/):
 * communicator translation, dispatch to an implementation, and enter/exit
 * accounting. The exported MPI_X is a single indirect jump through
 * `wisp_entry`. While no feature needs translation or accounting, an entry
 * slot holds the implementation itself (PMPI_X or a hand-written one), so the
 * wrapper costs one jump; wisp_wrap_hooks_enable() points every slot at the
 * generated hooked_MPI_X, which translates, accounts and calls `wisp_impl`.
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
extern struct wisp_dispatch wisp_entry;        /* what the exported MPI_X call */
extern struct wisp_dispatch wisp_impl;         /* PMPI_X or wisp_impl_MPI_X */
extern const struct wisp_dispatch wisp_hooked; /* the generated hooked_MPI_X */

/* Route every call through its hooks (translation, accounting), or not.
 * Called only while no other thread can be inside MPI (MPI_Init, MPI_Finalize). */
void wisp_wrap_hooks_enable(bool on);
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

/* What the exit hook reports, per function (generated): a call that left
 * an operation in flight, one that completes requests (MPI_Wait*,
 * MPI_Test*), a window made or freed. A component that needs
 * to know (the progress thread) sets the hook before the hooks are enabled. */
enum wisp_wrap_event {
    WISP_WRAP_STARTS = 1,
    WISP_WRAP_COMPLETES,
    WISP_WRAP_WIN_MADE,
    WISP_WRAP_WIN_FREED
};
extern const unsigned char wisp_wrap_events[WISP_FN_COUNT];
extern void (*wisp_wrap_event_hook)(enum wisp_wrap_event event);
/* While an event hook is set: the application's threads inside an MPI call. */
extern _Atomic unsigned wisp_wrap_inside;
/* At most one application thread inside MPI at a time (every thread level
 * but MPI_THREAD_MULTIPLE); set with the hook. */
extern bool wisp_wrap_one_caller;

/* Add `d` to a counter that the application's threads write and other
 * threads only read; the new value. With one caller at a time a plain load
 * and store (the calls are ordered by the application's own
 * synchronization), so that no locked instruction is paid per call. */
static inline unsigned wisp_wrap_count(_Atomic unsigned *counter, int d)
{
    if (!wisp_wrap_one_caller)
        return atomic_fetch_add_explicit(counter, (unsigned)d, memory_order_relaxed) + (unsigned)d;
    unsigned n = atomic_load_explicit(counter, memory_order_relaxed) + (unsigned)d;
    atomic_store_explicit(counter, n, memory_order_relaxed);
    return n;
}

/* Accounting in the hooked path, when WISP_STATS or a feature that needs the
 * time spent in MPI switches it on (account.c). */
extern bool wisp_wrap_accounting;
uint64_t wisp_wrap_enter_timed(void);
void wisp_wrap_exit_timed(enum wisp_fn_id id, uint64_t start);

/* Around every hooked call; inline, since an event hook alone (the progress
 * thread's) must cost a message-rate benchmark next to nothing. */
static inline __attribute__((always_inline)) uint64_t wisp_wrap_enter(void)
{
    if (wisp_wrap_event_hook)
        wisp_wrap_count(&wisp_wrap_inside, 1);
    return wisp_wrap_accounting ? wisp_wrap_enter_timed() : 0;
}

static inline __attribute__((always_inline)) void wisp_wrap_exit(enum wisp_fn_id id, uint64_t start)
{
    if (wisp_wrap_event_hook) {
        wisp_wrap_count(&wisp_wrap_inside, -1);
        if (wisp_wrap_events[id])
            wisp_wrap_event_hook((enum wisp_wrap_event)wisp_wrap_events[id]);
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

#pragma GCC visibility pop

#define WISP_EXPORT __attribute__((visibility("default")))

#endif
