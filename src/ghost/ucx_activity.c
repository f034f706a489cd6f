/*
 * How a ghost tells a poll that did some work from an empty one. Both
 * Debian MPIs drive UCX (MPICH's ch4:ucx device; Open MPI's ucx components),
 * and UCX's ucp_worker_progress returns how many operations it progressed.
 * libwisp defines ucp_worker_progress, which comes first in the symbol search
 * order (libwisp is preloaded, or linked before the MPI), passes every call
 * on to UCX's and counts what it reports. In a process whose MPI never calls
 * UCX the count stays unused and the ghost falls back on timing its polls
 * (serve.c). Only a ghost counts; elsewhere a poll costs a few tests and
 * a jump.
 *
 * Where the machine has more of the job's processes than cores, a process
 * that waits in the MPI spins on a core that another one (a ghost, a peer
 * that was preempted) needs to make the progress it waits for: the MPIs
 * never give the core up. There, after a run of empty polls, the poll
 * yields (sched_yield): a collective of the node's processes and a ghost
 * (a window's creation, 10 of them) took 158 ms a window on 2 cores
 * without it.
 */
#include <dlfcn.h>
#include <sched.h>
#include <stdlib.h>

#include "ghost/board.h"

_Atomic unsigned long wisp_ghost_ucx_events;
bool wisp_ghost_ucx_seen;
bool wisp_ghost_ucx_count;
bool wisp_ghost_ucx_yield;

enum { EMPTY_BEFORE_YIELD = 64 }; /* a few microseconds of empty polls */

__attribute__((visibility("default"))) unsigned ucp_worker_progress(void *worker);

static unsigned (*_Atomic ucx)(void *); /* UCX's own */

/* The slow path: UCX's function found, and a poll counted or followed by a
 * yield. */
static __attribute__((noinline)) unsigned watched(void *worker)
{
    static _Thread_local unsigned empty __attribute__((tls_model("initial-exec")));
    unsigned (*next)(void *) = atomic_load_explicit(&ucx, memory_order_relaxed);
    if (!next) {
        next = (unsigned (*)(void *))dlsym(RTLD_NEXT, "ucp_worker_progress");
        if (!next)
            abort(); /* called, so UCX is there */
        atomic_store_explicit(&ucx, next, memory_order_relaxed);
        wisp_ghost_ucx_seen = true;
    }
    unsigned n = next(worker);
    if (n) {
        if (wisp_ghost_ucx_count)
            atomic_fetch_add_explicit(&wisp_ghost_ucx_events, n, memory_order_relaxed);
        empty = 0;
    } else if (wisp_ghost_ucx_yield && ++empty == EMPTY_BEFORE_YIELD) {
        empty = 0;
        sched_yield();
    }
    return n;
}

/* Every MPI wait polls this, millions of times a second: the common case
 * is a tail call (an extra call and return cost MPICH's one-sided gets 10%
 * on 2 processes, `rma_phases get`). */
unsigned ucp_worker_progress(void *worker)
{
    unsigned (*next)(void *) = atomic_load_explicit(&ucx, memory_order_relaxed);
    if (__builtin_expect(!next || wisp_ghost_ucx_count || wisp_ghost_ucx_yield, 0))
        return watched(worker);
    return next(worker);
}
