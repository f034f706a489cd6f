/*
 * Whether the application computes or spends its time with MPI, from the
 * wrappers' accounting (account.h): the decision that adaptive progress
 * takes for ghosts (ghost/profile.c) and for the progress thread
 * (progress/thread.c), with the same variables (WISP_ASYNC_*).
 *
 * A stretch's share of time with MPI is all but the gaps between two MPI
 * calls longer than WISP_ASYNC_GAP: a process that calls MPI more often
 * than that, as a loop of polls does, moves the MPI itself. Above
 * WISP_ASYNC_OFF_ABOVE percent it is with MPI, below WISP_ASYNC_ON_BELOW it
 * computes, in between it keeps what it was (hysteresis).
 */
#ifndef WISP_CORE_PROFILE_H
#define WISP_CORE_PROFILE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/account.h"

#pragma GCC visibility push(hidden)

/* WISP_ASYNC_GAP, or by the machine where unset (profile.c). */
uint64_t wisp_core_profile_gap_ns(void);

/* The ticks a process spent away from MPI by `now` (ticks), counting the
 * gap under way, which its next call adds whole; `gap` in ticks. */
uint64_t wisp_core_profile_away(struct wisp_core_live *live, uint64_t now, uint64_t gap);

/* The ticks the main thread of process `pid` (0: this one) waited for a
 * core so far (the kernel's run delay; 0 where unknown). A process descheduled between two
 * calls would look as if it computed: that wait counts neither as time
 * away nor as time at all. */
uint64_t wisp_core_profile_waited(int pid);

/* One reader's view of one process: the stretch under way and its last
 * verdict (computing until a stretch says otherwise). */
struct wisp_core_stretch {
    uint64_t at, away, waited; /* at the stretch's start, in ticks */
    bool computing;
    double fraction; /* of the last stretch spent with MPI */
};

/* Close the stretch if at least `interval` ticks long at `now` and judge it
 * (`away` and `waited` as above); the verdict. */
bool wisp_core_profile_stretch(struct wisp_core_stretch *s, uint64_t now, uint64_t away,
                               uint64_t waited, uint64_t interval);

#pragma GCC visibility pop

#endif
