/*
 * The spin of wisp's waits and what their yields teach it (wait.h).
 */
#include "core/wait.h"

#include <sched.h>

enum {
    SPIN_NS = 50000,    /* the spin on a quiet node, and the longest */
    SPIN_MIN_NS = 2000, /* the shortest: two processes evidently share a core */
    SWITCHED_NS = 4000, /* a yield this long, or a gap between two reads of
                           the clock this long, let another process run */
    SLICE_NS = 300000,  /* a yield this long gave a busy process its time slice */
};

_Atomic uint64_t wisp_core_wait_spin;
_Atomic uint64_t wisp_core_wait_gap = UINT64_MAX;
/* Atomic, as threads may set them up at once (with the same values). */
static _Atomic uint64_t spin_quiet, spin_min;

uint64_t wisp_core_wait_spin_setup(void)
{
    uint64_t quiet = wisp_core_ns_to_ticks(SPIN_NS);
    atomic_store_explicit(&spin_quiet, quiet, memory_order_relaxed);
    atomic_store_explicit(&spin_min, wisp_core_ns_to_ticks(SPIN_MIN_NS), memory_order_relaxed);
    atomic_store_explicit(&wisp_core_wait_gap, wisp_core_ns_to_ticks(SWITCHED_NS),
                          memory_order_relaxed);
    uint64_t none = 0;
    atomic_compare_exchange_strong(&wisp_core_wait_spin, &none, quiet);
    return atomic_load_explicit(&wisp_core_wait_spin, memory_order_relaxed);
}

void wisp_core_wait_yield(struct wisp_core_wait *w)
{
    uint64_t t0 = wisp_core_ticks();
    sched_yield();
    uint64_t ns = wisp_core_ticks_to_ns(wisp_core_ticks() - t0);
    if (ns >= SWITCHED_NS) {
        w->switched_ns = ns;
        w->after = 0;
        w->busy |= ns >= SLICE_NS;
    }
}

void wisp_core_wait_learn(struct wisp_core_wait *w)
{
    uint64_t spin = atomic_load_explicit(&wisp_core_wait_spin, memory_order_relaxed);
    if (!spin)
        return;
    uint64_t quiet = atomic_load_explicit(&spin_quiet, memory_order_relaxed);
    uint64_t least = atomic_load_explicit(&spin_min, memory_order_relaxed);
    if (!quiet)
        return; /* another thread sets the spin up right now */
    if (!w->yielding && wisp_core_ticks() - w->last >
                            atomic_load_explicit(&wisp_core_wait_gap, memory_order_relaxed)) {
        w->switched_ns = 1; /* preempted while it spun, and then the wait was over */
        w->after = 0;
    }
    if (w->busy)
        spin *= 2; /* a yield lost the core for a time slice: spin longer */
    else if (w->switched_ns && w->after <= 1)
        spin /= 4; /* the awaited process ran on this core: yield sooner */
    else if (w->yielding && !w->switched_ns)
        spin += spin / 4 + 1; /* the core was free: back towards the quiet spin */
    spin = spin < least ? least : spin > quiet ? quiet : spin;
    atomic_store_explicit(&wisp_core_wait_spin, spin, memory_order_relaxed);
}
