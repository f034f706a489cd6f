/* MPI Sessions (MPI-4) when ghosts are set aside (sessions.c). */
#ifndef WISP_GHOST_SESSIONS_H
#define WISP_GHOST_SESSIONS_H

#include <mpi.h>

#include "wisp_have.h"

#pragma GCC visibility push(hidden)

#if defined(WISP_HAVE_MPI_Session_init)
/* MPI_Session_init: refused (MPI_ERR_OTHER, through
 * `errhandler`, with one line) while WISP_GHOSTS is set and MPI_Init has
 * not set the ghosts aside: they would run the program as processes of
 * their own. */
int wisp_ghost_session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session);
/* MPI_Group_from_session_pset and MPI_Session_get_pset_info: the process
 * set mpi://WORLD is the application's world, without the ghosts. */
int wisp_ghost_group_from_pset(MPI_Session session, const char *pset_name, MPI_Group *newgroup);
int wisp_ghost_pset_info(MPI_Session session, const char *pset_name, MPI_Info *info);
#endif

#pragma GCC visibility pop

#endif
