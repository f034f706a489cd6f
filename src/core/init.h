/* Start-up and shut-down of wisp around the underlying MPI's. */
#ifndef WISP_CORE_INIT_H
#define WISP_CORE_INIT_H

#pragma GCC visibility push(hidden)

/* MPI_Init (required < 0) or MPI_Init_thread, with wisp's set-up around it. */
int wisp_core_init(int *argc, char ***argv, int required, int *provided);
int wisp_core_finalize(void);

#pragma GCC visibility pop

#endif
