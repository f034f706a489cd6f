/*
 * The algorithms of one area (AREA: every member on this node), as the
 * routes, the hierarchy's node stages (hier.h) and the nonblocking forms
 * (nb.h) call them; collective over `c`.
 */
#ifndef WISP_COLL_NODE_H
#define WISP_COLL_NODE_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coll/area.h"
#include "coll/op.h"

#pragma GCC visibility push(hidden)

/* Every member arrives, then leaves (barrier.c). */
void wisp_coll_arrive_all(struct wisp_coll_comm *c);
/* `bytes` bytes at `data` from member `root` to every member (bcast.c). */
void wisp_coll_bcast_bytes(struct wisp_coll_comm *c, int root, char *data, uint64_t bytes);
/* Does wisp fold this reduction on `c` (root -1: an allreduce; else a root
 * in range)? The same answer in every member (reduce.c). */
bool wisp_coll_reduce_takes(const struct wisp_coll_comm *c, const void *sendbuf,
                            const void *recvbuf, MPI_Count count, struct wisp_coll_fold f,
                            int root);
/* Fold `count` elements of every member's `in` into `out` of the root (-1:
 * of every member; NULL where this member wants no result) (reduce.c). */
void wisp_coll_reduce_node(struct wisp_coll_comm *c, struct wisp_coll_fold f, const void *in,
                           void *out, size_t count, int root);

#pragma GCC visibility pop

#endif
