/*
 * MPI_Win_allocate's windows that no ghost serves, made by MPI_Win_create
 * over memory of wisp's heap where the MPI's own cost far more to make
 * (WISP_WIN_ALLOCATE; heap_win.c).
 */
#ifndef WISP_GHOST_HEAP_WIN_H
#define WISP_GHOST_HEAP_WIN_H

#include <mpi.h>
#include <stdbool.h>

#pragma GCC visibility push(hidden)

/* Has any window been made so in this process? */
bool wisp_ghost_heap_win_any(void);

/* MPI_Win_allocate (collective over comm) as MPI_Win_create over the heap:
 * true with *rc its result where every process of comm could, false where
 * the MPI's MPI_Win_allocate must make it (decided together). */
bool wisp_ghost_heap_win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                                  void *baseptr, MPI_Win *win, int *rc);

/* Is win one of those? */
bool wisp_ghost_heap_win_is(MPI_Win win);

#pragma GCC visibility pop

#endif
