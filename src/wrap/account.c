/*
 * Enter/exit accounting of the wrappers: calls and time inside MPI, per MPI
 * function and per process; and the events a component asked to hear of. Only the outermost call of
 * a thread is timed, so an MPI library calling MPI_* internally (ROMIO does) is not counted twice.
 */
#include <stdatomic.h>
#include <time.h>

#include "wrap/account.h"

bool wisp_wrap_accounting;

static _Atomic uint64_t calls[WISP_FN_COUNT];
static _Atomic uint64_t nanos[WISP_FN_COUNT];
static _Thread_local unsigned depth;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

_Atomic int wisp_wrap_inside;

uint64_t wisp_wrap_enter(void)
{
    if (wisp_wrap_event_hook)
        atomic_fetch_add_explicit(&wisp_wrap_inside, 1, memory_order_relaxed);
    if (!wisp_wrap_accounting)
        return 0;
    return depth++ == 0 ? now_ns() : 0;
}

void (*wisp_wrap_event_hook)(enum wisp_wrap_event event);

void wisp_wrap_exit(enum wisp_fn_id id, uint64_t start)
{
    if (wisp_wrap_event_hook) {
        atomic_fetch_sub_explicit(&wisp_wrap_inside, 1, memory_order_relaxed);
        if (wisp_wrap_events[id])
            wisp_wrap_event_hook((enum wisp_wrap_event)wisp_wrap_events[id]);
    }
    if (!wisp_wrap_accounting)
        return;
    atomic_fetch_add_explicit(&calls[id], 1, memory_order_relaxed);
    if (--depth == 0)
        atomic_fetch_add_explicit(&nanos[id], now_ns() - start, memory_order_relaxed);
}

void wisp_wrap_account_read(enum wisp_fn_id id, uint64_t *ncalls, uint64_t *ns)
{
    *ncalls = atomic_load_explicit(&calls[id], memory_order_relaxed);
    *ns = atomic_load_explicit(&nanos[id], memory_order_relaxed);
}
