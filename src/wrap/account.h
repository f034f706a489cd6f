/* Reading the per-function counters that the wrappers accumulate. */
#ifndef WISP_WRAP_ACCOUNT_H
#define WISP_WRAP_ACCOUNT_H

#include "wrap/wrap.h"

/* Calls of `id` so far, and nanoseconds spent in its outermost calls. */
void wisp_wrap_account_read(enum wisp_fn_id id, uint64_t *ncalls, uint64_t *ns);

/* Switch the accounting on (while no other thread can be inside MPI):
 * calls and time per function when `functions` (WISP_STATS), and the time
 * away from MPI in gaps between calls longer than `gap_ns` unless it is
 * UINT64_MAX (the ghosts' profiles). */
void wisp_wrap_account_start(bool functions, uint64_t gap_ns);

/* Nanoseconds the threads spent between two outermost MPI calls in gaps
 * longer than the `gap_ns` given (away from MPI: computing) so far. A
 * polling loop spends much of its time between its calls, in short gaps:
 * those count as time with MPI. */
uint64_t wisp_wrap_account_away_ns(void);

#endif
