/*
 * A collective's blocks as bytes (move.h): packed copies for the types
 * that are not one block, the blocks of a vector collective, and where the
 * others may reach a block in place.
 */
#include "coll/move.h"

#include <stdlib.h>

#include "coll/layout.h"
#include "core/log.h"
#include "shm/heap.h"

static bool block_of(struct wisp_coll_block *b, const void *buf, MPI_Count count, MPI_Datatype type)
{
    struct wisp_coll_layout l;
    if (!wisp_coll_layout_of(type, count, &l))
        return false;
    b->bytes = l.bytes;
    b->packed = NULL;
    b->at = (char *)((uintptr_t)buf + (uintptr_t)l.lb); /* MPI_BOTTOM too */
    if (l.contiguous || !l.bytes)
        return true;
    b->packed = malloc(l.bytes);
    if (!b->packed) {
        wisp_log_error("a collective: no memory for %llu bytes to pack",
                       (unsigned long long)l.bytes);
        return false;
    }
    b->at = b->packed;
    return true;
}

bool wisp_coll_block_in(struct wisp_coll_block *b, const void *buf, MPI_Count count,
                        MPI_Datatype type, MPI_Comm comm)
{
    if (!block_of(b, buf, count, type))
        return false;
    if (b->packed && !wisp_coll_pack(buf, count, type, b->packed, b->bytes, comm)) {
        free(b->packed);
        return false;
    }
    return true;
}

bool wisp_coll_block_out(struct wisp_coll_block *b, void *buf, MPI_Count count, MPI_Datatype type)
{
    return block_of(b, buf, count, type);
}

void wisp_coll_block_out_done(struct wisp_coll_block *b, void *buf, MPI_Count count,
                              MPI_Datatype type, MPI_Comm comm)
{
    if (!b->packed)
        return;
    /* The MPI unpacked these bytes before; it cannot fail now but for memory. */
    if (!wisp_coll_unpack(b->packed, b->bytes, buf, count, type, comm))
        PMPI_Abort(comm, 1);
    free(b->packed);
    b->packed = NULL;
}

void wisp_coll_block_in_done(struct wisp_coll_block *b)
{
    free(b->packed);
    b->packed = NULL;
}

/* A packed copy too: it lives until the collective's last phase. */
uint64_t wisp_coll_block_shared(const struct wisp_coll_block *b)
{
    return wisp_shm_heap_holds(b->at, b->bytes) ? (uint64_t)(uintptr_t)b->at : 0;
}

bool wisp_coll_blocks_of(struct wisp_coll_blocks *bs, void *buf, MPI_Count count,
                         struct wisp_coll_vec v, MPI_Datatype type)
{
    MPI_Aint lb;
    bs->buf = buf;
    bs->type = type;
    bs->count = count;
    bs->v = v;
    return type != MPI_DATATYPE_NULL && PMPI_Type_get_extent(type, &lb, &bs->extent) == MPI_SUCCESS;
}

MPI_Count wisp_coll_blocks_count(const struct wisp_coll_blocks *bs, int m)
{
    if (bs->v.counts || bs->v.lcounts)
        return bs->v.large ? bs->v.lcounts[m] : bs->v.counts[m];
    return bs->count;
}

char *wisp_coll_blocks_at(const struct wisp_coll_blocks *bs, int m)
{
    MPI_Aint displ = (MPI_Aint)bs->count * m;
    if (bs->v.counts || bs->v.lcounts)
        displ = bs->v.large ? bs->v.ldispls[m] : bs->v.displs[m];
    return (char *)((uintptr_t)bs->buf + (uintptr_t)(displ * bs->extent)); /* MPI_BOTTOM too */
}

bool wisp_coll_blocks_unit(const struct wisp_coll_blocks *bs, struct wisp_coll_layout *unit)
{
    return wisp_coll_layout_of(bs->type, 1, unit) && unit->contiguous && unit->bytes &&
           (uint64_t)bs->extent == unit->bytes;
}

void wisp_coll_blocks_flat(const struct wisp_coll_blocks *bs, const struct wisp_coll_layout *unit,
                           int m, struct wisp_coll_block *b)
{
    *b = (struct wisp_coll_block){0};
    b->bytes = (uint64_t)wisp_coll_blocks_count(bs, m) * unit->bytes;
    b->at = (char *)((uintptr_t)wisp_coll_blocks_at(bs, m) + (uintptr_t)unit->lb);
}

bool wisp_coll_blockset_init(struct wisp_coll_blockset *s, int n)
{
    s->b = n <= 8 ? s->few : calloc((size_t)n, sizeof *s->b);
    return s->b != NULL;
}

void wisp_coll_blockset_fini(struct wisp_coll_blockset *s)
{
    if (s->b != s->few)
        free(s->b);
}
