/*
 * Fastbox rings and doorbells (see fastbox.h). The ring is single-producer,
 * single-consumer: the sender publishes a cell with a release store of its
 * sequence number, the receiver takes it with an acquire load, so neither
 * needs a lock or a read-modify-write. The sender reads the receiver's
 * progress only when its cached view says the ring is full, so in the common
 * case a message moves exactly one cache line between the two cores.
 */
#include "shm/fastbox.h"

#include <string.h>

#include "core/futex.h"

bool wisp_fastbox_put(struct wisp_fastbox_ring *ring, uint64_t match, const void *payload,
                      uint32_t size)
{
    uint32_t n = ring->sent, cells = wisp_fastbox_cells(size);
    if (n + cells - ring->consumed_seen > WISP_FASTBOX_CELLS) {
        ring->consumed_seen = atomic_load_explicit(&ring->consumed, memory_order_acquire);
        if (n + cells - ring->consumed_seen > WISP_FASTBOX_CELLS)
            return false;
    }
    const unsigned char *from = payload;
    struct wisp_fastbox_cell *cell = &ring->cells[n % WISP_FASTBOX_CELLS];
    cell->size = size;
    cell->match = match;
    uint32_t first = size < WISP_FASTBOX_INLINE ? size : WISP_FASTBOX_INLINE;
    if (first) /* zero bytes may come from a null buffer */
        memcpy(cell->payload, from, first);
    /* Further cells first: the release store of the first cell's sequence
     * number publishes them all. Their own numbers keep the ring's invariant
     * (cell i holds i + 1) for the cells that later messages start in. */
    for (uint32_t i = 1, done = first; i < cells; i++) {
        struct wisp_fastbox_more *more = (void *)&ring->cells[(n + i) % WISP_FASTBOX_CELLS];
        uint32_t part = size - done < WISP_FASTBOX_MORE ? size - done : WISP_FASTBOX_MORE;
        memcpy(more->payload, from + done, part);
        atomic_store_explicit(&more->seq, n + i + 1, memory_order_relaxed);
        done += part;
    }
    atomic_store_explicit(&cell->seq, n + 1, memory_order_release);
    ring->sent = n + cells;
    return true;
}

void wisp_fastbox_read(const struct wisp_fastbox_ring *ring, const struct wisp_fastbox_cell *cell,
                       void *dst, uint32_t offset, uint32_t size)
{
    unsigned char *to = dst;
    if (!size)
        return;
    if (offset < WISP_FASTBOX_INLINE) {
        uint32_t part = WISP_FASTBOX_INLINE - offset < size ? WISP_FASTBOX_INLINE - offset : size;
        memcpy(to, cell->payload + offset, part);
        to += part, offset += part, size -= part;
    }
    uint32_t first = (uint32_t)(cell - ring->cells);
    while (size) {
        uint32_t i = 1 + (offset - WISP_FASTBOX_INLINE) / WISP_FASTBOX_MORE;
        uint32_t at = (offset - WISP_FASTBOX_INLINE) % WISP_FASTBOX_MORE;
        const struct wisp_fastbox_more *more =
            (const void *)&ring->cells[(first + i) % WISP_FASTBOX_CELLS];
        uint32_t part = WISP_FASTBOX_MORE - at < size ? WISP_FASTBOX_MORE - at : size;
        memcpy(to, more->payload + at, part);
        to += part, offset += part, size -= part;
    }
}

void wisp_fastbox_release(struct wisp_fastbox_ring *ring)
{
    const struct wisp_fastbox_cell *cell = &ring->cells[ring->received % WISP_FASTBOX_CELLS];
    ring->received += wisp_fastbox_cells(cell->size);
    atomic_store_explicit(&ring->consumed, ring->received, memory_order_release);
}

void wisp_doorbell_wait(struct wisp_doorbell *bell, bool (*ready)(void *), void *ctx)
{
    wisp_doorbell_wait_for(bell, ready, ctx, -1);
}

void wisp_doorbell_wait_for(struct wisp_doorbell *bell, bool (*ready)(void *), void *ctx,
                            long timeout_ns)
{
    uint32_t seen = atomic_load_explicit(&bell->rings, memory_order_acquire);
    atomic_fetch_add_explicit(&bell->asleep, 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_seq_cst); /* pairs with the fence in ring */
    /* A sender that put its message before seeing this sleeper did not ring:
     * look once more after announcing the sleep. */
    if (!ready(ctx))
        wisp_futex(&bell->rings, FUTEX_WAIT, seen, timeout_ns); /* shared: not _PRIVATE */
    atomic_fetch_sub_explicit(&bell->asleep, 1, memory_order_relaxed);
}

void wisp_doorbell_ring(struct wisp_doorbell *bell)
{
    atomic_thread_fence(memory_order_seq_cst); /* the put is visible before asleep is read */
    if (atomic_load_explicit(&bell->asleep, memory_order_relaxed)) {
        atomic_fetch_add_explicit(&bell->rings, 1, memory_order_release);
        /* Every sleeper: a nap of the application and the progress thread
         * each wait for something of their own. */
        wisp_futex(&bell->rings, FUTEX_WAKE, INT32_MAX, -1);
    }
}
