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

#include "core/account.h"
#include "core/export.h"
#include "core/world.h"
#include "core/wrapper.h"
#include "wisp_have.h" /* generated at configure time: WISP_HAVE_MPI_* */

/* Deprecated MPI functions are wrapped like any other. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#pragma GCC visibility push(hidden)

/* One slot per MPI function that the underlying MPI declares and defines
 * (struct wisp_dispatch, core/wrapper.h). */
extern struct wisp_dispatch wisp_entry; /* what the exported MPI_X call */
extern struct wisp_dispatch wisp_serve; /* wisp_entry, but without a tool's slots */
extern struct wisp_dispatch wisp_next;  /* a profiling tool's MPI_X after libwisp, else NULL */
/* At load, once wisp_mpi (src/mpi/calls.h) and wisp_next are known
 * (tools.c): the MPI's functions, and a tool's after libwisp, into the
 * tables. */
void wisp_wrap_mpi_found(void);
extern struct wisp_dispatch wisp_impl;          /* PMPI_X or wisp_impl_MPI_X */
extern const struct wisp_dispatch wisp_hooked;  /* the generated hooked_MPI_X */
extern const struct wisp_dispatch wisp_watched; /* watched_MPI_X, NULL without an event */

/* The wrapper layer's entries of core's table (core/wrapper.h), which
 * src/components.c fills in: core enables the hooks at MPI_Init and
 * MPI_Finalize; the components begin a group of functions (dispatch.c). */
void wisp_wrap_hooks_enable(enum wisp_core_hooks hooks);
void wisp_wrap_begin(enum wisp_core_group group);

/* What the wrappers report of each function (generated, enum
 * wisp_core_event of core/account.h, 0 for none). */
extern const unsigned char wisp_wrap_events[WISP_FN_COUNT];
/* The calls that return at once (gen_wrappers.py's QUICK and the starts). */
extern const bool wisp_wrap_quick[WISP_FN_COUNT];

/* Add `d` to a counter that the application's threads write and other
 * threads only read; the new value. With one caller at a time a plain load
 * and store (the calls are ordered by the application's own
 * synchronization), so that no locked instruction is paid per call. */
static inline __attribute__((always_inline)) unsigned wisp_wrap_count(_Atomic unsigned *counter,
                                                                      int d)
{
    if (!wisp_core_one_caller)
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
static inline __attribute__((always_inline)) void wisp_wrap_note(enum wisp_core_event event)
{
    struct wisp_core_activity *a = &wisp_core_activity;
    if (event == WISP_CORE_COMPLETES) {
        atomic_store_explicit(&a->pending, false, memory_order_relaxed);
        wisp_wrap_count(&a->ends, 1);
    } else if (event == WISP_CORE_STARTS) {
        bool asleep;
        if (wisp_core_one_caller) {
            atomic_store_explicit(&a->pending, true, memory_order_relaxed);
            atomic_signal_fence(memory_order_seq_cst);
            asleep = atomic_load_explicit(&a->watcher_asleep, memory_order_relaxed);
        } else {
            atomic_store(&a->pending, true);
            asleep = atomic_load(&a->watcher_asleep);
        }
        if (asleep)
            wisp_core_event_hook(event);
    } else if (event != WISP_CORE_BLOCKS) {
        wisp_core_event_hook(event);
    }
}

/* Around every hooked call: the account (core/account.h) when WISP_STATS or
 * a feature that needs the time spent in MPI switches it on. */
static inline __attribute__((always_inline)) uint64_t wisp_wrap_enter(void)
{
    if (wisp_core_event_hook)
        wisp_wrap_count(&wisp_core_activity.inside, 1);
    return wisp_core_accounting ? wisp_core_account_enter() : 0;
}

static inline __attribute__((always_inline)) void wisp_wrap_exit(enum wisp_fn_id id, uint64_t start)
{
    if (wisp_core_event_hook) {
        wisp_wrap_count(&wisp_core_activity.inside, -1);
        if (wisp_wrap_events[id])
            wisp_wrap_note((enum wisp_core_event)wisp_wrap_events[id]);
    }
    if (wisp_core_accounting)
        wisp_core_account_exit(id, start, wisp_wrap_quick[id]);
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
        wisp_wrap_count(&wisp_core_activity.inside, 1);                                            \
        __typeof__(wisp_impl.fn args) rc_ = wisp_impl.fn args;                                     \
        wisp_wrap_count(&wisp_core_activity.inside, -1);                                           \
        wisp_wrap_note(event);                                                                     \
        return rc_;                                                                                \
    } while (0)

#pragma GCC visibility pop

#endif
