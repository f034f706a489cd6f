/*
 * The account of the application's MPI calls (account.h): calls and time
 * inside MPI, per MPI function and per process, which the wrappers write
 * (the inline parts of enter and exit, and the events a component asked to
 * hear of, are in src/wrap/wrap.h). Only the outermost call of a thread is
 * timed, so an MPI library calling MPI_* internally (ROMIO does) is not
 * counted twice. Time is in the ticks of clock.h.
 */
#include "core/account.h"

#include <sched.h>
#include <stdatomic.h>
#include <unistd.h>

#include "core/clock.h"

const char *const wisp_fn_names[WISP_FN_COUNT] = {
#define WISP_FN(f) #f,
#include "present.def"
#undef WISP_FN
};

bool wisp_core_accounting;

static bool per_function; /* calls and time per function (WISP_STATS) */
static _Atomic uint64_t calls[WISP_FN_COUNT];
static _Atomic uint64_t ticks_in[WISP_FN_COUNT];
static struct wisp_core_live own, *live = &own; /* where the live profile is written */
static uint64_t gap = UINT64_MAX;
/* initial-exec: one %fs-relative access per call, not a __tls_get_addr call
 * (as heap.c's tcache; the library is loaded at start or linked). */
static _Thread_local unsigned depth __attribute__((tls_model("initial-exec")));
static _Thread_local uint64_t last_exit __attribute__((tls_model("initial-exec")));
/* The start of the thread's outermost call. Kept here, not taken from the
 * caller: the ULTs of one kernel thread share its depth (a ULT waiting in
 * MPI yields to another, which may enter MPI too), and the call that brings
 * the depth back to 0 may be another ULT's, whose own start was 0 (inside):
 * the thread's time in MPI runs from the first entry to the last exit. */
static _Thread_local uint64_t entered __attribute__((tls_model("initial-exec")));
/* WISP_STATS's time in MPI is the process's: from the moment one of its
 * threads enters MPI (outermost) until none is inside, so that it never
 * exceeds the wall time however many threads or ULT streams wait in MPI
 * together. A period is counted to the function whose exit closes it: with
 * one thread, each outermost call's own time. A lock of a few instructions,
 * taken only with WISP_STATS, at a thread's outermost entry and exit. */
static atomic_flag busy_lock = ATOMIC_FLAG_INIT;
static unsigned busy_threads; /* threads inside an outermost call */
static uint64_t busy_since;   /* when the first of them entered */
/* This thread's outermost call counts in busy_threads (WISP_STATS was on
 * when it entered). */
static _Thread_local bool in_busy __attribute__((tls_model("initial-exec")));

static void busy_lock_take(void)
{
    /* Held for a few instructions; but its holder may have lost its core. */
    for (unsigned spins = 0; atomic_flag_test_and_set_explicit(&busy_lock, memory_order_acquire);)
        if (++spins % 64 == 0)
            sched_yield();
}

static void busy_enter(uint64_t t)
{
    busy_lock_take();
    if (busy_threads++ == 0)
        busy_since = t;
    atomic_flag_clear_explicit(&busy_lock, memory_order_release);
}

/* The period that the thread leaving at `t` closes, 0 if others are inside. */
static uint64_t busy_exit(uint64_t t)
{
    busy_lock_take();
    uint64_t period = --busy_threads == 0 ? t - busy_since : 0;
    atomic_flag_clear_explicit(&busy_lock, memory_order_release);
    return period;
}

void wisp_core_account_share(struct wisp_core_live *shared)
{
    if (!shared)
        shared = &own;
    atomic_store(&shared->away, atomic_load(&live->away));
    atomic_store(&shared->pid, (int32_t)getpid());
    live = shared;
}

void wisp_core_account_start(bool functions, uint64_t gap_ns)
{
    wisp_core_clock_calibrate();
    per_function |= functions;
    if (gap_ns != UINT64_MAX)
        gap = wisp_core_ns_to_ticks(gap_ns);
    wisp_core_accounting = true;
}

struct wisp_core_activity wisp_core_activity;
bool wisp_core_one_caller;

uint64_t wisp_core_account_enter(void)
{
    if (depth++ != 0)
        return 0;
    uint64_t t = wisp_core_ticks();
    entered = t;
    if ((in_busy = per_function))
        busy_enter(t);
    if (last_exit && t - last_exit > gap)
        atomic_fetch_add_explicit(&live->away, t - last_exit, memory_order_relaxed);
    atomic_store_explicit(&live->inside, 1, memory_order_relaxed);
    return t;
}

void (*wisp_core_event_hook)(enum wisp_core_event event);

void wisp_core_account_exit(enum wisp_fn_id id, uint64_t start, bool quick)
{
    (void)start; /* the thread's own `entered` instead (above) */
    if (per_function)
        atomic_fetch_add_explicit(&calls[id], 1, memory_order_relaxed);
    if (--depth == 0) {
        /* A quick call's end is its start, one read saved: off by no more
         * than the call, which then counts into the gap after it. */
        last_exit = quick && !per_function ? entered : wisp_core_ticks();
        atomic_store_explicit(&live->last_exit, last_exit, memory_order_relaxed);
        atomic_store_explicit(&live->inside, 0, memory_order_relaxed);
        if (in_busy)
            atomic_fetch_add_explicit(&ticks_in[id], busy_exit(last_exit), memory_order_relaxed);
        in_busy = false;
    }
}

void wisp_core_account_read(enum wisp_fn_id id, uint64_t *ncalls, uint64_t *ns)
{
    *ncalls = atomic_load_explicit(&calls[id], memory_order_relaxed);
    *ns = wisp_core_ticks_to_ns(atomic_load_explicit(&ticks_in[id], memory_order_relaxed));
}

struct wisp_core_live *wisp_core_account_live(void)
{
    return live;
}
