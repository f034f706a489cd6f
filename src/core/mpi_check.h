/*
 * A libwisp built for another MPI than the process's steps aside instead of
 * crashing (docs/design.md, "A library for another MPI"). At load, when it
 * came in by LD_PRELOAD, it restarts the program without itself
 * (mpi_check.c's constructor); what is left for MPI_Init is below.
 */
#ifndef WISP_CORE_MPI_CHECK_H
#define WISP_CORE_MPI_CHECK_H

#pragma GCC visibility push(hidden)

/* First thing in MPI_Init and MPI_Init_thread, before any call into the MPI:
 * when the process carries the other MPI and not libwisp's (loaded since by
 * dlopen, or libwisp linked in, or a restart that could not be made), one
 * line from the launcher's first task and exit(1). Costs one walk of the
 * loaded objects when the MPI fits. */
void wisp_core_mpi_check_at_init(void);

#pragma GCC visibility pop

#endif
