/*
 * A launch that went wrong: the launcher started several processes and the
 * MPI made each a world of its own (srun without --mpi=, or another MPI's
 * mpiexec). The run goes on as it is; wisp says what happened and the fix.
 */
#ifndef WISP_CORE_LAUNCH_H
#define WISP_CORE_LAUNCH_H

#pragma GCC visibility push(hidden)

/* Before PMPI_Init: one line on stderr, from srun's task 0, when srun
 * started several tasks and set nothing for the MPI to join them (no
 * --mpi=). `env` is the process's environment. */
void wisp_core_launch_check_before(char **env);
/* A launcher variable's whole decimal number (`text` may be NULL), or -1. */
long wisp_core_launch_number(const char *text);
/* After PMPI_Init, with the world's size: one line, from the launcher's
 * task 0, when its environment says several tasks and the world has one
 * process (unless said before). */
void wisp_core_launch_check(int world_size, char **env);

#pragma GCC visibility pop

#endif
