/*
 * When a wait of wisp's gives its core away (wait.c), one policy for the
 * point-to-point engine's waits and the collectives': a wait spins for a
 * bounded time, then yields the core at every poll, and the time adapts
 * to what the yields find.
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
 * - every yield is timed. One that came back at once found the core free:
 *   nothing to learn but that yielding costs little here. One that let
 *   another process run, briefly, and after which the wait was over let
 *   the awaited process run on this core: the next waits spin a quarter
 *   as long (down to SPIN_MIN_NS), as the two processes evidently share a
 *   core. One that lasted a time slice or more gave the core to a busy
 *   process, not the awaited one: the spin doubles (up to SPIN_NS);
 * - waits that yielded and only found the core free let the spin grow
 *   back towards SPIN_NS, so a node that became quiet spins again.
 *
 * No wait sleeps here: a yield needs no waker, so none can hang. The time
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
    unsigned polls;       /* idle polls so far */
    unsigned after;       /* polls since the last yield that let another run */
    uint64_t switched_ns; /* how long that yield lasted (0: none yet) */
    bool yielding, busy;  /* past the spin; a yield met a busy process */
};
#define WISP_CORE_WAIT_INIT                                                                        \
    {                                                                                              \
        0, 0, 0, 0, false, false                                                                   \
    }

/* The spin, in ticks of wisp_core_ticks(); 0 before the first wait. */
extern _Atomic uint64_t wisp_core_wait_spin;
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
        return false;
    }
    if (now < w->until)
        return false;
    w->yielding = true;
    return true;
}

/* sched_yield, timed: what it found teaches the waits to come. */
void wisp_core_wait_yield(struct wisp_core_wait *w);

void wisp_core_wait_learn(struct wisp_core_wait *w);

/* The wait is over: a wait that yielded adapts the spin. */
static inline void wisp_core_wait_end(struct wisp_core_wait *w)
{
    if (w->yielding)
        wisp_core_wait_learn(w);
}

#pragma GCC visibility pop

#endif
