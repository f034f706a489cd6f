/*
 * The MPI's own exit handlers, for a process that leaves by _exit (mpi_exit.c).
 */
#ifndef WISP_CORE_MPI_EXIT_H
#define WISP_CORE_MPI_EXIT_H

#include <stdbool.h>

#pragma GCC visibility push(hidden)

/* Handlers registered while `on` are the MPI's (around PMPI_Init). */
void wisp_core_mpi_exit_recording(bool on);

/* Runs the MPI's handlers, last registered first, where the MPI needs them
 * at exit (MPICH 5 sends its process manager the finalize message from
 * one); a process about to _exit calls it after PMPI_Finalize. */
void wisp_core_mpi_exit_run(void);

#pragma GCC visibility pop

#endif
