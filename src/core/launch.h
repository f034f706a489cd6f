/*
 * A launch that went wrong: the launcher started several processes and the
 * MPI made each a world of its own (srun without --mpi=, or another MPI's
 * mpiexec). The run goes on as it is; wisp says what happened and the fix.
 */
#ifndef WISP_CORE_LAUNCH_H
#define WISP_CORE_LAUNCH_H

#pragma GCC visibility push(hidden)

/* After PMPI_Init, with the world's size: one line on stderr, from the
 * launcher's first task only, when the launcher's environment says several
 * tasks and the world has one process. `env` is the process's environment. */
void wisp_core_launch_check(int world_size, char **env);

#pragma GCC visibility pop

#endif
