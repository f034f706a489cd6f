/* Reading the per-function counters that the wrappers accumulate. */
#ifndef WISP_WRAP_ACCOUNT_H
#define WISP_WRAP_ACCOUNT_H

#include "wrap/wrap.h"

/* Calls of `id` so far, and nanoseconds spent in its outermost calls. */
void wisp_wrap_account_read(enum wisp_fn_id id, uint64_t *ncalls, uint64_t *ns);

/* Nanoseconds spent in the outermost MPI calls of all threads so far. */
uint64_t wisp_wrap_account_total_ns(void);

#endif
