/*
 * The datatype engine's pack, unpack and layout-to-layout copy as byte
 * ranges of the stream that the idle-thread team (src/team) shares: each
 * range is done by wisp_dt_layout_pack, _unpack or _copy, and the work is
 * counted in bytes and runs of memory (team.h).
 */
#include "dt/dt.h"

#include "team/team.h"

/* The engine's operations as ranges a team shares. */
struct layout_op {
    const void *src;
    MPI_Count scount;
    const wisp_dt_desc_t *sdesc;
    void *dst;
    MPI_Count dcount;
    const wisp_dt_desc_t *ddesc;
    size_t base; /* the contiguous side's offset for the caller's range start */
};

static void pack_range(void *arg, size_t first, size_t len)
{
    const struct layout_op *op = arg;
    wisp_dt_layout_pack(op->src, op->scount, op->sdesc, first, len,
                        (char *)op->dst + (first - op->base));
}

static void unpack_range(void *arg, size_t first, size_t len)
{
    const struct layout_op *op = arg;
    wisp_dt_layout_unpack((const char *)op->src + (first - op->base), first, len, op->dst,
                          op->dcount, op->ddesc);
}

static void copy_range(void *arg, size_t first, size_t len)
{
    const struct layout_op *op = arg;
    wisp_dt_layout_copy(op->src, op->scount, op->sdesc, op->dst, op->dcount, op->ddesc, first, len);
}

/* The bytes of [first, first + len) the stream of `count` elements holds. */
static size_t clip(MPI_Count count, const wisp_dt_desc_t *desc, size_t first, size_t len)
{
    uint64_t all = count > 0 ? (uint64_t)count * desc->size : 0;
    return first >= all ? 0 : all - first < len ? (size_t)(all - first) : len;
}

/* The runs of memory `len` bytes of the stream of `desc` lie in. */
static double runs_of(const wisp_dt_desc_t *desc, size_t len)
{
    return desc->size ? desc->segments * (double)len / (double)desc->size : 1;
}

size_t wisp_dt_team_pack(const void *buf, MPI_Count count, const wisp_dt_desc_t *desc, size_t first,
                         size_t len, void *out)
{
    len = clip(count, desc, first, len);
    struct layout_op op = {.src = buf, .scount = count, .sdesc = desc, .dst = out, .base = first};
    wisp_team_run(first, len, runs_of(desc, len), pack_range, &op);
    return len;
}

size_t wisp_dt_team_unpack(const void *in, size_t first, size_t len, void *buf, MPI_Count count,
                           const wisp_dt_desc_t *desc)
{
    len = clip(count, desc, first, len);
    struct layout_op op = {.src = in, .dst = buf, .dcount = count, .ddesc = desc, .base = first};
    wisp_team_run(first, len, runs_of(desc, len), unpack_range, &op);
    return len;
}

size_t wisp_dt_team_copy(const void *src, MPI_Count scount, const wisp_dt_desc_t *sdesc, void *dst,
                         MPI_Count dcount, const wisp_dt_desc_t *ddesc, size_t first, size_t len)
{
    size_t s = clip(scount, sdesc, first, len), d = clip(dcount, ddesc, first, len);
    len = s < d ? s : d;
    struct layout_op op = {
        .src = src, .scount = scount, .sdesc = sdesc, .dst = dst, .dcount = dcount, .ddesc = ddesc};
    wisp_team_run(first, len, runs_of(sdesc, len) + runs_of(ddesc, len), copy_range, &op);
    return len;
}
