/*
 * The walk: the bytes [lo, hi) of a layout's packed stream, visited in
 * stream order as runs of memory, and what happens to each run: packed
 * into a stream, unpacked from one, or handed to a visitor (iovecs, the
 * outer side of a copy). A position is found by division, never by
 * walking from the start: the element by the type's size, then in each
 * node the child by its size, or the block by a binary search of the
 * node's prefix sums. Blocks of bytes at a stride, the shape most derived
 * types become (vectors, faces of subarrays, columns), have loops of their
 * own with the common block sizes as constants, so that each copy is a
 * few moves, not a call.
 *
 * Addresses are integers (uintptr_t) until the copy: MPI_BOTTOM is NULL
 * plus absolute displacements, and strides and displacements may be
 * negative, none of which is valid pointer arithmetic in C.
 */
#include "dt/walk.h"

#include <string.h>

static inline void *ptr(uintptr_t a)
{
    return (void *)a;
}

/* One run of n bytes at a. */
static inline void run(struct wisp_dt_walk *w, uintptr_t a, uint64_t n)
{
    switch (w->mode) {
    case WISP_DT_PACK:
        memcpy(w->mem, ptr(a), n);
        w->mem += n;
        break;
    case WISP_DT_UNPACK:
        memcpy(ptr(a), w->mem, n);
        w->mem += n;
        break;
    default:
        if (!w->visit(w->ctx, a, n))
            w->stopped = true;
    }
}

/* n blocks of B bytes (a constant where inlined) at a, stride s. */
#define BLOCK_LOOPS(B)                                                                             \
    do {                                                                                           \
        if (w->mode == WISP_DT_PACK)                                                               \
            for (uint64_t i_ = 0; i_ < n; i_++, a += (uintptr_t)s, m += (B))                       \
                memcpy(m, ptr(a), (B));                                                            \
        else                                                                                       \
            for (uint64_t i_ = 0; i_ < n; i_++, a += (uintptr_t)s, m += (B))                       \
                memcpy(ptr(a), m, (B));                                                            \
    } while (0)

static uintptr_t full_blocks(struct wisp_dt_walk *w, uintptr_t a, int64_t s, uint64_t b, uint64_t n)
{
    if (w->mode == WISP_DT_VISIT) {
        for (uint64_t i = 0; i < n && !w->stopped; i++, a += (uintptr_t)s)
            run(w, a, b);
        return a;
    }
    char *m = w->mem;
    switch (b) {
    case 4:
        BLOCK_LOOPS(4);
        break;
    case 8:
        BLOCK_LOOPS(8);
        break;
    case 16:
        BLOCK_LOOPS(16);
        break;
    case 32:
        BLOCK_LOOPS(32);
        break;
    case 64:
        BLOCK_LOOPS(64);
        break;
    default:
        BLOCK_LOOPS(b);
    }
    w->mem = m;
    return a;
}

void wisp_dt_walk_blocks(struct wisp_dt_walk *w, uintptr_t base, int64_t stride, uint64_t b,
                         uint64_t lo, uint64_t hi)
{
    if (stride == (int64_t)b) { /* the blocks touch */
        run(w, base + lo, hi - lo);
        return;
    }
    uint64_t i = lo / b, in = lo - i * b;
    uintptr_t a = base + (uintptr_t)((int64_t)i * stride);
    if (in) {
        uint64_t n = b - in < hi - lo ? b - in : hi - lo;
        run(w, a + in, n);
        lo += n;
        a += (uintptr_t)stride;
        if (w->stopped)
            return;
    }
    uint64_t n = (hi - lo) / b;
    a = full_blocks(w, a, stride, b, n);
    lo += n * b;
    if (lo < hi && !w->stopped)
        run(w, a, hi - lo);
}

/* The block k with cum[k] <= pos < cum[k + 1] (cum has count + 1 entries). */
static int64_t block_of(const int64_t *cum, int64_t count, uint64_t pos)
{
    int64_t lo = 0, hi = count - 1;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2;
        if ((uint64_t)cum[mid] <= pos)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* Elements from `first` of a run of elements of c at `stride`, bytes
 * [lo, hi) of the run's stream. */
static void walk_elements(struct wisp_dt_walk *w, const struct wisp_dt_node *c, uintptr_t base,
                          int64_t stride, uint64_t lo, uint64_t hi)
{
    if (c->kind == WISP_DT_RUN) {
        wisp_dt_walk_blocks(w, base + (uintptr_t)c->off, stride, c->size, lo, hi);
        return;
    }
    uint64_t cs = c->size, i = lo / cs, in = lo - i * cs;
    uintptr_t a = base + (uintptr_t)((int64_t)i * stride);
    while (lo < hi && !w->stopped) {
        uint64_t end = cs - in < hi - lo ? cs : in + (hi - lo);
        wisp_dt_walk_node(w, c, a, in, end);
        lo += end - in;
        in = 0;
        a += (uintptr_t)stride;
    }
}

void wisp_dt_walk_node(struct wisp_dt_walk *w, const struct wisp_dt_node *n, uintptr_t base,
                       uint64_t lo, uint64_t hi)
{
    const wisp_dt_desc_t *d = w->desc;
    base += (uintptr_t)n->off;
    switch (n->kind) {
    case WISP_DT_RUN:
        run(w, base + lo, hi - lo);
        return;
    case WISP_DT_BLOCKS:
        wisp_dt_walk_blocks(w, base, n->stride, n->blen, lo, hi);
        return;
    case WISP_DT_VECTOR:
        walk_elements(w, &d->nodes[n->child], base, n->stride, lo, hi);
        return;
    default:
        break;
    }
    const int64_t *displs = wisp_dt_node_displs(d, n), *lens = wisp_dt_node_lens(d, n),
                  *cum = wisp_dt_node_cum(d, n);
    int64_t k;
    if (n->kind == WISP_DT_INDEXED && n->blen)
        k = (int64_t)(lo / (n->blen * d->nodes[n->child].size));
    else
        k = block_of(cum, n->count, lo);
    for (; lo < hi && !w->stopped; k++) {
        uint64_t in = lo - (uint64_t)cum[k], end = (uint64_t)(cum[k + 1] - cum[k]);
        if (end - in > hi - lo)
            end = in + (hi - lo);
        uintptr_t a = base + (uintptr_t)displs[k];
        if (n->kind == WISP_DT_RUNS) {
            run(w, a + in, end - in);
        } else {
            const struct wisp_dt_node *c = n->kind == WISP_DT_INDEXED
                                               ? &d->nodes[n->child]
                                               : &d->nodes[wisp_dt_node_children(d, n)[k]];
            if (lens[k] == 1)
                wisp_dt_walk_node(w, c, a, in, end);
            else
                walk_elements(w, c, a, c->extent, in, end);
        }
        lo += end - in;
    }
}

size_t wisp_dt_walk_range(struct wisp_dt_walk *w, const void *buf, MPI_Count count, size_t first,
                          size_t len)
{
    const wisp_dt_desc_t *d = w->desc;
    uint64_t total = d->size * (uint64_t)(count > 0 ? count : 0);
    if (first >= total)
        return 0;
    if (len > total - first)
        len = total - first;
    if (len == 0)
        return 0;
    walk_elements(w, &d->nodes[d->root], (uintptr_t)buf, d->extent, first, first + len);
    return len;
}

size_t wisp_dt_layout_pack(const void *buf, MPI_Count count, const wisp_dt_desc_t *desc,
                           size_t first, size_t len, void *out)
{
    struct wisp_dt_walk w = {.mode = WISP_DT_PACK, .desc = desc, .mem = out};
    return wisp_dt_walk_range(&w, buf, count, first, len);
}

size_t wisp_dt_layout_unpack(const void *in, size_t first, size_t len, void *buf, MPI_Count count,
                             const wisp_dt_desc_t *desc)
{
    struct wisp_dt_walk w = {.mode = WISP_DT_UNPACK, .desc = desc, .mem = (char *)in};
    return wisp_dt_walk_range(&w, buf, count, first, len);
}
