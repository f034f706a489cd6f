/*
 * When a wait of wisp's gives its core away (wait.c), one policy for the
 * point-to-point engine's waits and the collectives': a wait spins for a
 * bounded time, then yields the core at every poll, and the time adapts
 * to what the wait saw of the scheduler.
 *
 * A spinning wait is the fastest while the process it waits for runs on a
 * core of its own. On a node shared with other jobs it may not: where the
 * two processes share a core's run queue (the scheduler put them there
 * beside a busy process on the other core), every poll of the one that
 * runs burns the time the other needs, and a fixed spin of thousands of
 * polls before a yield made each exchange wait for a time slice. So:
 *
 * - the first polls spin without reading the clock (WISP_CORE_WAIT_FREE);
 *   from then on the wait spins until its spin time has passed, then
 *   yields at every poll (sched_yield: a core with nobody else to run
 *   gives it straight back, for a system call's cost);
 * - the wait notes when another process ran on its core: a yield that
 *   took a while, or a gap between two reads of the clock (it was
 *   preempted). Where the wait was over as soon as it ran again, the
 *   awaited process evidently ran on this core: the next waits spin a
 *   quarter as long (down to 2 us). A yield that lost a whole time slice
 *   gave the core to a busy process, not to the awaited one: the spin
 *   doubles;
 * - waits that yielded and found the core free let the spin grow back
 *   by a quarter, up to its quiet length (50 us, the longest: a longer
 *   spin, up to milliseconds, made the waits lose the stacked case
 *   again, measured, docs/results/2026-12-07-coll-load.md).
 *
 * No wait sleeps here: a yield needs no waker, so none can hang. The spin
 * is process-wide (every thread's waits share what they learnt); races
 * between threads only blur it.
 */
#ifndef WISP_CORE_WAIT_H
#define WISP_CORE_WAIT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/clock.h"

#pragma GCC visibility push(hidden)

enum {
    WISP_CORE_WAIT_FREE = 16, /* polls before the clock is first read */
    WISP_CORE_WAIT_EVERY = 8, /* polls between reads of the clock */
};

/* One wait's state; all zero at its start (WISP_CORE_WAIT_INIT). */
struct wisp_core_wait {
    uint64_t until;       /* ticks: the end of the spin (0: not read yet) */
    uint64_t last;        /* ticks at the last read of the clock */
    uint64_t switched_ns; /* how long another ran on this core, last time (0: never) */
    unsigned polls;       /* idle polls so far */
    unsigned after;       /* polls since then */
    bool yielding, busy;  /* past the spin; a yield lost a time slice */
};
#define WISP_CORE_WAIT_INIT                                                                        \
    {                                                                                              \
        0                                                                                          \
    }

/* The spin, in ticks of wisp_core_ticks() (0 before the first wait), and
 * the gap between two reads of the clock that says the wait was preempted. */
extern _Atomic uint64_t wisp_core_wait_spin;
extern _Atomic uint64_t wisp_core_wait_gap;
uint64_t wisp_core_wait_spin_setup(void);

/* One idle poll of a wait: true when it should give its core away now
 * (through wisp_core_wait_yield, or a nap of its own), false to spin. */
static inline bool wisp_core_wait_due(struct wisp_core_wait *w)
{
    unsigned p = ++w->polls;
    w->after++;
    if (w->yielding)
        return true;
    if (p < WISP_CORE_WAIT_FREE || p % WISP_CORE_WAIT_EVERY)
        return false;
    uint64_t now = wisp_core_ticks();
    if (!w->until) {
        uint64_t spin = atomic_load_explicit(&wisp_core_wait_spin, memory_order_relaxed);
        w->until = now + (spin ? spin : wisp_core_wait_spin_setup());
    } else if (now - w->last > atomic_load_explicit(&wisp_core_wait_gap, memory_order_relaxed)) {
        w->switched_ns = 1; /* preempted, and the wait goes on */
        w->after = 0;
    }
    w->last = now;
    if (now < w->until)
        return false;
    w->yielding = true;
    return true;
}

/* sched_yield, timed: what it found teaches the waits to come. */
void wisp_core_wait_yield(struct wisp_core_wait *w);

/* Out of line: wisp_core_wait_end's lesson. */
void wisp_core_wait_learn(struct wisp_core_wait *w);

/* The wait is over: one that read the clock adapts the spin. */
static inline void wisp_core_wait_end(struct wisp_core_wait *w)
{
    if (w->until)
        wisp_core_wait_learn(w);
}

#pragma GCC visibility pop

#endif
