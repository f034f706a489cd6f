/*
 * Creating, freeing and describing windows with ghosts (win.c): a served
 * window (served.h) where the ghosts can serve it, otherwise the MPI's own
 * window; the MPI functions of windows that are not about epochs or
 * operations, on any window (routes.def).
 */
#ifndef WISP_GHOST_WIN_H
#define WISP_GHOST_WIN_H

#include <mpi.h>
#include <stdbool.h>

#include "ghost/served.h"

#pragma GCC visibility push(hidden)

/* MPI_Win_allocate(_shared) with ghosts: served when the communicator holds all
 * application processes of every node it touches (one node for the shared flavor);
 * otherwise the underlying MPI's window. */
int wisp_ghost_win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                            void *baseptr, MPI_Win *win, int flavor);
/* MPI_Win_create with ghosts: served when, besides, every process's memory lies
 * in the node's shared heap, which the ghosts map at the same address. */
int wisp_ghost_win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                          MPI_Win *win);
int wisp_ghost_win_free(struct wisp_ghost_win *w);

/* At MPI_Finalize: free the served windows the application left, oldest first. */
void wisp_ghost_win_free_all(void);

/* The MPI functions on any window. */
int wisp_ghost_win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win);
int wisp_ghost_win_free_handle(MPI_Win *win);
int wisp_ghost_win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag);
int wisp_ghost_win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit,
                                void *baseptr);

/* MPI_Win_shared_query(_c): whether wisp answers (a served shared window),
 * and the answer. */
bool wisp_ghost_shared_query(MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit,
                             void *baseptr);

#pragma GCC visibility pop

#endif
