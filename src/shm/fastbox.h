/*
 * Fastboxes: the transport of the immediate protocol. For each ordered pair
 * of processes of a node, a ring of 32-byte cells in shared memory (two to
 * a cache line) that only the sender writes and only the receiver empties.
 * A message is a header (sequence word, size, match) followed by its
 * payload, contiguous from the header's cell on (wrapping at the ring's
 * end), as the MPIs' own fastboxes do: the sender copies it with one
 * memcpy, the receiver with one, and two small messages in a row cost the
 * receiver one cache miss (Open MPI's fastboxes align to 32 bytes too; the
 * 8 B message rate went up 1.11x under Open MPI and 1.38x under MPICH from
 * cells of a line each: medians of 15 and 11 alternated runs). Messages of one
 * ring are read in the order they were written (MPI's non-overtaking rule
 * for one sender).
 *
 * A doorbell per process lets a receiver with nothing to do sleep in the
 * kernel (futex) instead of spinning on an oversubscribed node; senders
 * ring it only when its owner is asleep.
 */
#ifndef WISP_SHM_FASTBOX_H
#define WISP_SHM_FASTBOX_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

enum {
    WISP_FASTBOX_LINE = 64,   /* a cache line: each side's state has its own */
    WISP_FASTBOX_CELL = 32,   /* the ring's unit */
    WISP_FASTBOX_HEADER = 16, /* bytes of the header; the payload follows */
    WISP_FASTBOX_INLINE = WISP_FASTBOX_CELL - WISP_FASTBOX_HEADER, /* in the header's cell */
    /* A sender past the ring's first WISP_FASTBOX_HOT cells (4 KiB) goes on
     * at the first cell when the receiver has read all but the last
     * WISP_FASTBOX_HOT / 2 cells written, and leaves a skip mark (a header
     * of size WISP_FASTBOX_SKIP) where it was: a ping-pong or a stream the
     * receiver keeps up with stays in lines the caches hold; a receiver that
     * lags still finds the whole ring (the cells past a mark are lost until
     * the receiver reaches it, so the sender does not go back while the
     * receiver is far behind). */
    WISP_FASTBOX_HOT = 128,
};
#define WISP_FASTBOX_SKIP UINT32_MAX

/* The cell a message starts in; its payload goes on into the next ones. */
struct wisp_fastbox_cell {
    alignas(WISP_FASTBOX_CELL) _Atomic uint32_t seq; /* n + 1 once message n is in */
    uint32_t size;
    uint64_t match; /* what the engine matches on (tag, communicator) */
    unsigned char payload[WISP_FASTBOX_INLINE];
};

_Static_assert(sizeof(struct wisp_fastbox_cell) == WISP_FASTBOX_CELL, "a cell's size");

/* Cells that a message of `size` payload bytes occupies. */
static inline uint32_t wisp_fastbox_cells(uint32_t size)
{
    return (WISP_FASTBOX_HEADER + size + WISP_FASTBOX_CELL - 1) / WISP_FASTBOX_CELL;
}

/* A ring of `ncells` cells, a power of two that the node agrees on (each
 * side keeps it as a mask in its own line, where it looks on every call). */
struct wisp_fastbox_ring {
    /* The receiver's progress, read by the sender only when the ring looks full. */
    alignas(WISP_FASTBOX_LINE) _Atomic uint32_t consumed;
    /* The sender's own state, in its own line: sent, its view of consumed,
     * and where it last asked for consumed to go back to the first cell. */
    alignas(WISP_FASTBOX_LINE) uint32_t sent;
    uint32_t consumed_seen;
    uint32_t looked;
    uint32_t send_mask; /* ncells - 1 */
    /* The receiver's own state. */
    alignas(WISP_FASTBOX_LINE) uint32_t received;
    uint32_t receive_mask; /* ncells - 1 */
    struct wisp_fastbox_cell cells[];
};

struct wisp_doorbell {
    alignas(WISP_FASTBOX_LINE) _Atomic uint32_t rings; /* futex word */
    _Atomic uint32_t asleep; /* threads sleeping on it (an application's wait, a progress thread) */
};

static inline size_t wisp_fastbox_ring_size(uint32_t ncells)
{
    return sizeof(struct wisp_fastbox_ring) + (size_t)ncells * WISP_FASTBOX_CELL;
}

/* Bytes of shared memory for the rings and doorbells of `nprocs` processes. */
static inline size_t wisp_fastbox_region_size(int nprocs, uint32_t ncells)
{
    size_t n = (size_t)nprocs;
    return n * n * wisp_fastbox_ring_size(ncells) + n * sizeof(struct wisp_doorbell);
}

/* The ring from `src` to `dst` and the doorbell of `proc` in a region of
 * wisp_fastbox_region_size(nprocs, ncells) zeroed bytes (inline: the engine
 * asks on every poll). */
static inline struct wisp_fastbox_ring *wisp_fastbox_ring(void *region, int nprocs, uint32_t ncells,
                                                          int src, int dst)
{
    size_t at = (size_t)src * (size_t)nprocs + (size_t)dst;
    return (struct wisp_fastbox_ring *)((char *)region + at * wisp_fastbox_ring_size(ncells));
}

static inline struct wisp_doorbell *wisp_fastbox_doorbell(void *region, int nprocs, uint32_t ncells,
                                                          int proc)
{
    size_t rings = (size_t)nprocs * (size_t)nprocs;
    return (struct wisp_doorbell *)((char *)region + rings * wisp_fastbox_ring_size(ncells)) + proc;
}

/* Process `me`, before its first message: its side of each ring it sends
 * or receives on learns the size, `ncells` (a power of two, at least 4). */
void wisp_fastbox_join(void *region, int nprocs, uint32_t ncells, int me);

/* Sender: put a message of `size` bytes, in wisp_fastbox_cells(size) cells,
 * fewer than the ring's cells; false when the ring has not that many free
 * (and one more, always spare). */
bool wisp_fastbox_put(struct wisp_fastbox_ring *ring, uint64_t match, const void *payload,
                      uint32_t size);

/* Receiver, without changing the ring (any thread): is a message (or a skip
 * mark) waiting? */
static inline bool wisp_fastbox_waiting(const struct wisp_fastbox_ring *ring)
{
    const struct wisp_fastbox_cell *cell = &ring->cells[ring->received & ring->receive_mask];
    return atomic_load_explicit(&cell->seq, memory_order_acquire) == ring->received + 1;
}

/* Receiver (its one reading thread): the oldest unread message, or NULL
 * when there is none; it passes skip marks. The message stays valid (and
 * unread) until wisp_fastbox_release. */
static inline const struct wisp_fastbox_cell *wisp_fastbox_peek(struct wisp_fastbox_ring *ring)
{
    for (;;) {
        struct wisp_fastbox_cell *cell = &ring->cells[ring->received & ring->receive_mask];
        if (atomic_load_explicit(&cell->seq, memory_order_acquire) != ring->received + 1)
            return NULL;
        if (cell->size != WISP_FASTBOX_SKIP)
            return cell;
        atomic_store_explicit(&cell->seq, 0, memory_order_relaxed); /* as a read cell (fastbox.c) */
        ring->received = (ring->received | ring->receive_mask) + 1; /* the next lap */
    }
}

/* Receiver: the payload of the message that starts at `cell` (from
 * wisp_fastbox_peek), `size` bytes of it from `offset` on, into `dst`. */
void wisp_fastbox_read(const struct wisp_fastbox_ring *ring, const struct wisp_fastbox_cell *cell,
                       void *dst, uint32_t offset, uint32_t size);

/* Receiver: done with the message wisp_fastbox_peek returned. */
void wisp_fastbox_release(struct wisp_fastbox_ring *ring);

/* Receiver: sleep until a sender rings, unless `ready()` becomes true first
 * (checked after announcing the sleep, so no ring is missed). */
void wisp_doorbell_wait(struct wisp_doorbell *bell, bool (*ready)(void *), void *ctx);

/* The same, but back after `timeout_ns` at the latest. */
void wisp_doorbell_wait_for(struct wisp_doorbell *bell, bool (*ready)(void *), void *ctx,
                            long timeout_ns);

/* Sender, after a put: wake the receiver if it sleeps. */
void wisp_doorbell_ring(struct wisp_doorbell *bell);

#pragma GCC visibility pop

#endif
