/*
 * The progress thread (seed 004): with WISP_PROGRESS=thread, one thread per
 * process moves the MPI's outstanding requests while the application
 * computes. It cannot see the MPI's requests complete, so it looks while
 * they may be outstanding: from a nonblocking call until the application
 * next waits for or tests requests, then WISP_PROGRESS_LINGER longer (a
 * test may have left some); and while a window is open. The rest of the
 * time it sleeps on a futex that the next nonblocking call rings
 * (thread.c, docs/ult.md).
 */
#ifndef WISP_PROGRESS_PROGRESS_H
#define WISP_PROGRESS_PROGRESS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

struct wisp_progress {
    bool on;                     /* the thread runs */
    _Atomic unsigned events;     /* nonblocking calls, waits and tests, ever */
    _Atomic unsigned last_start; /* the number (in `events`) of the last nonblocking call */
    _Atomic unsigned last_end;   /* and of the last MPI_Wait* or MPI_Test* */
    _Atomic int windows;         /* windows created and not freed */
    _Atomic bool asleep;         /* the thread waits on `bell` */
    _Atomic uint32_t bell;       /* futex word */
};
extern struct wisp_progress wisp_progress;

/* Component start/stop (src/components.c); collective. */
void wisp_progress_start(int thread_level);
void wisp_progress_stop(void);

/* The application made a nonblocking call (or opened a window): wake the
 * thread if it sleeps. Cheap when it does not: one load. */
void wisp_progress_wake(void);
static inline void wisp_progress_started(void)
{
    /* Sequentially consistent, both: the thread sets `asleep` and then reads
     * `last_start`; so either it sees this call or this call sees it asleep. */
    atomic_store(&wisp_progress.last_start, atomic_fetch_add(&wisp_progress.events, 1) + 1);
    if (atomic_load(&wisp_progress.asleep))
        wisp_progress_wake();
}

#pragma GCC visibility pop

#endif
