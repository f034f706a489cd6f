/*
 * The communicators over which a served window's internal windows are
 * created: its application processes, then the ghosts of their nodes.
 */
#ifndef WISP_GHOST_ICOMM_H
#define WISP_GHOST_ICOMM_H

#include <mpi.h>
#include <stdbool.h>

/* Collective over the processes `members` (real world ranks, in the order
 * they get in the communicator). Returns whether it worked. */
bool wisp_ghost_icomm_get(const int *members, int n, MPI_Comm *icomm);
/* Whether wisp_ghost_icomm_get gives the kept one for these members (true
 * also when none is kept yet and it would keep this one). Local. */
bool wisp_ghost_icomm_keeps(const int *members, int n);
/* Done with a communicator of wisp_ghost_icomm_get (the windows created over
 * it keep what they need). Local. */
void wisp_ghost_icomm_put(MPI_Comm *icomm);
/* At MPI_Finalize, in every process and ghost: the kept one goes too. */
void wisp_ghost_icomm_release(void);

#endif
