/*
 * The datatype engine: wisp's own description of an MPI datatype, built
 * once per handle from what the MPI says of it (MPI_Type_get_envelope and
 * MPI_Type_get_contents, recursively), and the operations that move data
 * with it: pack into a contiguous stream, unpack from one, copy from one
 * layout straight into another, and list a layout's pieces as iovecs. Each
 * operation works on a byte range of the packed stream, so a caller can
 * split a message among threads or pipeline it in chunks; the stream is
 * byte for byte what the MPI's MPI_Pack makes.
 *
 * A description is a small tree of nodes (docs/datatypes.md): byte runs,
 * vectors, blocks of bytes at a stride, indexed runs or blocks, structs. It
 * is reference counted; wisp_dt_desc_get caches one per handle until
 * wisp_dt_forget (a freed handle may come back for a new type). Types
 * the engine does not describe (combiners it does not know, nesting past
 * its limits) are refused with WISP_DT_UNSUPPORTED; the caller then lets
 * the MPI pack them.
 *
 * The layer sits below p2p and uses only MPI and libc.
 */
#ifndef WISP_DT_DT_H
#define WISP_DT_DT_H

#include <mpi.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#pragma GCC visibility push(hidden)

typedef enum {
    WISP_DT_OK = 0,
    WISP_DT_UNSUPPORTED, /* a shape the engine does not describe: use the MPI */
    WISP_DT_NOMEM,       /* no memory for the description */
    WISP_DT_MPI_ERROR,   /* the MPI refused a query about the type (an invalid handle) */
} wisp_dt_status_t;

struct wisp_dt_node; /* desc.h: the engine's own */

/* A type's description. The first fields are the queries' (read them
 * through the functions below); the rest belongs to the engine. */
typedef struct wisp_dt_desc {
    uint64_t size;             /* packed bytes of one element (MPI_Type_size_x) */
    int64_t lb, extent;        /* MPI_Type_get_extent_x */
    int64_t true_lb, true_ext; /* MPI_Type_get_true_extent_x */
    int64_t start;             /* dense: where the run begins, from the buffer */
    bool dense;                /* one element is one run of `size` bytes at `start` */
    bool named;                /* a predefined type: never freed, stays cached */
    atomic_int refs;
    uint32_t root;                    /* index of the top node in nodes */
    uint32_t nnodes;                  /* nodes in `nodes` */
    uint64_t naux;                    /* entries in `aux` */
    double segments;                  /* runs per element, for wisp_dt_layout_copy's choice */
    const struct wisp_dt_node *nodes; /* right after this header, one allocation */
    const int64_t *aux;               /* displacements, lengths, prefix sums of the nodes */
} wisp_dt_desc_t;

/* ---- descriptions (flatten.c, cache.c) ---- */

/* The cached description of `type`, with a reference for the caller
 * (wisp_dt_desc_release when done). Built on the first call for a handle;
 * a hit takes a mutex and an atomic increment. MPI_DATATYPE_NULL is
 * WISP_DT_MPI_ERROR. Thread-safe. */
wisp_dt_status_t wisp_dt_desc_get(MPI_Datatype type, wisp_dt_desc_t **desc);

/* Build a description of `type` without the cache (one reference). */
wisp_dt_status_t wisp_dt_desc_flatten(MPI_Datatype type, wisp_dt_desc_t **desc);

/* Another reference to `desc`; returns it. */
wisp_dt_desc_t *wisp_dt_desc_hold(wisp_dt_desc_t *desc);

/* Drop a reference; the last one frees the description. */
void wisp_dt_desc_release(wisp_dt_desc_t *desc);

/* Drop the cache's references to every derived type's description.
 * Descriptions that callers hold stay valid. Thread-safe. */
void wisp_dt_forget_all(void);

/* Drop the cache's entry for `type` and its reference to the description:
 * call it whenever a derived type is freed, before PMPI_Type_free (its
 * handle may come back for another type; a type made from it keeps its
 * own description). Thread-safe. */
void wisp_dt_forget(MPI_Datatype type);

/* A description as bytes for another process of the node (export.c): its
 * size; a copy into `out` (0 when more than `cap` bytes); and the
 * description such a copy holds, once aligned to 16 bytes in the reader's
 * memory (import fixes its inner pointers; no reference to release). */
size_t wisp_dt_desc_bytes(const wisp_dt_desc_t *desc);
size_t wisp_dt_desc_export(const wisp_dt_desc_t *desc, void *out, size_t cap);
const wisp_dt_desc_t *wisp_dt_desc_import(void *in);

/* Write the node tree of `desc` on `out`, one node a line (tests, debugging). */
void wisp_dt_desc_print(const wisp_dt_desc_t *desc, void *file);

/* ---- queries ---- */

/* Packed bytes of one element. */
static inline uint64_t wisp_dt_desc_size(const wisp_dt_desc_t *desc)
{
    return desc->size;
}

/* Distance between consecutive elements (the MPI's extent). */
static inline int64_t wisp_dt_desc_extent(const wisp_dt_desc_t *desc)
{
    return desc->extent;
}

/* Whether `count` elements lie in one run of bytes, in order; it starts at
 * buf + wisp_dt_desc_start(desc). */
static inline bool wisp_dt_desc_dense(const wisp_dt_desc_t *desc, MPI_Count count)
{
    return count == 0 || desc->size == 0 ||
           (desc->dense && (count == 1 || desc->extent == (int64_t)desc->size));
}

/* Where a dense element's run begins, from the buffer. Not always the
 * MPI's true lb: MPICH 4.0.2 counts MPI_LB and MPI_UB markers in the true
 * extent (docs/datatypes.md). */
static inline int64_t wisp_dt_desc_start(const wisp_dt_desc_t *desc)
{
    return desc->start;
}

/* The MPI's true extent (MPI_Type_get_true_extent_x). */
static inline int64_t wisp_dt_desc_true_extent(const wisp_dt_desc_t *desc)
{
    return desc->true_ext;
}

/* Runs of bytes per element, on average over the element. */
static inline double wisp_dt_desc_runs(const wisp_dt_desc_t *desc)
{
    return desc->segments;
}

/* The MPI's true lb (MPI_Type_get_true_extent_x). */
static inline int64_t wisp_dt_desc_true_lb(const wisp_dt_desc_t *desc)
{
    return desc->true_lb;
}

/* ---- operations on a layout (pack.c, copy.c) ----
 * A layout is (buf, count, desc): count elements at buf, buf + extent, ...
 * buf may be MPI_BOTTOM (NULL) with absolute displacements. The ranges
 * are bytes [first, first + len) of the layout's packed stream, clipped to
 * its count * size bytes; each function returns the bytes it moved. */

/* Pack bytes [first, first + len) of the layout into `out`. */
size_t wisp_dt_layout_pack(const void *buf, MPI_Count count, const wisp_dt_desc_t *desc,
                           size_t first, size_t len, void *out);

/* Unpack `len` bytes from `in` into bytes [first, first + len) of the layout. */
size_t wisp_dt_layout_unpack(const void *in, size_t first, size_t len, void *buf, MPI_Count count,
                             const wisp_dt_desc_t *desc);

/* Copy bytes [first, first + len) of the stream of (src, scount, sdesc)
 * into the same bytes of the stream of (dst, dcount, ddesc), directly,
 * without an intermediate buffer; clipped to the shorter stream. */
size_t wisp_dt_layout_copy(const void *src, MPI_Count scount, const wisp_dt_desc_t *sdesc,
                           void *dst, MPI_Count dcount, const wisp_dt_desc_t *ddesc, size_t first,
                           size_t len);

/* The pieces of bytes [first, first + len) of the layout as at most `max`
 * iovecs of absolute addresses, adjacent pieces merged, in stream order;
 * *n gets how many were filled. Returns the bytes they cover (less than len
 * when `max` entries did not suffice: go on from first + that). */
size_t wisp_dt_layout_iov(const void *buf, MPI_Count count, const wisp_dt_desc_t *desc,
                          size_t first, size_t len, struct iovec *iov, int max, int *n);

/* ---- shared by the idle-thread team (shared.c, src/team) ---- */

/* wisp_dt_layout_pack, _unpack and _copy, shared among a team when they may be. */
size_t wisp_dt_team_pack(const void *buf, MPI_Count count, const wisp_dt_desc_t *desc, size_t first,
                         size_t len, void *out);
size_t wisp_dt_team_unpack(const void *in, size_t first, size_t len, void *buf, MPI_Count count,
                           const wisp_dt_desc_t *desc);
size_t wisp_dt_team_copy(const void *src, MPI_Count scount, const wisp_dt_desc_t *sdesc, void *dst,
                         MPI_Count dcount, const wisp_dt_desc_t *ddesc, size_t first, size_t len);

#pragma GCC visibility pop

#endif
