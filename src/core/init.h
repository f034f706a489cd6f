/* Start-up and shut-down of wisp around the underlying MPI's. */
#ifndef WISP_CORE_INIT_H
#define WISP_CORE_INIT_H

#include <stdatomic.h>
#include <stdbool.h>

#pragma GCC visibility push(hidden)

/* MPI_Init (required < 0) or MPI_Init_thread, with wisp's set-up around it. */
int wisp_core_init(int *argc, char ***argv, int required, int *provided);
int wisp_core_finalize(void);
/* MPI_Query_thread: the level the application was given. */
int wisp_core_query_thread(int *provided);

/* Blocking collectives go through their nonblocking forms, so that a
 * user-level thread waiting in one yields (src/ult/yields.def): set by
 * MPI_Init only where every process asked for it, since a blocking and a
 * nonblocking collective never match. */
extern bool wisp_core_nonblocking_collectives;

/* Set by MPI_Init where the MPI cannot serve ULTs of several kernel threads
 * at once (docs/ult.md, "Thread levels"): ULTs forked from then on run on
 * stream 0 (the thread that first used the API, normally the main one) and
 * wisp_ult_threads() says 1; ULTs already placed keep their stream. */
extern _Atomic bool wisp_core_ult_one_thread;

/* Every rank calls it together: print `line` (if not NULL), finalize the
 * underlying MPI and exit with status 1. For set-up problems that all ranks
 * have agreed on, so the job ends with a message instead of a hang. */
_Noreturn void wisp_core_stop(const char *line);

#pragma GCC visibility pop

#endif
