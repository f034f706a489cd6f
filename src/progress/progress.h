/*
 * The progress thread (seed 004): with WISP_PROGRESS=thread, one thread per
 * process moves the MPI's outstanding requests while the application
 * computes. It cannot see the MPI's requests complete, so it looks while
 * they may be outstanding: from a nonblocking call until the application
 * next waits for or tests requests, then WISP_PROGRESS_LINGER longer (a
 * test may have left some); and while a window is open. The rest of the
 * time it sleeps on a futex that the next nonblocking call rings
 * (thread.c, docs/ult.md). With WISP_PROGRESS=auto it also sleeps while
 * the process's profile (core/profile.h) says it is with MPI.
 */
#ifndef WISP_PROGRESS_PROGRESS_H
#define WISP_PROGRESS_PROGRESS_H

#pragma GCC visibility push(hidden)

/* Component start/stop (src/components.c); collective. */
void wisp_progress_start(int thread_level);
void wisp_progress_stop(void);

#pragma GCC visibility pop

#endif
