/*
 * The clock of wisp's accounting and profiles: the processor's time-stamp
 * counter where it is invariant (x86-64: about 9 ns a read here, against
 * 21 ns for clock_gettime; every MPI call reads it once, one that may wait
 * twice, while a profile needs it), converted to nanoseconds when it is
 * read out; elsewhere CLOCK_MONOTONIC in nanoseconds.
 */
#ifndef WISP_CORE_CLOCK_H
#define WISP_CORE_CLOCK_H

#include <stdint.h>
#include <time.h>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#pragma GCC visibility push(hidden)

static inline uint64_t wisp_core_clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The time-stamp counter. */
static inline uint64_t wisp_core_ticks(void)
{
#if defined(__x86_64__)
    return __rdtsc();
#else
    return wisp_core_clock_ns();
#endif
}

/* Measure the counter's rate against the clock, once (a millisecond). */
void wisp_core_clock_calibrate(void);
/* Nanoseconds in ticks (calibrating first), and ticks in nanoseconds. */
uint64_t wisp_core_ns_to_ticks(uint64_t ns);
uint64_t wisp_core_ticks_to_ns(uint64_t t);

#pragma GCC visibility pop

#endif
