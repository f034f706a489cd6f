/*
 * A broadcast's bytes through a communicator's area (bcast.c), as the
 * routes' MPI_Bcast and the hierarchy's node stages use it.
 */
#ifndef WISP_COLL_BCAST_H
#define WISP_COLL_BCAST_H

#include <stdint.h>

#include "coll/area.h"

#pragma GCC visibility push(hidden)

/* `bytes` bytes at `data` from member `root` to every member of `c` (AREA);
 * collective over `c`. */
void wisp_coll_bcast_bytes(struct wisp_coll_comm *c, int root, char *data, uint64_t bytes);

#pragma GCC visibility pop

#endif
