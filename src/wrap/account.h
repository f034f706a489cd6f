/* Reading the per-function counters that the wrappers accumulate. */
#ifndef WISP_WRAP_ACCOUNT_H
#define WISP_WRAP_ACCOUNT_H

#include "wrap/wrap.h"

/* Calls of `id` so far, and nanoseconds spent in its outermost calls. */
void wisp_wrap_account_read(enum wisp_fn_id id, uint64_t *ncalls, uint64_t *ns);

/* Nanoseconds the threads spent between two outermost MPI calls in gaps
 * longer than wisp_wrap_gap_ns (away from MPI: computing) so far. A
 * polling loop spends much of its time between its calls, in short gaps:
 * those count as time with MPI. */
extern uint64_t wisp_wrap_gap_ns;
uint64_t wisp_wrap_account_away_ns(void);

#endif
