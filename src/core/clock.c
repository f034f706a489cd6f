/*
 * The time-stamp counter's rate (clock.h).
 */
#include "core/clock.h"

#include <stdbool.h>

static double ns_per_tick = 1;

/* The counter's rate against the clock, over a millisecond. */
void wisp_core_clock_calibrate(void)
{
#if defined(__x86_64__)
    static bool done;
    if (done)
        return;
    done = true;
    uint64_t t0 = wisp_core_ticks(), n0 = wisp_core_clock_ns(), n1;
    while ((n1 = wisp_core_clock_ns()) - n0 < 1000000)
        ;
    uint64_t t1 = wisp_core_ticks();
    if (t1 > t0)
        ns_per_tick = (double)(n1 - n0) / (double)(t1 - t0);
#endif
}

uint64_t wisp_core_ticks_to_ns(uint64_t t)
{
    return (uint64_t)((double)t * ns_per_tick);
}

uint64_t wisp_core_ns_to_ticks(uint64_t ns)
{
    wisp_core_clock_calibrate();
    return (uint64_t)((double)ns / ns_per_tick);
}
