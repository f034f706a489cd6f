/*
 * Flattening: what the MPI says of a datatype (envelope and contents,
 * recursively) becomes a description, a small tree of nodes (desc.h). The
 * constructors below normalize as they build: a dense child repeated is a
 * longer run, a vector of runs is blocks of bytes at a stride, blocks
 * whose stride continues an inner vector's merge with it, runs that touch
 * merge, one-block forms lose their loop. Only the byte layout is
 * computed here; size, bounds and extents always come from the MPI (so
 * MPI_LB/MPI_UB markers and resized types need nothing of their own), and
 * a node whose packed size disagrees with the MPI's makes the type
 * unsupported rather than wrong.
 */
#include "dt/desc.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* The MPI-1 combiners (MPI_Type_hvector & co.): MPICH 4.0.2 still has
 * them; Open MPI 4.1 built without MPI-1 compatibility keeps only their
 * values, under other names; the MPI-5 standard ABI has none (values no
 * combiner has). Their contents read as the MPI-2 forms'. */
#if defined(OPEN_MPI) && !OMPI_ENABLE_MPI1_COMPAT
#define COMBINER_HVECTOR_INTEGER  OMPI_WAS_MPI_COMBINER_HVECTOR_INTEGER
#define COMBINER_HINDEXED_INTEGER OMPI_WAS_MPI_COMBINER_HINDEXED_INTEGER
#define COMBINER_STRUCT_INTEGER   OMPI_WAS_MPI_COMBINER_STRUCT_INTEGER
#elif defined(MPI_ABI_VERSION)
#define COMBINER_HVECTOR_INTEGER  (-1)
#define COMBINER_HINDEXED_INTEGER (-2)
#define COMBINER_STRUCT_INTEGER   (-3)
#else
#define COMBINER_HVECTOR_INTEGER  MPI_COMBINER_HVECTOR_INTEGER
#define COMBINER_HINDEXED_INTEGER MPI_COMBINER_HINDEXED_INTEGER
#define COMBINER_STRUCT_INTEGER   MPI_COMBINER_STRUCT_INTEGER
#endif

enum {
    MAX_DEPTH = 64,      /* nesting of type constructors */
    MAX_NODES = 1 << 20, /* past these the MPI packs the type */
    MAX_AUX = 1 << 24,   /* 128 MiB of displacements and lengths */
};

typedef wisp_dt_status_t status_t;
typedef struct wisp_dt_node node_t;

struct builder {
    node_t *nodes;
    uint32_t n, cap;
    int64_t *aux;
    uint64_t naux, auxcap;
    int depth;
};

#define TRY(call)                                                                                  \
    do {                                                                                           \
        status_t rc_ = (call);                                                                     \
        if (rc_ != WISP_DT_OK)                                                                     \
            return rc_;                                                                            \
    } while (0)

/* ---- building blocks: each returns a node index in *out ---- */

static status_t node_new(struct builder *b, uint8_t kind, uint32_t *out)
{
    if (b->n == b->cap) {
        if (b->cap >= MAX_NODES)
            return WISP_DT_UNSUPPORTED;
        uint32_t cap = b->cap ? 2 * b->cap : 16;
        node_t *nodes = realloc(b->nodes, cap * sizeof *nodes);
        if (!nodes)
            return WISP_DT_NOMEM;
        b->nodes = nodes;
        b->cap = cap;
    }
    *out = b->n++;
    b->nodes[*out] = (node_t){.kind = kind};
    return WISP_DT_OK;
}

/* Room for `n` aux entries; their index in *at. */
static status_t aux_new(struct builder *b, uint64_t n, uint64_t *at)
{
    if (b->naux + n > MAX_AUX)
        return WISP_DT_UNSUPPORTED;
    if (b->naux + n > b->auxcap) {
        uint64_t cap = b->auxcap ? 2 * b->auxcap : 64;
        while (cap < b->naux + n)
            cap *= 2;
        int64_t *aux = realloc(b->aux, cap * sizeof *aux);
        if (!aux)
            return WISP_DT_NOMEM;
        b->aux = aux;
        b->auxcap = cap;
    }
    *at = b->naux;
    b->naux += n;
    return WISP_DT_OK;
}

/* The arrays of `m` blocks in aux (desc.h): displacements, lengths, and the
 * prefix sums of their packed bytes (`unit` bytes per unit of length). */
static status_t aux_blocks(struct builder *b, int64_t m, const int64_t *displs, const int64_t *lens,
                           int64_t unit, uint64_t *at)
{
    TRY(aux_new(b, 3 * (uint64_t)m + 1, at));
    int64_t *a = b->aux + *at, cum = 0;
    for (int64_t i = 0; i < m; i++) {
        a[i] = displs[i];
        a[m + i] = lens[i];
        a[2 * m + i] = cum;
        cum += lens[i] * unit;
    }
    a[3 * m] = cum;
    return WISP_DT_OK;
}

static status_t run_new(struct builder *b, int64_t off, uint64_t size, uint32_t *out)
{
    TRY(node_new(b, WISP_DT_RUN, out));
    b->nodes[*out].off = off;
    b->nodes[*out].size = size;
    b->nodes[*out].extent = (int64_t)size;
    return WISP_DT_OK;
}

/* A child whose repetitions at its extent are one run. */
static bool dense(const node_t *n)
{
    return n->kind == WISP_DT_RUN && n->extent == (int64_t)n->size;
}

/* `count` elements of `child` at `stride` bytes apart. */
static status_t repeat(struct builder *b, int64_t count, int64_t stride, uint32_t child,
                       uint32_t *out)
{
    node_t *c = &b->nodes[child];
    if (count == 0 || c->size == 0)
        return run_new(b, 0, 0, out);
    if (count == 1) {
        *out = child;
        return WISP_DT_OK;
    }
    if (c->kind == WISP_DT_RUN && stride == (int64_t)c->size) {
        c->size *= (uint64_t)count;
        c->extent = (int64_t)c->size;
        *out = child;
        return WISP_DT_OK;
    }
    if (c->kind == WISP_DT_RUN) {
        c->kind = WISP_DT_BLOCKS;
        c->blen = c->size;
        c->count = count;
        c->stride = stride;
        c->size *= (uint64_t)count;
        c->extent = count * stride;
        *out = child;
        return WISP_DT_OK;
    }
    if (c->kind == WISP_DT_BLOCKS && stride == c->count * c->stride) {
        c->count *= count;
        c->size *= (uint64_t)count;
        c->extent = count * stride;
        *out = child;
        return WISP_DT_OK;
    }
    TRY(node_new(b, WISP_DT_VECTOR, out));
    node_t *n = &b->nodes[*out];
    n->child = child;
    n->count = count;
    n->stride = stride;
    n->size = b->nodes[child].size * (uint64_t)count;
    n->extent = count * stride;
    return WISP_DT_OK;
}

static void shift(struct builder *b, uint32_t idx, int64_t by)
{
    b->nodes[idx].off += by;
}

/* Runs of lens[i] bytes at displs[i] (arrays of `count`, changed here):
 * empty ones dropped, touching ones merged; one run, blocks at a stride,
 * or a RUNS node. */
static status_t runs(struct builder *b, int64_t count, int64_t *displs, int64_t *lens,
                     uint32_t *out)
{
    int64_t m = 0;
    for (int64_t i = 0; i < count; i++) {
        if (lens[i] == 0)
            continue;
        if (m && displs[m - 1] + lens[m - 1] == displs[i]) {
            lens[m - 1] += lens[i];
            continue;
        }
        displs[m] = displs[i];
        lens[m++] = lens[i];
    }
    if (m == 0)
        return run_new(b, 0, 0, out);
    if (m == 1)
        return run_new(b, displs[0], (uint64_t)lens[0], out);
    bool regular = true;
    int64_t stride = displs[1] - displs[0];
    uint64_t size = 0;
    for (int64_t i = 0; i < m; i++) {
        regular &= lens[i] == lens[0] && displs[i] == displs[0] + i * stride;
        size += (uint64_t)lens[i];
    }
    if (regular) {
        TRY(run_new(b, displs[0], (uint64_t)lens[0], out));
        return repeat(b, m, stride, *out, out);
    }
    uint64_t at;
    TRY(aux_blocks(b, m, displs, lens, 1, &at));
    TRY(node_new(b, WISP_DT_RUNS, out));
    node_t *n = &b->nodes[*out];
    n->count = m;
    n->aux = at;
    n->size = size;
    return WISP_DT_OK;
}

/* Blocks of lens[i] elements of `child` (extent apart) at displs[i] bytes
 * (arrays changed here). */
static status_t indexed(struct builder *b, int64_t count, int64_t *displs, int64_t *lens,
                        uint32_t child, uint32_t *out)
{
    node_t *c = &b->nodes[child];
    if (c->size == 0)
        return run_new(b, 0, 0, out);
    if (dense(c)) {
        for (int64_t i = 0; i < count; i++) {
            displs[i] += c->off;
            lens[i] *= (int64_t)c->size;
        }
        return runs(b, count, displs, lens, out);
    }
    int64_t m = 0;
    for (int64_t i = 0; i < count; i++) {
        if (lens[i] == 0)
            continue;
        displs[m] = displs[i];
        lens[m++] = lens[i];
    }
    if (m == 0)
        return run_new(b, 0, 0, out);
    int64_t extent = c->extent, stride = m > 1 ? displs[1] - displs[0] : 0;
    bool same = true, regular = true;
    uint64_t elements = 0;
    for (int64_t i = 0; i < m; i++) {
        same &= lens[i] == lens[0];
        regular &= displs[i] == displs[0] + i * stride;
        elements += (uint64_t)lens[i];
    }
    if (same && regular) {
        TRY(repeat(b, lens[0], extent, child, out));
        TRY(repeat(b, m, stride, *out, out));
        shift(b, *out, displs[0]);
        return WISP_DT_OK;
    }
    uint64_t at, size = b->nodes[child].size;
    TRY(aux_blocks(b, m, displs, lens, (int64_t)size, &at));
    TRY(node_new(b, WISP_DT_INDEXED, out));
    node_t *n = &b->nodes[*out];
    n->child = child;
    n->count = m;
    n->aux = at;
    n->blen = same ? (uint64_t)lens[0] : 0;
    n->size = elements * size;
    return WISP_DT_OK;
}

/* ---- what the MPI says of a type ---- */

/* A type's constructor arguments, the integers in the standard's order
 * (MPI_Type_get_contents' integers, then its addresses; or MPI-4's large
 * counts), and its types. */
struct contents {
    int combiner;
    int64_t *v;
    int64_t nv;
    MPI_Datatype *types;
    int nt;
};

/* (MPICH 4.0.2 refuses MPI_Type_get_envelope of a type made by a
 * large-count constructor: a fatal error, so always the _c form there.) */
static bool named(MPI_Datatype type)
{
    int combiner;
#if MPI_VERSION >= 4
    MPI_Count ni, na, nc, nt;
    return PMPI_Type_get_envelope_c(type, &ni, &na, &nc, &nt, &combiner) == MPI_SUCCESS &&
           combiner == MPI_COMBINER_NAMED;
#else
    int ni, na, nt;
    return PMPI_Type_get_envelope(type, &ni, &na, &nt, &combiner) == MPI_SUCCESS &&
           combiner == MPI_COMBINER_NAMED;
#endif
}

static void contents_free(struct contents *c)
{
    for (int i = 0; i < c->nt; i++)
        if (!named(c->types[i]))
            PMPI_Type_free(&c->types[i]);
    free(c->v);
    free(c->types);
}

static status_t contents_get(MPI_Datatype type, struct contents *c)
{
    memset(c, 0, sizeof *c);
#if MPI_VERSION >= 4
    MPI_Count ni, na, nc, nt;
    if (PMPI_Type_get_envelope_c(type, &ni, &na, &nc, &nt, &c->combiner) != MPI_SUCCESS)
        return WISP_DT_MPI_ERROR;
#else
    int ni, na, nt, nc = 0;
    if (PMPI_Type_get_envelope(type, &ni, &na, &nt, &c->combiner) != MPI_SUCCESS)
        return WISP_DT_MPI_ERROR;
#endif
    if (c->combiner == MPI_COMBINER_NAMED)
        return WISP_DT_OK;
    int *ints = malloc(((size_t)ni + 1) * sizeof *ints);
    MPI_Aint *addrs = malloc(((size_t)na + 1) * sizeof *addrs);
    MPI_Count *counts = malloc(((size_t)nc + 1) * sizeof *counts);
    c->v = malloc(((size_t)ni + (size_t)na + (size_t)nc + 1) * sizeof *c->v);
    c->types = malloc(((size_t)nt + 1) * sizeof *c->types);
    status_t rc = WISP_DT_NOMEM;
    if (!ints || !addrs || !counts || !c->v || !c->types)
        goto out;
#if MPI_VERSION >= 4
    rc =
        PMPI_Type_get_contents_c(type, ni, na, nc, nt, ints, addrs, counts, c->types) == MPI_SUCCESS
            ? WISP_DT_OK
            : WISP_DT_MPI_ERROR;
#else
    rc = PMPI_Type_get_contents(type, ni, na, nt, ints, addrs, c->types) == MPI_SUCCESS
             ? WISP_DT_OK
             : WISP_DT_MPI_ERROR;
#endif
    if (rc != WISP_DT_OK)
        goto out;
    c->nt = (int)nt;
    if (c->combiner == MPI_COMBINER_SUBARRAY && nc > 0 && ni == 2) {
        /* large-count form: ndims and order stay ints, around the counts */
        c->v[c->nv++] = ints[0];
        for (MPI_Count i = 0; i < nc; i++)
            c->v[c->nv++] = counts[i];
        c->v[c->nv++] = ints[1];
    } else if (c->combiner == MPI_COMBINER_DARRAY && nc > 0 && ni >= 3) {
        /* large-count form: the global sizes are the counts, after
         * size, rank and ndims */
        for (MPI_Count i = 0; i < ni; i++) {
            if (i == 3)
                for (MPI_Count k = 0; k < nc; k++)
                    c->v[c->nv++] = counts[k];
            c->v[c->nv++] = ints[i];
        }
    } else {
        for (MPI_Count i = 0; i < ni; i++)
            c->v[c->nv++] = ints[i];
        for (MPI_Count i = 0; i < na; i++)
            c->v[c->nv++] = addrs[i];
        for (MPI_Count i = 0; i < nc; i++)
            c->v[c->nv++] = counts[i];
    }
out:
    free(ints);
    free(addrs);
    free(counts);
    if (rc != WISP_DT_OK) {
        free(c->v);
        free(c->types);
        memset(c, 0, sizeof *c);
    }
    return rc;
}

/* The pair types of MPI_MINLOC/MPI_MAXLOC have a gap between their fields
 * (a C struct's padding), which MPI_Pack skips. */
#define PAIR(mpi, first_type, first_mpi)                                                           \
    {                                                                                              \
        mpi, first_mpi,                                                                            \
            offsetof(                                                                              \
                struct {                                                                           \
                    first_type a;                                                                  \
                    int b;                                                                         \
                },                                                                                 \
                b)                                                                                 \
    }

static status_t named_type(struct builder *b, MPI_Datatype type, MPI_Count size, MPI_Count extent,
                           uint32_t *out)
{
    if (size == 0)
        return run_new(b, 0, 0, out);
    const struct {
        MPI_Datatype type, first;
        int64_t second_at;
    } pairs[] = {
        PAIR(MPI_FLOAT_INT, float, MPI_FLOAT),
        PAIR(MPI_DOUBLE_INT, double, MPI_DOUBLE),
        PAIR(MPI_LONG_INT, long, MPI_LONG),
        PAIR(MPI_SHORT_INT, short, MPI_SHORT),
        PAIR(MPI_LONG_DOUBLE_INT, long double, MPI_LONG_DOUBLE),
        PAIR(MPI_2INT, int, MPI_INT),
    };
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
        if (type != pairs[i].type)
            continue;
        MPI_Count first, second;
        if (PMPI_Type_size_x(pairs[i].first, &first) != MPI_SUCCESS ||
            PMPI_Type_size_x(MPI_INT, &second) != MPI_SUCCESS)
            return WISP_DT_MPI_ERROR;
        int64_t displs[2] = {0, pairs[i].second_at}, lens[2] = {first, second};
        return runs(b, 2, displs, lens, out);
    }
    MPI_Count true_lb, true_extent;
    if (PMPI_Type_get_true_extent_x(type, &true_lb, &true_extent) != MPI_SUCCESS)
        return WISP_DT_MPI_ERROR;
    if (size != extent || true_lb != 0 || true_extent != size)
        return WISP_DT_UNSUPPORTED; /* a predefined type with gaps we do not know */
    return run_new(b, 0, (uint64_t)size, out);
}

static status_t flatten(struct builder *b, MPI_Datatype type, uint32_t *out);

/* A child type's node and extent. */
static status_t child_of(struct builder *b, MPI_Datatype type, uint32_t *out, int64_t *extent)
{
    TRY(flatten(b, type, out));
    *extent = b->nodes[*out].extent;
    return WISP_DT_OK;
}

static status_t struct_type(struct builder *b, const struct contents *c, uint32_t *out)
{
    int64_t count = c->nv ? c->v[0] : 0;
    if (c->nv < 1 + 2 * count || c->nt < count)
        return WISP_DT_UNSUPPORTED;
    const int64_t *blens = c->v + 1, *displs = c->v + 1 + count;
    uint32_t *children = malloc(((size_t)count + 1) * sizeof *children);
    int64_t *d = malloc(((size_t)count + 1) * sizeof *d);
    int64_t *l = malloc(((size_t)count + 1) * sizeof *l);
    status_t rc = WISP_DT_NOMEM;
    if (!children || !d || !l)
        goto out;
    /* Fields of no bytes (MPI_LB, MPI_UB, empty types, zero lengths) go. */
    int64_t m = 0;
    bool all_dense = true;
    for (int64_t i = 0; i < count; i++) {
        int64_t extent;
        if ((rc = child_of(b, c->types[i], &children[m], &extent)) != WISP_DT_OK)
            goto out;
        if (blens[i] == 0 || b->nodes[children[m]].size == 0)
            continue;
        all_dense &= dense(&b->nodes[children[m]]);
        d[m] = displs[i];
        l[m++] = blens[i];
    }
    if (all_dense) {
        for (int64_t i = 0; i < m; i++) {
            d[i] += b->nodes[children[i]].off;
            l[i] *= (int64_t)b->nodes[children[i]].size;
        }
        rc = runs(b, m, d, l, out);
        goto out;
    }
    if (m == 1) {
        rc = repeat(b, l[0], b->nodes[children[0]].extent, children[0], out);
        if (rc == WISP_DT_OK)
            shift(b, *out, d[0]);
        goto out;
    }
    /* A dense field becomes one run; runs that touch merge. */
    int64_t k = 0;
    for (int64_t i = 0; i < m; i++) {
        node_t *f = &b->nodes[children[i]];
        if (dense(f)) {
            f->off += d[i];
            f->size *= (uint64_t)l[i];
            f->extent = (int64_t)f->size;
            d[i] = 0;
            l[i] = 1;
            node_t *p = k ? &b->nodes[children[k - 1]] : NULL;
            if (p && p->kind == WISP_DT_RUN && d[k - 1] == 0 && l[k - 1] == 1 &&
                p->off + (int64_t)p->size == f->off) {
                p->size += f->size;
                p->extent = (int64_t)p->size;
                continue; /* the node f stays unused */
            }
        }
        children[k] = children[i];
        d[k] = d[i];
        l[k++] = l[i];
    }
    uint64_t at;
    if ((rc = aux_new(b, 4 * (uint64_t)k + 1, &at)) != WISP_DT_OK)
        goto out;
    int64_t *a = b->aux + at, cum = 0;
    for (int64_t i = 0; i < k; i++) {
        a[i] = d[i];
        a[k + i] = l[i];
        a[2 * k + i] = cum;
        a[3 * k + 1 + i] = children[i];
        cum += l[i] * (int64_t)b->nodes[children[i]].size;
    }
    a[3 * k] = cum;
    if ((rc = node_new(b, WISP_DT_STRUCT, out)) != WISP_DT_OK)
        goto out;
    b->nodes[*out].count = k;
    b->nodes[*out].aux = at;
    b->nodes[*out].size = (uint64_t)cum;
out:
    free(children);
    free(d);
    free(l);
    return rc;
}

static status_t subarray(struct builder *b, const struct contents *c, uint32_t *out)
{
    int64_t nd = c->nv ? c->v[0] : 0;
    if (nd < 1 || c->nv < 2 + 3 * nd)
        return WISP_DT_UNSUPPORTED;
    const int64_t *sizes = c->v + 1, *subsizes = c->v + 1 + nd, *starts = c->v + 1 + 2 * nd;
    bool fortran = c->v[1 + 3 * nd] == MPI_ORDER_FORTRAN;
    int64_t stride;
    TRY(child_of(b, c->types[0], out, &stride));
    int64_t offset = 0;
    for (int64_t k = 0; k < nd; k++) {
        int64_t d = fortran ? k : nd - 1 - k; /* fastest dimension first */
        TRY(repeat(b, subsizes[d], stride, *out, out));
        offset += starts[d] * stride;
        stride *= sizes[d];
    }
    shift(b, *out, offset);
    return WISP_DT_OK;
}

/* One dimension of a distributed array: the blocks of global indices
 * process `coord` of `procs` owns, in increasing order, into starts/lens
 * (room for gsize); their number, or -1 for a distribution not known. */
static int64_t owned(int64_t gsize, int64_t distrib, int64_t darg, int64_t procs, int64_t coord,
                     int64_t *starts, int64_t *lens)
{
    if (distrib == MPI_DISTRIBUTE_NONE) {
        starts[0] = 0;
        lens[0] = gsize;
        return 1;
    }
    if (distrib == MPI_DISTRIBUTE_BLOCK) {
        int64_t b = darg == MPI_DISTRIBUTE_DFLT_DARG ? (gsize + procs - 1) / procs : darg;
        int64_t first = coord * b, end = first + b < gsize ? first + b : gsize;
        starts[0] = first;
        lens[0] = end > first ? end - first : 0;
        return 1;
    }
    if (distrib != MPI_DISTRIBUTE_CYCLIC)
        return -1;
    int64_t k = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg, n = 0;
    if (k < 1)
        return -1;
    for (int64_t first = coord * k; first < gsize; first += k * procs, n++) {
        starts[n] = first;
        lens[n] = first + k < gsize ? k : gsize - first;
    }
    return n;
}

/* A distributed array is, per dimension, the blocks the process owns of
 * that dimension (fastest first), a subarray with several blocks a
 * dimension; the process grid is row-major whatever the order. */
static status_t darray(struct builder *b, const struct contents *c, uint32_t *out)
{
    if (c->nv < 3)
        return WISP_DT_UNSUPPORTED;
    int64_t rank = c->v[1], nd = c->v[2];
    if (nd < 1 || c->nv < 4 + 4 * nd)
        return WISP_DT_UNSUPPORTED;
    const int64_t *gsizes = c->v + 3, *distribs = gsizes + nd, *dargs = distribs + nd,
                  *psizes = dargs + nd;
    bool fortran = c->v[3 + 4 * nd] == MPI_ORDER_FORTRAN;
    int64_t stride, max = 1, coords[64];
    if (nd > 64)
        return WISP_DT_UNSUPPORTED;
    for (int64_t d = nd - 1, r = rank; d >= 0; d--) {
        if (psizes[d] < 1)
            return WISP_DT_UNSUPPORTED;
        coords[d] = r % psizes[d];
        r /= psizes[d];
        max = gsizes[d] > max ? gsizes[d] : max;
    }
    TRY(child_of(b, c->types[0], out, &stride));
    int64_t *starts = malloc((size_t)max * sizeof *starts);
    int64_t *lens = malloc((size_t)max * sizeof *lens);
    status_t rc = starts && lens ? WISP_DT_OK : WISP_DT_NOMEM;
    for (int64_t k = 0; k < nd && rc == WISP_DT_OK; k++) {
        int64_t d = fortran ? k : nd - 1 - k; /* fastest dimension first */
        int64_t n = owned(gsizes[d], distribs[d], dargs[d], psizes[d], coords[d], starts, lens);
        if (n < 0) {
            rc = WISP_DT_UNSUPPORTED;
            break;
        }
        for (int64_t i = 0; i < n; i++)
            starts[i] *= stride;
        b->nodes[*out].extent = stride; /* how far apart the child repeats here */
        rc = indexed(b, n, starts, lens, *out, out);
        stride *= gsizes[d];
    }
    free(starts);
    free(lens);
    return rc;
}

static status_t combined(struct builder *b, const struct contents *c, uint32_t *out)
{
    const int64_t *v = c->v;
    int64_t extent, count = c->nv ? v[0] : 0;
    switch (c->combiner) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED: /* bounds come from the MPI */
        return flatten(b, c->types[0], out);
    case MPI_COMBINER_CONTIGUOUS:
        if (c->nv < 1)
            return WISP_DT_UNSUPPORTED;
        TRY(child_of(b, c->types[0], out, &extent));
        return repeat(b, count, extent, *out, out);
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR:
    case COMBINER_HVECTOR_INTEGER: {
        if (c->nv < 3)
            return WISP_DT_UNSUPPORTED;
        uint32_t block;
        TRY(child_of(b, c->types[0], &block, &extent));
        TRY(repeat(b, v[1], extent, block, &block));
        int64_t stride = c->combiner == MPI_COMBINER_VECTOR ? v[2] * extent : v[2];
        return repeat(b, count, stride, block, out);
    }
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED:
    case COMBINER_HINDEXED_INTEGER:
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK: {
        bool block =
            c->combiner == MPI_COMBINER_INDEXED_BLOCK || c->combiner == MPI_COMBINER_HINDEXED_BLOCK;
        bool bytes =
            c->combiner != MPI_COMBINER_INDEXED && c->combiner != MPI_COMBINER_INDEXED_BLOCK;
        int64_t first_displ = block ? 2 : 1 + count;
        if (c->nv < first_displ + count)
            return WISP_DT_UNSUPPORTED;
        uint32_t child;
        TRY(child_of(b, c->types[0], &child, &extent));
        int64_t *displs = malloc(((size_t)count + 1) * sizeof *displs);
        int64_t *lens = malloc(((size_t)count + 1) * sizeof *lens);
        status_t rc = WISP_DT_NOMEM;
        if (displs && lens) {
            for (int64_t i = 0; i < count; i++) {
                lens[i] = block ? v[1] : v[1 + i];
                displs[i] = bytes ? v[first_displ + i] : v[first_displ + i] * extent;
            }
            rc = indexed(b, count, displs, lens, child, out);
        }
        free(displs);
        free(lens);
        return rc;
    }
    case MPI_COMBINER_STRUCT:
    case COMBINER_STRUCT_INTEGER:
        return struct_type(b, c, out);
    case MPI_COMBINER_SUBARRAY:
        return subarray(b, c, out);
    case MPI_COMBINER_DARRAY:
        return darray(b, c, out);
    default: /* whatever comes next */
        return WISP_DT_UNSUPPORTED;
    }
}

static status_t flatten(struct builder *b, MPI_Datatype type, uint32_t *out)
{
    if (type == MPI_DATATYPE_NULL)
        return WISP_DT_MPI_ERROR;
    if (b->depth >= MAX_DEPTH)
        return WISP_DT_UNSUPPORTED;
    MPI_Count size, lb, extent;
    if (PMPI_Type_size_x(type, &size) != MPI_SUCCESS ||
        PMPI_Type_get_extent_x(type, &lb, &extent) != MPI_SUCCESS)
        return WISP_DT_MPI_ERROR;
    if (size == MPI_UNDEFINED || extent == MPI_UNDEFINED)
        return WISP_DT_UNSUPPORTED;
    struct contents c;
    TRY(contents_get(type, &c));
    status_t rc;
    b->depth++;
    switch (c.combiner) {
    case MPI_COMBINER_NAMED:
    case MPI_COMBINER_F90_REAL: /* scalars of a chosen precision */
    case MPI_COMBINER_F90_COMPLEX:
    case MPI_COMBINER_F90_INTEGER:
        rc = named_type(b, type, size, extent, out);
        break;
    default:
        rc = combined(b, &c, out);
    }
    b->depth--;
    contents_free(&c);
    if (rc != WISP_DT_OK)
        return rc;
    node_t *n = &b->nodes[*out];
    if (n->size != (uint64_t)size)
        return WISP_DT_UNSUPPORTED; /* should not happen: the MPI knows best */
    n->extent = extent;
    return WISP_DT_OK;
}

/* Runs per element, to pick the side of a copy with the longer runs. */
static double segments(const wisp_dt_desc_t *d, const node_t *n)
{
    switch (n->kind) {
    case WISP_DT_RUN:
        return n->size ? 1 : 0;
    case WISP_DT_BLOCKS:
    case WISP_DT_RUNS:
        return (double)n->count;
    case WISP_DT_VECTOR:
        return (double)n->count * segments(d, &d->nodes[n->child]);
    case WISP_DT_INDEXED:
        return (double)(wisp_dt_node_cum(d, n)[n->count] / (int64_t)d->nodes[n->child].size) *
               segments(d, &d->nodes[n->child]);
    default: {
        double s = 0;
        for (int64_t i = 0; i < n->count; i++)
            s += (double)wisp_dt_node_lens(d, n)[i] *
                 segments(d, &d->nodes[wisp_dt_node_children(d, n)[i]]);
        return s;
    }
    }
}

wisp_dt_status_t wisp_dt_desc_flatten(MPI_Datatype type, wisp_dt_desc_t **desc)
{
    struct builder b = {0};
    uint32_t root;
    MPI_Count lb, extent, true_lb, true_extent;
    status_t rc = flatten(&b, type, &root);
    if (rc == WISP_DT_OK &&
        (PMPI_Type_get_extent_x(type, &lb, &extent) != MPI_SUCCESS ||
         PMPI_Type_get_true_extent_x(type, &true_lb, &true_extent) != MPI_SUCCESS))
        rc = WISP_DT_MPI_ERROR;
    if (rc != WISP_DT_OK)
        goto out;
    size_t head = (sizeof(wisp_dt_desc_t) + 15) & ~(size_t)15;
    wisp_dt_desc_t *d = malloc(head + b.n * sizeof(node_t) + b.naux * sizeof(int64_t));
    if (!d) {
        rc = WISP_DT_NOMEM;
        goto out;
    }
    node_t *nodes = (node_t *)((char *)d + head);
    int64_t *aux = (int64_t *)(nodes + b.n);
    memcpy(nodes, b.nodes, b.n * sizeof *nodes);
    if (b.naux)
        memcpy(aux, b.aux, b.naux * sizeof *aux);
    d->size = nodes[root].size;
    d->lb = lb;
    d->extent = extent;
    d->true_lb = true_lb;
    d->true_ext = true_extent;
    d->dense = nodes[root].kind == WISP_DT_RUN && d->size > 0;
    d->start = d->dense ? nodes[root].off : 0;
    d->named = named(type);
    atomic_init(&d->refs, 1);
    d->root = root;
    d->nnodes = b.n;
    d->naux = b.naux;
    d->nodes = nodes;
    d->aux = aux;
    d->segments = segments(d, &nodes[root]);
    *desc = d;
out:
    free(b.nodes);
    free(b.aux);
    return rc;
}
