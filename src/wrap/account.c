/*
 * Enter/exit accounting of the wrappers: calls and time inside MPI, per MPI
 * function and per process (the inline parts of enter and exit, and the
 * events a component asked to hear of, are in wrap.h). Only the outermost
 * call of a thread is timed, so an MPI library calling MPI_* internally
 * (ROMIO does) is not counted twice.
 */
#include <stdatomic.h>
#include <time.h>

#include "wrap/account.h"

bool wisp_wrap_accounting;

static _Atomic uint64_t calls[WISP_FN_COUNT];
static _Atomic uint64_t nanos[WISP_FN_COUNT];
static _Atomic uint64_t outside_long;
static _Thread_local unsigned depth;
static _Thread_local uint64_t last_exit; /* of this thread's last outermost call */
uint64_t wisp_wrap_gap_ns = UINT64_MAX;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

struct wisp_wrap_activity wisp_wrap_activity;
bool wisp_wrap_one_caller;

uint64_t wisp_wrap_enter_timed(void)
{
    if (depth++ != 0)
        return 0;
    uint64_t t = now_ns();
    if (last_exit && t - last_exit > wisp_wrap_gap_ns)
        atomic_fetch_add_explicit(&outside_long, t - last_exit, memory_order_relaxed);
    return t;
}

void (*wisp_wrap_event_hook)(enum wisp_wrap_event event);

void wisp_wrap_exit_timed(enum wisp_fn_id id, uint64_t start)
{
    atomic_fetch_add_explicit(&calls[id], 1, memory_order_relaxed);
    if (--depth == 0) {
        last_exit = now_ns();
        atomic_fetch_add_explicit(&nanos[id], last_exit - start, memory_order_relaxed);
    }
}

void wisp_wrap_account_read(enum wisp_fn_id id, uint64_t *ncalls, uint64_t *ns)
{
    *ncalls = atomic_load_explicit(&calls[id], memory_order_relaxed);
    *ns = atomic_load_explicit(&nanos[id], memory_order_relaxed);
}

uint64_t wisp_wrap_account_away_ns(void)
{
    return atomic_load_explicit(&outside_long, memory_order_relaxed);
}
