/*
 * What gather.c, scatter.c and allgather.c share (move.c): a member's
 * block of a collective as bytes, and where the blocks of a vector
 * collective are (the int and the large-count arrays alike).
 *
 * A block whose type is one contiguous piece is its user's memory; any
 * other block is packed into a private copy (malloc: in the heap under
 * wisp) before it is read, or collected in one and unpacked after it is
 * written. Another member may read or write either in place where it is in
 * the shared heap (wisp_shm_heap_holds): a copy lives until the call's last
 * phase. So the algorithms only ever see bytes. Members may describe the
 * same bytes with different types (the type signatures match), so no
 * decision looks at a type beyond its size.
 */
#ifndef WISP_COLL_MOVE_H
#define WISP_COLL_MOVE_H

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "coll/area.h"
#include "coll/coll.h"
#include "coll/layout.h"

#pragma GCC visibility push(hidden)

static inline uint64_t min64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

/* A member's block as bytes. */
struct wisp_coll_block {
    char *at;       /* its bytes: the user's memory, or `packed` */
    uint64_t bytes; /* count * the type's size */
    char *packed;   /* a private copy where the type is not one block */
    /* The root's view of member m's offer in a gather's or scatter's first
     * phase, kept here since its line may be rewritten once the root
     * publishes the next phase: the bytes to move, through the halves or not. */
    uint64_t moved;
    bool staged;
};

/* The block of `count` elements of `type` at `buf`, to be read: packed into
 * a copy first where the type is not one block. False where wisp cannot
 * (a type it cannot look at: the caller leaves the call to the MPI). */
bool wisp_coll_block_in(struct wisp_coll_block *b, const void *buf, MPI_Count count,
                        MPI_Datatype type, MPI_Comm comm);
/* The same, to be written: `at` is the user's memory or an empty copy that
 * wisp_coll_block_out_done unpacks. */
bool wisp_coll_block_out(struct wisp_coll_block *b, void *buf, MPI_Count count, MPI_Datatype type);
void wisp_coll_block_out_done(struct wisp_coll_block *b, void *buf, MPI_Count count,
                              MPI_Datatype type, MPI_Comm comm);
void wisp_coll_block_in_done(struct wisp_coll_block *b);
/* Where other members may read or write the block in place (0: nowhere). */
uint64_t wisp_coll_block_shared(const struct wisp_coll_block *b);

/* The blocks of every member in one buffer: member m's is count(m)
 * elements of `type` at buf + displ(m) * the type's extent; `v` empty
 * (neither array) for the uniform forms, where count(m) is `count` and
 * displ(m) m * count. */
struct wisp_coll_blocks {
    char *buf;
    MPI_Datatype type;
    MPI_Aint extent;
    MPI_Count count;
    struct wisp_coll_vec v;
};
bool wisp_coll_blocks_of(struct wisp_coll_blocks *bs, void *buf, MPI_Count count,
                         struct wisp_coll_vec v, MPI_Datatype type);
/* Whether the type's elements are one piece, with no gap between them:
 * then wisp_coll_blocks_flat gives member m's block without asking the
 * MPI (`unit`: one element's layout, to pass it). */
bool wisp_coll_blocks_unit(const struct wisp_coll_blocks *bs, struct wisp_coll_layout *unit);
void wisp_coll_blocks_flat(const struct wisp_coll_blocks *bs, const struct wisp_coll_layout *unit,
                           int m, struct wisp_coll_block *b);
MPI_Count wisp_coll_blocks_count(const struct wisp_coll_blocks *bs, int m);
char *wisp_coll_blocks_at(const struct wisp_coll_blocks *bs, int m);

/* Per-member blocks of a call, on the stack up to 8 members. */
struct wisp_coll_blockset {
    struct wisp_coll_block *b;
    struct wisp_coll_block few[8];
};
bool wisp_coll_blockset_init(struct wisp_coll_blockset *s, int n);
void wisp_coll_blockset_fini(struct wisp_coll_blockset *s);

/* The size a member offered in its line of `phase` (its first 8 bytes). */
static inline uint64_t wisp_coll_offered(struct wisp_coll_comm *c, int m, uint64_t phase)
{
    uint64_t n;
    memcpy(&n, wisp_coll_line(c, m, phase)->data, sizeof n);
    return n;
}

/* memcpy, which may be given no bytes at a NULL (a zero count's buffer). */
static inline void wisp_coll_copy(void *to, const void *from, uint64_t n)
{
    if (n)
        memcpy(to, from, n);
}

/* Rounds of `chunk` bytes that `bytes` needs. */
static inline uint64_t wisp_coll_rounds(uint64_t bytes, uint64_t chunk)
{
    return (bytes + chunk - 1) / chunk;
}

#pragma GCC visibility pop

#endif
