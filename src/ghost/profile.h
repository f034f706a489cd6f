/*
 * The profiles of adaptive asynchronous progress (async.h): whether a
 * process computes (its operations want a ghost) or spends its time with
 * MPI (they go to it directly), from its own wrappers' timing at a safe
 * point, and live, judged by its node's first ghost (profile.c).
 */
#ifndef WISP_GHOST_PROFILE_H
#define WISP_GHOST_PROFILE_H

#include <stdbool.h>

#pragma GCC visibility push(hidden)

/* In an application process, once windows are served: keep the profile,
 * and write it to this process's slot of the node's board. */
void wisp_ghost_profile_start(void);

/* Whether this process computes, from the last stretch of at least
 * WISP_ASYNC_INTERVAL since it last asked; and that stretch's share of
 * time with MPI (for the logs). */
bool wisp_ghost_profile_computing(void);
double wisp_ghost_profile_fraction(void);

/* In the node's first ghost, from its loop: judge every local process's
 * live profile when an interval has passed; the nanoseconds until the
 * next judgement. */
long wisp_ghost_profile_judge_node(void);

/* The live verdict on the node's application process `local`: 1
 * computing, 0 with MPI, -1 none kept. */
int wisp_ghost_profile_live(int local);

#pragma GCC visibility pop

#endif
