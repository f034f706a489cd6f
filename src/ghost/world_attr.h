/* The attributes MPI caches on MPI_COMM_WORLD only, as the application's
 * world sees them when ghosts are set aside. */
#ifndef WISP_GHOST_WORLD_ATTR_H
#define WISP_GHOST_WORLD_ATTR_H

#include <mpi.h>
#include <stdbool.h>

#pragma GCC visibility push(hidden)

/* Whether `keyval` is one the MPI may cache on MPI_COMM_WORLD only. */
bool wisp_ghost_world_only(int keyval);

typedef int wisp_attr_get_fn(MPI_Comm, int, void *, int *);

/* `get` (PMPI_Comm_get_attr or PMPI_Attr_get) of `keyval` on `comm`; when
 * `comm` is the application's world carved out of the real one and the
 * keyval is a predefined one of MPI_COMM_WORLD, answer from the real world;
 * MPI_UNIVERSE_SIZE less the ghosts on every communicator but the real world. */
int wisp_ghost_world_attr(wisp_attr_get_fn *get, MPI_Comm comm, int keyval, void *value, int *flag);

#pragma GCC visibility pop

#endif
