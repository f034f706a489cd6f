/*
 * The memory of a served window on one node (MPI_Win_allocate and
 * MPI_Win_allocate_shared: a new segment), mapped in its application
 * processes (win.c) and in the node's ghosts (serve.c).
 */
#ifndef WISP_GHOST_SEGMENT_H
#define WISP_GHOST_SEGMENT_H

#include <stdbool.h>
#include <stddef.h>

#pragma GCC visibility push(hidden)

enum { WISP_GHOST_HIDDEN = 64 }; /* bytes at the start of a segment that no application sees */

/* A window's memory on one node, mapped in its application processes and ghosts. */
struct wisp_ghost_segment {
    char *base;
    size_t len;
};

/* Collective over wisp_ghost_node.all: create, open and map a segment of `len`
 * bytes, committing [mine, mine + mine_len) in this process (its own part) and
 * the hidden bytes in node rank 0; `ok` false in a process skips its mapping.
 * Returns whether this process has it. */
bool wisp_ghost_segment_map(struct wisp_ghost_segment *seg, size_t len, size_t mine,
                            size_t mine_len, bool ok);
void wisp_ghost_segment_unmap(struct wisp_ghost_segment *seg);

#pragma GCC visibility pop

#endif
