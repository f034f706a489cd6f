/*
 * Liveness of the node's processes (alive.c): a process of the job that
 * ends without MPI_Finalize (SIGKILL, the OOM killer, a crash) ends the job
 * within a second or two, instead of leaving its peers waiting for it in a
 * wait of wisp's or of the MPI's, and the job's files in /dev/shm go with
 * it.
 */
#ifndef WISP_CORE_ALIVE_H
#define WISP_CORE_ALIVE_H

#include <mpi.h>

#pragma GCC visibility push(hidden)

/* Collective over `node` (every process of the node, ghosts included, before
 * they are set aside): from now on a thread of this process watches the
 * node's others. `ghosts`: the last ones of the node are ghosts (for the
 * line that names a dead one). */
void wisp_core_alive_start(MPI_Comm node, int ghosts);

/* PMPI_Finalize, with this process's phase told to the watchers around
 * it: while it runs, PMPI_Finalize waits for every process of the job, so a
 * peer that ends is done unless its status says it was killed or failed;
 * once it returned, nothing more is watched. Every PMPI_Finalize of wisp's
 * goes through here. */
int wisp_core_alive_finalize(void);

/* A file in /dev/shm that this process created and that only it can remove
 * yet (its name is not known to the others): removed when a peer dies.
 * Best effort: a few at a time. */
void wisp_core_alive_hold(const char *name);
void wisp_core_alive_let_go(const char *name);

#pragma GCC visibility pop

#endif
