/*
 * Operations built on the walk's visitor: the copy from one layout
 * straight into another, and a layout's runs as iovecs (for
 * process_vm_readv and writev, which take vectors).
 *
 * The copy walks the side with the longer runs (fewer runs per byte, by
 * the descriptions' counts) and, for each of its runs, packs the other
 * side's bytes of the same stream range into it, or unpacks them from it:
 * no intermediate buffer, and the short runs go through the pack loops.
 * Each outer run positions the inner walk anew, by division (pack.c), which
 * costs more than short runs' bytes: where both sides' runs are short, the
 * copy packs a piece of the stream into a buffer that stays in the L1
 * cache and unpacks it from there, so memory is still crossed once.
 */
#include "dt/walk.h"

#include <stdalign.h>
#include <string.h>

enum {
    SHORT_RUN = 256, /* bytes a run averages below which positioning costs more than it moves */
    BOUNCE = 8192,   /* the piece, well inside an L1 data cache */
};

struct copy {
    const void *buf; /* the inner side */
    MPI_Count count;
    const wisp_dt_desc_t *desc;
    bool outer_is_src;
    uint64_t pos; /* stream position of the next outer run */
};

static bool copy_run(void *ctx, uintptr_t addr, uint64_t len)
{
    struct copy *c = ctx;
    if (c->outer_is_src)
        wisp_dt_layout_unpack((const void *)addr, c->pos, len, (void *)c->buf, c->count, c->desc);
    else
        wisp_dt_layout_pack(c->buf, c->count, c->desc, c->pos, len, (void *)addr);
    c->pos += len;
    return true;
}

static uint64_t total(MPI_Count count, const wisp_dt_desc_t *d)
{
    return count > 0 ? d->size * (uint64_t)count : 0;
}

size_t wisp_dt_layout_copy(const void *src, MPI_Count scount, const wisp_dt_desc_t *sdesc,
                           void *dst, MPI_Count dcount, const wisp_dt_desc_t *ddesc, size_t first,
                           size_t len)
{
    uint64_t end =
        total(scount, sdesc) < total(dcount, ddesc) ? total(scount, sdesc) : total(dcount, ddesc);
    if (first >= end)
        return 0;
    if (len > end - first)
        len = end - first;
    if (wisp_dt_desc_dense(ddesc, dcount))
        return wisp_dt_layout_pack(
            src, scount, sdesc, first, len,
            (void *)((uintptr_t)dst + (uintptr_t)ddesc->start + (uintptr_t)first));
    if (wisp_dt_desc_dense(sdesc, scount))
        return wisp_dt_layout_unpack(
            (const void *)((uintptr_t)src + (uintptr_t)sdesc->start + (uintptr_t)first), first, len,
            dst, dcount, ddesc);
    bool outer_is_src =
        sdesc->segments / (double)sdesc->size <= ddesc->segments / (double)ddesc->size;
    const wisp_dt_desc_t *outer = outer_is_src ? sdesc : ddesc;
    if (outer->size < SHORT_RUN * (double)outer->segments) {
        alignas(64) unsigned char piece[BOUNCE];
        for (size_t at = first, n; at < first + len; at += n) {
            n = first + len - at < BOUNCE ? first + len - at : BOUNCE;
            wisp_dt_layout_pack(src, scount, sdesc, at, n, piece);
            wisp_dt_layout_unpack(piece, at, n, dst, dcount, ddesc);
        }
        return len;
    }
    struct copy c = {.outer_is_src = outer_is_src, .pos = first};
    struct wisp_dt_walk w = {.mode = WISP_DT_VISIT, .visit = copy_run, .ctx = &c};
    if (outer_is_src) {
        c.buf = dst;
        c.count = dcount;
        c.desc = ddesc;
        w.desc = sdesc;
        return wisp_dt_walk_range(&w, src, scount, first, len);
    }
    c.buf = src;
    c.count = scount;
    c.desc = sdesc;
    w.desc = ddesc;
    return wisp_dt_walk_range(&w, dst, dcount, first, len);
}

struct iov {
    struct iovec *iov;
    int max, n;
    uint64_t covered;
};

static bool iov_run(void *ctx, uintptr_t addr, uint64_t len)
{
    struct iov *v = ctx;
    struct iovec *last = v->n ? &v->iov[v->n - 1] : NULL;
    if (last && (uintptr_t)last->iov_base + last->iov_len == addr) {
        last->iov_len += len;
    } else {
        if (v->n == v->max)
            return false;
        v->iov[v->n++] = (struct iovec){.iov_base = (void *)addr, .iov_len = len};
    }
    v->covered += len;
    return true;
}

size_t wisp_dt_layout_iov(const void *buf, MPI_Count count, const wisp_dt_desc_t *desc,
                          size_t first, size_t len, struct iovec *iov, int max, int *n)
{
    struct iov v = {.iov = iov, .max = max};
    struct wisp_dt_walk w = {.mode = WISP_DT_VISIT, .desc = desc, .visit = iov_run, .ctx = &v};
    wisp_dt_walk_range(&w, buf, count, first, len);
    *n = v.n;
    return v.covered;
}
