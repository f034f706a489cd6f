/* Error handlers that the program sets on MPI_COMM_WORLD see MPI_COMM_WORLD,
 * not the application's world carved out of it (errhandler.c). */
#ifndef WISP_GHOST_ERRHANDLER_H
#define WISP_GHOST_ERRHANDLER_H

#include <stdbool.h>

#pragma GCC visibility push(hidden)

/* In the application's processes while ghosts are set aside (on), and at
 * MPI_Finalize (off): whether handlers created from now on translate. */
void wisp_ghost_errhandlers_translate(bool on);

#pragma GCC visibility pop

#endif
