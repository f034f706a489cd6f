/*
 * The account of the application's MPI calls (account.h): calls and time
 * inside MPI, per MPI function and per process, which the wrappers write
 * (the inline parts of enter and exit, and the events a component asked to
 * hear of, are in src/wrap/wrap.h). Only the outermost call of a thread is
 * timed, so an MPI library calling MPI_* internally (ROMIO does) is not
 * counted twice. Time is in the ticks of clock.h.
 */
#include "core/account.h"

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
    if (last_exit && t - last_exit > gap)
        atomic_fetch_add_explicit(&live->away, t - last_exit, memory_order_relaxed);
    atomic_store_explicit(&live->inside, 1, memory_order_relaxed);
    return t;
}

void (*wisp_core_event_hook)(enum wisp_core_event event);

void wisp_core_account_exit(enum wisp_fn_id id, uint64_t start, bool quick)
{
    if (per_function)
        atomic_fetch_add_explicit(&calls[id], 1, memory_order_relaxed);
    if (--depth == 0) {
        /* A quick call's end is its start, one read saved: off by no more
         * than the call, which then counts into the gap after it. */
        last_exit = quick && !per_function ? start : wisp_core_ticks();
        atomic_store_explicit(&live->last_exit, last_exit, memory_order_relaxed);
        atomic_store_explicit(&live->inside, 0, memory_order_relaxed);
        if (per_function)
            atomic_fetch_add_explicit(&ticks_in[id], last_exit - start, memory_order_relaxed);
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
