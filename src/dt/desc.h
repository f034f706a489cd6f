/*
 * The nodes of a description, private to the layer (docs/datatypes.md).
 * A node describes one element of some type: where its bytes lie relative
 * to the element's origin, in packed order. Children are node indices in
 * the same description; variable-length arrays (displacements, lengths,
 * prefix sums of packed bytes, child indices) live in its `aux` array.
 */
#ifndef WISP_DT_DESC_H
#define WISP_DT_DESC_H

#include "dt/dt.h"

#pragma GCC visibility push(hidden)

/* The kinds of node, each with the name print.c writes for it. */
#define WISP_DT_KINDS(X)                                                                           \
    X(WISP_DT_RUN, "run")         /* `size` bytes at off */                                        \
    X(WISP_DT_BLOCKS, "blocks")   /* count blocks of blen bytes at off + i * stride */             \
    X(WISP_DT_VECTOR, "vector")   /* count elements of child at off + i * stride */                \
    X(WISP_DT_RUNS, "runs")       /* count runs of lens[i] bytes at off + displs[i] */             \
    X(WISP_DT_INDEXED, "indexed") /* count blocks of lens[i] elements of child at off +            \
                                     displs[i], child extent apart */                              \
    X(WISP_DT_STRUCT, "struct")   /* count blocks of lens[i] elements of children[i] at off +      \
                                     displs[i] */

enum wisp_dt_kind {
#define WISP_DT_KIND(kind, name) kind,
    WISP_DT_KINDS(WISP_DT_KIND)
#undef WISP_DT_KIND
};

struct wisp_dt_node {
    uint8_t kind;
    uint32_t child; /* VECTOR, INDEXED */
    int64_t off;    /* added to the element's origin */
    uint64_t size;  /* packed bytes of one element */
    int64_t extent; /* distance between consecutive elements where a parent repeats it */
    int64_t count;  /* BLOCKS, VECTOR, RUNS, INDEXED, STRUCT */
    int64_t stride; /* BLOCKS, VECTOR */
    uint64_t blen; /* BLOCKS: bytes per block; INDEXED: elements per block when all equal, else 0 */
    uint64_t aux;  /* RUNS, INDEXED, STRUCT: displs at aux, lens at aux + count, prefix
                      sums of packed bytes at aux + 2 count (count + 1 of them), STRUCT's
                      child indices at aux + 3 count + 1 */
};

static inline const int64_t *wisp_dt_node_displs(const wisp_dt_desc_t *d,
                                                 const struct wisp_dt_node *n)
{
    return d->aux + n->aux;
}

static inline const int64_t *wisp_dt_node_lens(const wisp_dt_desc_t *d,
                                               const struct wisp_dt_node *n)
{
    return d->aux + n->aux + n->count;
}

static inline const int64_t *wisp_dt_node_cum(const wisp_dt_desc_t *d, const struct wisp_dt_node *n)
{
    return d->aux + n->aux + 2 * n->count;
}

static inline const int64_t *wisp_dt_node_children(const wisp_dt_desc_t *d,
                                                   const struct wisp_dt_node *n)
{
    return d->aux + n->aux + 3 * n->count + 1;
}

#pragma GCC visibility pop

#endif
