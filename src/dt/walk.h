/*
 * The walk over a layout's bytes (pack.c), shared by the operations of the
 * layer: what to do with each run of memory, and where the packed side's
 * cursor is.
 */
#ifndef WISP_DT_WALK_H
#define WISP_DT_WALK_H

#include "dt/desc.h"

#pragma GCC visibility push(hidden)

enum wisp_dt_mode {
    WISP_DT_PACK,   /* each run is copied to mem, which advances */
    WISP_DT_UNPACK, /* each run is copied from mem, which advances */
    WISP_DT_VISIT,  /* each run goes to visit(); false stops the walk */
};

struct wisp_dt_walk {
    enum wisp_dt_mode mode;
    const wisp_dt_desc_t *desc;
    char *mem;
    bool (*visit)(void *ctx, uintptr_t addr, uint64_t len);
    void *ctx;
    bool stopped;
};

/* Walk bytes [first, first + len) of the stream of count elements at buf
 * (clipped to the stream); returns the bytes walked (those a visitor
 * refused included: it counts its own). */
size_t wisp_dt_walk_range(struct wisp_dt_walk *w, const void *buf, MPI_Count count, size_t first,
                          size_t len);

/* Bytes [lo, hi) of one element of node n whose origin is base. */
void wisp_dt_walk_node(struct wisp_dt_walk *w, const struct wisp_dt_node *n, uintptr_t base,
                       uint64_t lo, uint64_t hi);

/* Bytes [lo, hi) of the stream of blocks of b bytes at base, stride apart. */
void wisp_dt_walk_blocks(struct wisp_dt_walk *w, uintptr_t base, int64_t stride, uint64_t b,
                         uint64_t lo, uint64_t hi);

#pragma GCC visibility pop

#endif
