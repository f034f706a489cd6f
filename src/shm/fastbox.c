/*
 * Fastbox rings and doorbells (see fastbox.h). The ring is single-producer,
 * single-consumer: the sender publishes a message with a release store of
 * its header's sequence number, the receiver takes it with an acquire load,
 * so neither needs a lock or a read-modify-write. The sender reads the
 * receiver's progress only when its cached view says the ring is full, so in
 * the common case a small message moves at most one cache line between the
 * two cores.
 *
 * A cell may hold stale bytes (a message's payload, a header from laps
 * ago) that look like the sequence number the receiver waits for there; so
 * the receiver zeroes the first word of every cell it has read before it
 * gives the cells back. Open MPI's fastboxes have the sender zero the cell
 * after each message instead: that cell is the one the receiver polls, so
 * it crossed between the cores twice per message.
 */
#include "shm/fastbox.h"

#include <string.h>

#include "core/futex.h"

void wisp_fastbox_join(void *region, int nprocs, uint32_t ncells, int me)
{
    for (int peer = 0; peer < nprocs; peer++) {
        wisp_fastbox_ring(region, nprocs, ncells, me, peer)->send_mask = ncells - 1;
        wisp_fastbox_ring(region, nprocs, ncells, peer, me)->receive_mask = ncells - 1;
    }
}

/* Bytes of cells in a ring whose side keeps `mask` (ncells - 1). */
static uint32_t bytes_of(uint32_t mask)
{
    return (mask + 1) * WISP_FASTBOX_CELL;
}

/* The ring's bytes from `at` on (modulo its size), `size` of them, wrapping. */
static void copy_in(struct wisp_fastbox_ring *ring, uint32_t at, const void *from, uint32_t size)
{
    unsigned char *bytes = (unsigned char *)ring->cells;
    uint32_t end = bytes_of(ring->send_mask);
    uint32_t part = end - at < size ? end - at : size;
    memcpy(bytes + at, from, part);
    if (size > part)
        memcpy(bytes, (const unsigned char *)from + part, size - part);
}

static void copy_out(const struct wisp_fastbox_ring *ring, uint32_t at, void *to, uint32_t size)
{
    const unsigned char *bytes = (const unsigned char *)ring->cells;
    uint32_t end = bytes_of(ring->receive_mask);
    uint32_t part = end - at < size ? end - at : size;
    memcpy(to, bytes + at, part);
    if (size > part)
        memcpy((unsigned char *)to + part, bytes, size - part);
}

bool wisp_fastbox_put(struct wisp_fastbox_ring *ring, uint64_t match, const void *payload,
                      uint32_t size)
{
    uint32_t mask = ring->send_mask, ncells = mask + 1;
    uint32_t n = ring->sent, cells = wisp_fastbox_cells(size), pos = n & mask;
    uint32_t at = n;                              /* where the message goes */
    if (pos >= WISP_FASTBOX_HOT && pos > cells) { /* the skip mark clear of the message */
        /* Back to the first cell once the receiver has read the cells the
         * message and the next header take there, and all but half the hot
         * cells' worth (little is lost past the mark); asked at most once
         * per WISP_FASTBOX_HOT cells, so a stream pays little. */
        uint32_t need = n - pos + cells + 1, near = n - WISP_FASTBOX_HOT / 2;
        if ((int32_t)(near - need) > 0)
            need = near;
        if ((int32_t)(ring->consumed_seen - need) < 0 && n - ring->looked >= WISP_FASTBOX_HOT) {
            ring->consumed_seen = atomic_load_explicit(&ring->consumed, memory_order_acquire);
            ring->looked = n;
        }
        if ((int32_t)(ring->consumed_seen - need) >= 0)
            at = n + ncells - pos;
    }
    if (at == n && n + cells + 1 - ring->consumed_seen > ncells) { /* + 1: a cell always spare */
        ring->consumed_seen = atomic_load_explicit(&ring->consumed, memory_order_acquire);
        if (n + cells + 1 - ring->consumed_seen > ncells)
            return false;
    }
    struct wisp_fastbox_cell *cell = &ring->cells[at & mask];
    cell->size = size;
    cell->match = match;
    if (size) /* zero bytes may come from a null buffer */
        copy_in(ring, (at & mask) * WISP_FASTBOX_CELL + WISP_FASTBOX_HEADER, payload, size);
    struct wisp_fastbox_cell *publish = cell;
    uint32_t seq = at + 1;
    if (at != n) { /* the message first; the mark's release store publishes both */
        atomic_store_explicit(&cell->seq, at + 1, memory_order_relaxed);
        publish = &ring->cells[pos];
        publish->size = WISP_FASTBOX_SKIP;
        seq = n + 1;
    }
    /* Last: the release store publishes the payload. */
    atomic_store_explicit(&publish->seq, seq, memory_order_release);
    ring->sent = at + cells;
    return true;
}

void wisp_fastbox_read(const struct wisp_fastbox_ring *ring, const struct wisp_fastbox_cell *cell,
                       void *dst, uint32_t offset, uint32_t size)
{
    if (!size)
        return;
    uint32_t at = (uint32_t)(cell - ring->cells) * WISP_FASTBOX_CELL + WISP_FASTBOX_HEADER + offset;
    copy_out(ring, at % bytes_of(ring->receive_mask), dst, size);
}

void wisp_fastbox_release(struct wisp_fastbox_ring *ring)
{
    uint32_t mask = ring->receive_mask, first = ring->received & mask;
    uint32_t cells = wisp_fastbox_cells(ring->cells[first].size);
    for (uint32_t k = 0; k < cells; k++) /* before `consumed` lets the sender reuse them */
        atomic_store_explicit(&ring->cells[(first + k) & mask].seq, 0, memory_order_relaxed);
    ring->received += cells;
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
