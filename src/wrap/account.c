/*
 * Enter/exit accounting of the wrappers: calls and time inside MPI, per MPI
 * function and per process (the inline parts of enter and exit, and the
 * events a component asked to hear of, are in wrap.h). Only the outermost
 * call of a thread is timed, so an MPI library calling MPI_* internally
 * (ROMIO does) is not counted twice.
 *
 * Time is read from the processor's time-stamp counter where it is
 * invariant (x86-64: about 9 ns a read here, against 21 ns for
 * clock_gettime; every MPI call reads it once, one that may wait twice,
 * while a profile needs it), and converted to nanoseconds when it is read
 * out.
 */
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "wrap/account.h"

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

bool wisp_wrap_accounting;

static bool per_function; /* calls and time per function (WISP_STATS) */
static _Atomic uint64_t calls[WISP_FN_COUNT];
static _Atomic uint64_t ticks_in[WISP_FN_COUNT];
static struct wisp_wrap_live own, *live = &own; /* where the live profile is written */
static uint64_t gap = UINT64_MAX;
/* initial-exec: one %fs-relative access per call, not a __tls_get_addr call
 * (as heap.c's tcache; the library is loaded at start or linked). */
static _Thread_local unsigned depth __attribute__((tls_model("initial-exec")));
static _Thread_local uint64_t last_exit __attribute__((tls_model("initial-exec")));
static double ns_per_tick = 1;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t ticks(void)
{
#if defined(__x86_64__)
    return __rdtsc();
#else
    return now_ns();
#endif
}

/* The counter's rate against the clock, over a millisecond. */
static void calibrate(void)
{
#if defined(__x86_64__)
    static bool done;
    if (done)
        return;
    done = true;
    uint64_t t0 = ticks(), n0 = now_ns(), n1;
    while ((n1 = now_ns()) - n0 < 1000000)
        ;
    uint64_t t1 = ticks();
    if (t1 > t0)
        ns_per_tick = (double)(n1 - n0) / (double)(t1 - t0);
#endif
}

static uint64_t to_ns(uint64_t t)
{
    return (uint64_t)((double)t * ns_per_tick);
}

uint64_t wisp_wrap_ticks(void)
{
    return ticks();
}

uint64_t wisp_wrap_ns_to_ticks(uint64_t ns)
{
    calibrate();
    return (uint64_t)((double)ns / ns_per_tick);
}

void wisp_wrap_account_share(struct wisp_wrap_live *shared)
{
    if (!shared)
        shared = &own;
    atomic_store(&shared->away, atomic_load(&live->away));
    atomic_store(&shared->pid, (int32_t)getpid());
    live = shared;
}

void wisp_wrap_account_start(bool functions, uint64_t gap_ns)
{
    calibrate();
    per_function |= functions;
    if (gap_ns != UINT64_MAX)
        gap = wisp_wrap_ns_to_ticks(gap_ns);
    wisp_wrap_accounting = true;
}

struct wisp_wrap_activity wisp_wrap_activity;
bool wisp_wrap_one_caller;

uint64_t wisp_wrap_enter_timed(void)
{
    if (depth++ != 0)
        return 0;
    uint64_t t = ticks();
    if (last_exit && t - last_exit > gap)
        atomic_fetch_add_explicit(&live->away, t - last_exit, memory_order_relaxed);
    atomic_store_explicit(&live->inside, 1, memory_order_relaxed);
    return t;
}

void (*wisp_wrap_event_hook)(enum wisp_wrap_event event);

void wisp_wrap_exit_timed(enum wisp_fn_id id, uint64_t start)
{
    if (per_function)
        atomic_fetch_add_explicit(&calls[id], 1, memory_order_relaxed);
    if (--depth == 0) {
        /* A quick call's end is its start, one read saved: off by no more
         * than the call, which then counts into the gap after it. */
        last_exit = wisp_wrap_quick[id] && !per_function ? start : ticks();
        atomic_store_explicit(&live->last_exit, last_exit, memory_order_relaxed);
        atomic_store_explicit(&live->inside, 0, memory_order_relaxed);
        if (per_function)
            atomic_fetch_add_explicit(&ticks_in[id], last_exit - start, memory_order_relaxed);
    }
}

void wisp_wrap_account_read(enum wisp_fn_id id, uint64_t *ncalls, uint64_t *ns)
{
    *ncalls = atomic_load_explicit(&calls[id], memory_order_relaxed);
    *ns = to_ns(atomic_load_explicit(&ticks_in[id], memory_order_relaxed));
}

struct wisp_wrap_live *wisp_wrap_account_live(void)
{
    return live;
}
