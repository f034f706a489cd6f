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

/* What the wrappers keep of this process's time with MPI, for a reader in
 * another process (a ghost: ghost/async.c), in time-stamp ticks. */
struct wisp_wrap_live {
    _Atomic uint64_t away;      /* in gaps between outermost calls longer than the gap */
    _Atomic uint64_t last_exit; /* the last outermost call's end */
    _Atomic uint32_t inside;    /* a thread is in an outermost call (the last one to enter) */
    _Atomic uint32_t computing; /* the reader's verdict (ghost/async.c) */
    _Atomic int32_t pid;        /* the process's */
};
/* From now on keep it in `shared` (shared memory), or in this process again
 * (NULL), called while no other thread can be inside MPI. */
void wisp_wrap_account_share(struct wisp_wrap_live *shared);
/* The time-stamp counter, and nanoseconds in its ticks. */
uint64_t wisp_wrap_ticks(void);
uint64_t wisp_wrap_ns_to_ticks(uint64_t ns);

/* Where this process's live profile is kept now (profile.h reads it). */
struct wisp_wrap_live *wisp_wrap_account_live(void);

#endif
