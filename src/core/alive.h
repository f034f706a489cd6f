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

/* This process calls PMPI_Finalize now, which waits for every process of
 * the job: from then on a peer that ends is done, unless its status says
 * it was killed or failed. */
void wisp_core_alive_finalizing(void);
/* PMPI_Finalize returned: nothing more to watch. */
void wisp_core_alive_finalized(void);

/* A file in /dev/shm that this process created and that only it can remove
 * yet (its name is not known to the others): removed when a peer dies.
 * Best effort: a few at a time. */
void wisp_core_alive_hold(const char *name);
void wisp_core_alive_let_go(const char *name);

#pragma GCC visibility pop

#endif
