/*
 * The engine's transport, shared by its files (start.c, send.c, recv.c,
 * blocks.c, progress.c, lend/; nothing outside src/p2p includes it): fastbox
 * rings for headers and small payloads, and per-process rendezvous slots for everything larger. A
 * slot lives in the sender's part of the node segment; its header says where the bytes are (the
 * sender's buffer in the shared heap, or the slot's own staging area) and carries the counters that
 * sender and receiver use to share the copy. Only the sender allocates and frees its slots, so no
 * cross-process lock.
 *
 *   immediate    size <= WISP_SHM_IMMEDIATE: the payload rides in the
 *                ring's cells; one miss for the receiver.
 *   staged       private send buffer below WISP_SHM_CMA_MIN: the sender
 *                copies chunks into the slot's staging area (WISP_SHM_STAGE
 *                bytes, 16 chunks) while the receiver copies them out;
 *                messages that fit are sent eagerly (complete once staged).
 *   single copy  send buffer in the shared heap, size >= WISP_SHM_SINGLE_COPY:
 *                the receiver copies straight from it; from private memory,
 *                size >= WISP_SHM_CMA_MIN, with process_vm_readv (cma.c).
 *   synergistic  single copy of >= WISP_SHM_SYNERGY bytes into a receive
 *                buffer in the heap: both sides copy WISP_SHM_BLOCK-sized
 *                blocks claimed from the slot's counter; the receiver
 *                finishes alone when the sender is busy elsewhere. A
 *                sender's layout read in place is split so too: blocks of
 *                the packed stream, each copied from layout to layout (the
 *                receiver publishes its own description beside `dst`).
 */
#ifndef WISP_P2P_TRANSPORT_H
#define WISP_P2P_TRANSPORT_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdint.h>

#include "core/states.h"
#include "p2p/state.h"
#include "p2p/types.h"
#include "shm/fastbox.h"
#include "shm/segment.h"

#pragma GCC visibility push(hidden)

enum {
    SLOTS = 64, /* rendezvous messages in flight per process */
    /* Slots a process needs at MPI_Init to take part (a /dev/shm too small
     * for all SLOTS commits more as sends need them). */
    SLOTS_AT_START = 8,
    CHUNKS = 16, /* staging area pieces: the sender fills one while the receiver empties another */
    /* Fastbox rings, unless WISP_SHM_RING says: RING_SHARE bytes shared
     * among a process's incoming rings, RING_MIN to RING_MAX bytes each.
     * 128 KiB holds a window of 64 messages of 1 KiB (OSU's osu_bw), where
     * a full ring makes a sender queue; 64 processes of a node take 16 KiB
     * rings, 64 MiB in all. */
    RING_SHARE = 1 << 20,
    LAYOUT_BYTES = 512, /* a sender's description beside its message (a vector's fits) */
    RING_MIN = 16 << 10,
    RING_MAX = 128 << 10,
};

/*
 * A slot's life: POSTED -> (MATCHED) -> DONE. A single-copy message that fits
 * the staging area may instead go POSTED -> STAGING -> STAGED when its sender
 * waited long enough for a receiver: the sender stages it late (compare and
 * swap with the receiver's POSTED -> MATCHED), copies it into the staging
 * area and completes, as an MPI's eager protocol would; the receiver then
 * copies from there. A synchronous message whose receive is lent to the MPI
 * (or a standard one too large to stage late, which its receiver has no
 * memory to copy aside: lend/message.c, unblock_sender) goes POSTED -> FORWARD
 * (the receiver asks for it through the MPI) -> FORWARDED (the sender sent
 * it there) -> DONE (the receiver took it), or back FORWARD -> POSTED when
 * the receiver takes it here after all (compare and swap with the sender's
 * FORWARD -> FORWARDED); wisp_p2p_forward.
 *
 * An earlier message of that sender which the receiver holds (its bytes
 * are here, not with the sender) and which the MPI must see first goes
 * back: the receiver names it in the forwarded one's slot through a record
 * of its own (lend/handback.c); the sender claims it, copies it out and sends it
 * through the MPI just before. The receiver may take it back as above.
 * When they are more than one batch of records (`more`), the sender sends
 * a batch and goes FORWARD -> HANDING; the receiver frees the records sent,
 * names the next batch and goes HANDING -> FORWARD again, until the last
 * batch, after which the sender sends the synchronous message too. The
 * receiver may take it back from HANDING as from FORWARD.
 *
 * A message its receiver copies aside unmatched (wisp_p2p_spill: a lent
 * receive, or a sender out of slots) ends in DONE, except a synchronous
 * one, which ends in COPIED: the sender frees the slot but its send stays
 * incomplete (among the `unmatched`) until the receiver matches the copy
 * and says so in a MATCHED notice through the ring (wisp_p2p_sync_matched).
 *
 * Every change goes through slot_move (a change only this side makes now)
 * or slot_swap (one the other side may race with), which name the states
 * it may come from (core/states.h).
 */
/* The states, each named once: the enum and the names in slot_move's line. */
#define WISP_P2P_SLOT_STATES(X)                                                                    \
    X(FREE) /* never used yet (the segment starts zeroed) */                                       \
    X(POSTED)                                                                                      \
    X(MATCHED)                                                                                     \
    X(STAGING)                                                                                     \
    X(STAGED)                                                                                      \
    X(FORWARD)                                                                                     \
    X(FORWARDED)                                                                                   \
    X(HANDING)                                                                                     \
    X(COPIED)                                                                                      \
    X(DONE)
enum {
#define X(state) SLOT_##state,
    WISP_P2P_SLOT_STATES(X)
#undef X
};
/* What a ring's cell carries: a message's bytes, a rendezvous notice, or
 * (receiver to sender) a synchronous copy's match. */
enum { KIND_IMMEDIATE = 1, KIND_RENDEZVOUS, KIND_MATCHED };

struct slot {
    alignas(64) _Atomic uint32_t state;
    uint32_t sync;
    int to; /* the receiver's node rank */
    uint64_t size;
    uint64_t seq;    /* the sender's count of messages emitted, at this one */
    const char *src; /* single copy: the send buffer in the heap; NULL: staged */
    /* A non-contiguous send read in place: src is its layout's origin. */
    MPI_Count count;
    uint32_t layout; /* bytes of its description in `desc`; 0: one run */
    alignas(16) unsigned char desc[LAYOUT_BYTES]; /* wisp_dt_desc_export */
    alignas(64) _Atomic(char *) dst; /* synergistic: the receive buffer, once published */
    /* ... and where the sender's layout is split so: the receive's layout
     * (its origin is dst), written before dst. */
    MPI_Count rcount;
    uint32_t rlayout; /* bytes of its description in `rdesc`; 0: dst is one run */
    alignas(16) unsigned char rdesc[LAYOUT_BYTES];
    _Atomic uint64_t next_block;
    _Atomic uint64_t copied;
    alignas(64) _Atomic uint64_t staged;
    alignas(64) _Atomic uint64_t drained;
    alignas(64) struct wisp_p2p_slot_lending lend; /* lending's part (lend_parts.h) */
};

/* The notice in the ring: what the receiver needs, so that it reads the
 * slot's header lines only when it must (each is a miss on the other core). */
struct rendezvous {
    uint32_t slot;
    uint32_t staged; /* chunks already in the staging area */
    uint64_t size;
    const char *src; /* single copy: the send buffer in the heap */
};

#define SLOT(state) (1u << SLOT_##state)
static const char *const wisp_p2p_slot_names[] = {
#define X(state) #state,
    WISP_P2P_SLOT_STATES(X)
#undef X
};

static inline void slot_move(struct slot *s, unsigned from, uint32_t to, memory_order order)
{
    if (WISP_STATES_CHECKED) /* a load of a line the other side writes: only when checked */
        wisp_state_check("a rendezvous slot", wisp_p2p_slot_names,
                         atomic_load_explicit(&s->state, memory_order_relaxed), from, to);
    atomic_store_explicit(&s->state, to, order);
}

/* `to` if the slot is still in `*seen` (a failure updates it). */
static inline bool slot_swap(struct slot *s, uint32_t *seen, unsigned from, uint32_t to)
{
    wisp_state_check("a rendezvous slot", wisp_p2p_slot_names, *seen, from, to);
    return atomic_compare_exchange_strong(&s->state, seen, to);
}

static inline struct wisp_fastbox_ring *ring(int src, int dst)
{
    return wisp_fastbox_ring(wisp_p2p_seg.base, wisp_p2p.node_size, wisp_p2p_seg.ring_cells, src,
                             dst);
}

static inline struct wisp_doorbell *bell(int proc)
{
    return wisp_fastbox_doorbell(wisp_p2p_seg.base, wisp_p2p.node_size, wisp_p2p_seg.ring_cells,
                                 proc);
}

/* The rings and the doorbells of the application's naps, then one doorbell
 * per process for its rescuer. */
static inline size_t bells_end(int n)
{
    return wisp_fastbox_region_size(n, wisp_p2p_seg.ring_cells) +
           (size_t)n * sizeof(struct wisp_doorbell);
}

static inline struct wisp_doorbell *rescue_bell(int proc)
{
    return (struct wisp_doorbell *)(wisp_p2p_seg.base +
                                    wisp_fastbox_region_size(wisp_p2p.node_size,
                                                             wisp_p2p_seg.ring_cells)) +
           proc;
}

/* After the doorbells, one line per process: how often it ran out of
 * rendezvous slots with sends waiting (spill_for_starved). */
struct starved {
    alignas(64) _Atomic uint32_t count;
};

static inline _Atomic uint32_t *starved_count(int proc)
{
    return &((struct starved *)(wisp_p2p_seg.base + bells_end(wisp_p2p.node_size)) + proc)->count;
}

/* Where the slots begin, page-aligned. */
static inline size_t slots_start(int n)
{
    return (bells_end(n) + (size_t)n * sizeof(struct starved) + 4095) & ~(size_t)4095;
}

/* Where node rank `owner`'s slot `index` lies in the segment. */
static inline size_t slot_offset(int owner, int index)
{
    return slots_start(wisp_p2p.node_size) +
           ((size_t)owner * SLOTS + (size_t)index) * wisp_p2p_seg.slot_stride;
}

static inline struct slot *slot_at(int owner, int index)
{
    return (struct slot *)(wisp_p2p_seg.base + slot_offset(owner, index));
}

/* Commits this process's slots `first` to `first + count - 1` in /dev/shm;
 * false, with a line, where /dev/shm cannot hold them. */
static inline bool wisp_p2p_slots_commit(int first, int count)
{
    return wisp_shm_segment_commit(wisp_p2p_seg.fd, slot_offset(wisp_p2p.node_rank, first),
                                   (size_t)count * wisp_p2p_seg.slot_stride, "p2p");
}

static inline char *staging(struct slot *s)
{
    return (char *)s + sizeof *s;
}

static inline void wake(int proc)
{
    if (wisp_p2p.sleepy || wisp_p2p.ring_always)
        wisp_doorbell_ring(bell(proc));
}

static inline uint64_t chunk_size(void)
{
    return wisp_p2p.stage / CHUNKS;
}

static inline uint64_t chunks_of(uint64_t size)
{
    return (size + chunk_size() - 1) / chunk_size();
}

/* ---- sending ----------------------------------------------------------- */

static inline uint64_t match_word(int ctx, int tag, int kind)
{
    return (uint64_t)(uint32_t)tag << 32 | (uint64_t)(uint32_t)ctx << 8 | (uint64_t)kind;
}

static inline int kind_of(uint64_t match)
{
    return (int)(match & 0xff);
}
static inline int ctx_of(uint64_t match)
{
    return (int)(match >> 8 & 0xffffff);
}
static inline int tag_of(uint64_t match)
{
    return (int)(int32_t)(match >> 32);
}

#pragma GCC visibility pop

#endif
