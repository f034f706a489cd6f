/*
 * The blocks of a synergistic message (transport.h): both sides claim
 * WISP_SHM_BLOCK-sized blocks from the slot's counter and copy them, in
 * their own address space or across by cross-memory attach (cma.c).
 */
#include "p2p/blocks.h"

#include "p2p/cma.h"
#include "p2p/layout.h"
#include "p2p/state.h"
#include "shm/heap.h"

void wisp_p2p_copy_here(int peer, char *dst, const char *src, uint64_t n)
{
    (void)peer;
    wisp_p2p_copy(dst, src, n);
}

void wisp_p2p_copy_from_peer(int peer, char *dst, const char *src, uint64_t n)
{
    wisp_p2p_cma_copy(peer, dst, src, n);
}

void wisp_p2p_copy_to_peer(int peer, char *dst, const char *src, uint64_t n)
{
    wisp_p2p_cma_write(peer, dst, src, n);
}

static void copy_block(const struct wisp_p2p_blocks *c, uint64_t at, uint64_t len)
{
    if (!c->sdesc)
        c->copy(c->peer, c->dst + at, c->src + at, len);
    else if (c->ddesc)
        wisp_dt_team_copy(c->src, c->scount, c->sdesc, c->dst, c->dcount, c->ddesc, at, len);
    else
        wisp_dt_team_pack(c->src, c->scount, c->sdesc, at, len, c->dst + at);
}

bool wisp_p2p_claim_blocks(struct slot *s, const struct wisp_p2p_blocks *c)
{
    uint64_t blocks = (s->size + wisp_p2p.block - 1) / wisp_p2p.block;
    bool any = false;
    for (;;) {
        uint64_t b = atomic_fetch_add_explicit(&s->next_block, 1, memory_order_relaxed);
        if (b >= blocks)
            return any;
        uint64_t at = b * wisp_p2p.block;
        uint64_t len = s->size - at < wisp_p2p.block ? s->size - at : wisp_p2p.block;
        copy_block(c, at, len);
        atomic_fetch_add_explicit(&s->copied, len, memory_order_release);
        any = true;
    }
}

bool wisp_p2p_layout_in_heap(const char *buf, MPI_Count count, const wisp_dt_desc_t *desc)
{
    int64_t reach = (int64_t)(count - 1) * wisp_dt_desc_extent(desc);
    const char *lo = buf + wisp_dt_desc_true_lb(desc) + (reach < 0 ? reach : 0);
    uint64_t span = (uint64_t)(wisp_dt_desc_true_extent(desc) + (reach < 0 ? -reach : reach));
    return wisp_shm_heap_holds(lo, span);
}
