/*
 * The engine's transport: fastbox rings for headers and small payloads, and
 * per-process rendezvous slots for everything larger. A slot lives in the
 * sender's part of the node segment; its header says where the bytes are
 * (the sender's buffer in the shared heap, or the slot's own staging area)
 * and carries the counters that sender and receiver use to share the copy.
 * Only the sender allocates and frees its slots, so no cross-process lock.
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
#include "p2p/p2p.h"

#include <sched.h>
#include <signal.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/config.h"
#include "core/log.h"
#include "core/states.h"
#include "core/topo.h"
#include "core/world.h"
#include "shm/fastbox.h"
#include "shm/heap.h"
#include "shm/segment.h"

enum {
    SLOTS = 64,  /* rendezvous messages in flight per process */
    CHUNKS = 16, /* staging area pieces: the sender fills one while the receiver empties another */
    POKE_EVERY = 128,         /* idle polls between calls into the MPI's own progress */
    SPIN_SLEEPY = 16,         /* idle polls before a sleepy process yields */
    SPIN_AWAKE = 1 << 16,     /* idle polls before any other yields now and then */
    NAP_MIN_NS = 10000,       /* first nap; each next one twice as long, up to: */
    NAP_NS = 200000,          /* longest nap: events the doorbell misses (the MPI's) */
    RESCUE_NS = 50000,        /* the rescuer's second look, once the application went quiet */
    RESCUE_IDLE_NS = 1000000, /* its look while the application moves the engine */
    CALL_AFTER_PASSES = 1024, /* idle progress passes before a waiting process calls rescuers */
    CALL_EVERY_NS = 1000000,  /* and then at most this often */
    STAGE_LATE_PASSES = 256,  /* progress passes a single-copy sender waits before it stages */
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
 * memory to copy aside: match.c, unblock_sender) goes POSTED -> FORWARD
 * (the receiver asks for it through the MPI) -> FORWARDED (the sender sent
 * it there) -> DONE (the receiver took it), or back FORWARD -> POSTED when
 * the receiver takes it here after all (compare and swap with the sender's
 * FORWARD -> FORWARDED); wisp_p2p_forward.
 *
 * An earlier message of that sender which the receiver holds (its bytes
 * are here, not with the sender) and which the MPI must see first goes
 * back: the receiver names it in the forwarded one's slot through a record
 * of its own (handback.c); the sender claims it, copies it out and sends it
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
enum {
    SLOT_FREE, /* never used yet (the segment starts zeroed) */
    SLOT_POSTED,
    SLOT_MATCHED,
    SLOT_STAGING,
    SLOT_STAGED,
    SLOT_FORWARD,
    SLOT_FORWARDED,
    SLOT_HANDING,
    SLOT_COPIED,
    SLOT_DONE,
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
    /* Forwarding: the messages handed back, to send through the MPI first
     * (written by the receiver). */
    alignas(64) uint32_t nbefore;
    uint32_t more; /* further batches follow: wait in HANDING for them */
    struct {
        uint32_t index, gen;
    } before[WISP_P2P_RETURN_MAX];
};

/* The notice in the ring: what the receiver needs, so that it reads the
 * slot's header lines only when it must (each is a miss on the other core). */
struct rendezvous {
    uint32_t slot;
    uint32_t staged; /* chunks already in the staging area */
    uint64_t size;
    const char *src; /* single copy: the send buffer in the heap */
};

struct wisp_p2p wisp_p2p;

#define SLOT(state) (1u << SLOT_##state)
static const char *const slot_names[] = {"FREE",    "POSTED",    "MATCHED", "STAGING", "STAGED",
                                         "FORWARD", "FORWARDED", "HANDING", "COPIED",  "DONE"};

static void slot_move(struct slot *s, unsigned from, uint32_t to, memory_order order)
{
    wisp_state_check("a rendezvous slot", slot_names,
                     atomic_load_explicit(&s->state, memory_order_relaxed), from, to);
    atomic_store_explicit(&s->state, to, order);
}

/* `to` if the slot is still in `*seen` (a failure updates it). */
static bool slot_swap(struct slot *s, uint32_t *seen, unsigned from, uint32_t to)
{
    wisp_state_check("a rendezvous slot", slot_names, *seen, from, to);
    return atomic_compare_exchange_strong(&s->state, seen, to);
}

static char *segment;
static size_t segment_size, slot_stride;
static uint32_t ring_cells; /* per fastbox ring, the same in every process of the node */
static MPI_Comm poke_comm = MPI_COMM_NULL;
static struct wisp_list *pending; /* per destination node rank: sends not yet in the ring */
/* The rings into this process, one per peer of the node: every poll looks
 * at each, so their addresses are kept, not computed from the layout. */
struct inbox {
    struct wisp_fastbox_ring *ring;
    int from;
    _Atomic uint32_t starved_seen; /* the sender's starved count when last acted on
                                      (the rescuer reads it unlocked) */
    bool starved_news;             /* it changed: spill what the sender waits for */
};
static struct inbox *inbox;
static int ninbox;
static unsigned npending;
static struct wisp_list receiving; /* receives copying a rendezvous message */
/* Sends that went through the MPI for a receive lent there (forwarded
 * synchronous ones, slot given back, and returned ones) whose MPI request
 * is still to complete. */
static struct wisp_list forwarded;
/* Synchronous messages from local senders forwarded ahead of more earlier
 * messages than one batch of records names (wisp_p2p_forward), in the
 * order they were asked for. */
static struct wisp_list batched;
/* Synchronous sends whose receiver copied them aside (SLOT_COPIED): done
 * at the MATCHED notice of their `seq`. */
static struct wisp_list unmatched;
/* MATCHED notices that found the ring to their sender full: sent later. */
static struct matched_notice {
    int to;
    uint64_t seq;
} * notices;
static size_t nnotices, notices_cap;
static uint64_t emitted; /* rendezvous messages this process sent: their order */
static pthread_t rescuer;
static _Atomic bool rescuer_stop;
static _Atomic unsigned long passes; /* progress passes of the application's threads */
static struct {
    struct wisp_p2p_req *req[SLOTS];
    int free[SLOTS], nfree;
    int busy[SLOTS], nbusy;
    bool starving; /* out of slots with sends waiting, since starved_count last grew */
} mine;

static struct wisp_fastbox_ring *ring(int src, int dst)
{
    return wisp_fastbox_ring(segment, wisp_p2p.node_size, ring_cells, src, dst);
}

static struct wisp_doorbell *bell(int proc)
{
    return wisp_fastbox_doorbell(segment, wisp_p2p.node_size, ring_cells, proc);
}

/* The rings and the doorbells of the application's naps, then one doorbell
 * per process for its rescuer. */
static size_t bells_end(int n)
{
    return wisp_fastbox_region_size(n, ring_cells) + (size_t)n * sizeof(struct wisp_doorbell);
}

static struct wisp_doorbell *rescue_bell(int proc)
{
    return (struct wisp_doorbell *)(segment +
                                    wisp_fastbox_region_size(wisp_p2p.node_size, ring_cells)) +
           proc;
}

/* After the doorbells, one line per process: how often it ran out of
 * rendezvous slots with sends waiting (spill_for_starved). */
struct starved {
    alignas(64) _Atomic uint32_t count;
};

static _Atomic uint32_t *starved_count(int proc)
{
    return &((struct starved *)(segment + bells_end(wisp_p2p.node_size)) + proc)->count;
}

/* Where the slots begin, page-aligned. */
static size_t slots_start(int n)
{
    return (bells_end(n) + (size_t)n * sizeof(struct starved) + 4095) & ~(size_t)4095;
}

static struct slot *slot_at(int owner, int index)
{
    size_t first = slots_start(wisp_p2p.node_size);
    return (struct slot *)(segment + first + ((size_t)owner * SLOTS + (size_t)index) * slot_stride);
}

static char *staging(struct slot *s)
{
    return (char *)s + sizeof *s;
}

static void wake(int proc)
{
    if (wisp_p2p.sleepy || wisp_p2p.ring_always)
        wisp_doorbell_ring(bell(proc));
}

static uint64_t chunk_size(void)
{
    return wisp_p2p.stage / CHUNKS;
}

static uint64_t chunks_of(uint64_t size)
{
    return (size + chunk_size() - 1) / chunk_size();
}

/* ---- life cycle -------------------------------------------------------- */

/* Cells of a fastbox ring among `n` processes (a power of two, rounded down). */
static uint32_t cells_for(int n)
{
    size_t bytes = (size_t)wisp_config.SHM_RING;
    if (!bytes) {
        bytes = RING_SHARE / (size_t)(n > 1 ? n - 1 : 1);
        bytes = bytes < RING_MIN ? RING_MIN : bytes > RING_MAX ? RING_MAX : bytes;
    }
    size_t cells = bytes / WISP_FASTBOX_CELL;
    while (cells & (cells - 1))
        cells &= cells - 1;
    return (uint32_t)cells;
}

static void *rescue(void *unused);

/* The rescuer blocks every signal: a handler of the application's must run
 * on one of its own threads (created with all blocked, so none slips in). */
static void start_rescuer(void)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&rescuer, NULL, rescue, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc)
        wisp_fatal("cannot start the point-to-point rescuer thread: %s", strerror(rc));
    pthread_setname_np(rescuer, "wisp-rescuer");
}

void wisp_p2p_init(int thread_level)
{
    wisp_p2p_type_init(); /* MPI_Pack and MPI_Unpack use the datatype engine also without */
    int mine_on = wisp_config.SHM, all_on = 0;
    PMPI_Allreduce(&mine_on, &all_on, 1, MPI_INT, MPI_MIN, wisp_core_user_world);
    if (!all_on)
        return;
    /* The MPI progresses on a probe of a communicator with peers; MPICH
     * answers one of MPI_COMM_SELF without moving anything. Every process
     * makes it, also where the segment fails below. */
    PMPI_Comm_dup(wisp_core_user_world, &poke_comm);
    int *tag_ub = NULL, found = 0;
    PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &found);
    wisp_p2p.tag_ub = found && tag_ub ? *tag_ub : 32767; /* the least MPI allows */
    int n = wisp_topo.node_size;
    wisp_p2p.node_rank = wisp_topo.node_rank;
    wisp_p2p.node_size = n;
    /* The segment's layout is the node's: node rank 0's settings decide it
     * (a process started with other values would read the wrong cells). */
    uint64_t layout[2] = {cells_for(n), (uint64_t)wisp_config.SHM_STAGE};
    PMPI_Bcast(layout, 2, MPI_UINT64_T, 0, wisp_topo.node_comm);
    ring_cells = (uint32_t)layout[0];
    wisp_p2p.stage = layout[1];
    wisp_p2p.immediate_max = (uint64_t)wisp_config.SHM_IMMEDIATE;
    wisp_p2p.single_copy_min = (uint64_t)wisp_config.SHM_SINGLE_COPY;
    wisp_p2p.cma_min = (uint64_t)wisp_config.SHM_CMA_MIN;
    wisp_p2p.synergy_min = (uint64_t)wisp_config.SHM_SYNERGY;
    wisp_p2p.block = (uint64_t)wisp_config.SHM_BLOCK;
    wisp_p2p.sleepy = wisp_topo_oversubscribed();
    slot_stride = (sizeof(struct slot) + wisp_p2p.stage + 4095) & ~(size_t)4095;
    size_t first = slots_start(n);
    size_t handback = first + (size_t)n * SLOTS * slot_stride;
    segment_size = handback + wisp_p2p_handback_size(n);
    int fd = wisp_shm_segment_open(wisp_topo.node_comm, "p2p", segment_size);
    void *map = MAP_FAILED;
    /* Committed now, not at a slot's first use mid-run (a SIGBUS once the
     * heap or the MPI has filled /dev/shm): each process its own slots, so
     * they land on its NUMA node, node rank 0 the rings and the records of
     * messages handed back. */
    size_t my_slots = (size_t)SLOTS * slot_stride;
    if (fd >= 0 &&
        wisp_shm_segment_commit(fd, first + (size_t)wisp_p2p.node_rank * my_slots, my_slots,
                                "p2p") &&
        (wisp_p2p.node_rank != 0 ||
         (wisp_shm_segment_commit(fd, 0, first, "p2p") &&
          wisp_shm_segment_commit(fd, handback, segment_size - handback, "p2p"))))
        map = mmap(NULL, segment_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (fd >= 0)
        close(fd);
    /* A forked child is no MPI process: it does not even get the segment. */
    if (map != MAP_FAILED)
        madvise(map, segment_size, MADV_DONTFORK);
    if (!wisp_shm_all_agree(map != MAP_FAILED, wisp_topo.node_comm)) {
        if (map != MAP_FAILED)
            munmap(map, segment_size);
        wisp_log(1, "point-to-point engine off on this node: no shared segment of %zu bytes",
                 segment_size);
        wisp_p2p_comm_init(wisp_core_user_world); /* still agree on contexts, as the others do */
        return;
    }
    segment = map;
    wisp_fastbox_join(segment, n, ring_cells, wisp_p2p.node_rank);
    wisp_p2p_handback_init(segment + handback, wisp_p2p.node_rank, n);
    pending = malloc(sizeof *pending * (size_t)n);
    inbox = malloc(sizeof *inbox * (size_t)n);
    if (!pending || !inbox)
        wisp_fatal("out of memory for the point-to-point engine");
    ninbox = 0;
    for (int p = 0; p < n; p++)
        if (p != wisp_p2p.node_rank)
            inbox[ninbox++] = (struct inbox){.ring = ring(p, wisp_p2p.node_rank),
                                             .from = p,
                                             .starved_seen = atomic_load(starved_count(p))};
    for (int i = 0; i < n; i++)
        wisp_list_init(&pending[i]);
    wisp_list_init(&receiving);
    wisp_list_init(&forwarded);
    wisp_list_init(&batched);
    wisp_list_init(&unmatched);
    for (int i = 0; i < SLOTS; i++)
        mine.free[mine.nfree++] = SLOTS - 1 - i;
    wisp_p2p.threads = thread_level == MPI_THREAD_MULTIPLE;
    /* n > 1: the rescuer; and the progress thread (src/progress) */
    wisp_p2p_lock_init(n > 1 || wisp_config.PROGRESS != WISP_PROGRESS_OFF, wisp_p2p.threads);
    wisp_p2p.on = true;
    atomic_store(&rescuer_stop, false);
    if (n > 1)
        start_rescuer();
    wisp_p2p.cma = n > 1 && wisp_p2p_cma_init(wisp_topo.node_comm, wisp_config.SHM_CMA);
    wisp_p2p_comm_init(wisp_core_user_world);
    wisp_log(2,
             "point-to-point engine on: %d processes on this node, rings of %u KiB, "
             "immediate <= %llu B, private messages from %llu B %s",
             n, ring_cells * WISP_FASTBOX_CELL >> 10, (unsigned long long)wisp_p2p.immediate_max,
             (unsigned long long)(wisp_p2p.cma ? wisp_p2p.cma_min : wisp_p2p.immediate_max + 1),
             wisp_p2p.cma ? "by cross-memory attach" : "staged");
}

static bool sends_delivered(void *unused);
static void drop_slot_holds(void);

void wisp_p2p_fini(void)
{
    if (segment) { /* sends reported complete must still reach their receivers */
        wisp_p2p_lock();
        wisp_p2p_wait_until(sends_delivered, NULL);
        drop_slot_holds();
        wisp_p2p_unlock();
    }
    if (poke_comm != MPI_COMM_NULL)
        PMPI_Comm_free(&poke_comm);
    wisp_p2p_type_fini();
    if (!segment) {
        wisp_p2p_comm_fini();
        return;
    }
    if (wisp_p2p.node_size > 1) {
        atomic_store(&rescuer_stop, true);
        wisp_doorbell_ring(rescue_bell(wisp_p2p.node_rank));
        pthread_join(rescuer, NULL);
    }
    wisp_p2p.on = false;
    wisp_p2p.threads = false;
    wisp_p2p.cma = false;
    wisp_p2p_cma_fini();
    wisp_p2p_lock_fini();
    wisp_p2p_comm_fini();
    munmap(segment, segment_size);
    segment = NULL;
    free(pending);
    pending = NULL;
    free(inbox);
    inbox = NULL;
    ninbox = 0;
    atomic_store_explicit(&wisp_p2p.outstanding, 0, memory_order_relaxed);
    atomic_store_explicit(&wisp_p2p.deferred, 0, memory_order_relaxed);
    npending = 0;
    mine.nfree = mine.nbusy = 0;
}

/* ---- sending ----------------------------------------------------------- */

static uint64_t match_word(int ctx, int tag, int kind)
{
    return (uint64_t)(uint32_t)tag << 32 | (uint64_t)(uint32_t)ctx << 8 | (uint64_t)kind;
}

static int kind_of(uint64_t match)
{
    return (int)(match & 0xff);
}
static int ctx_of(uint64_t match)
{
    return (int)(match >> 8 & 0xffffff);
}
static int tag_of(uint64_t match)
{
    return (int)(int32_t)(match >> 32);
}

static void send_complete(struct wisp_p2p_req *req)
{
    req->done = true;
    req->st_source = MPI_ANY_SOURCE;
    req->st_tag = MPI_ANY_TAG;
    req->st_error = MPI_SUCCESS;
    if (req->tmp && !req->engine_holds) {
        free(req->tmp);
        req->tmp = NULL;
    }
}

/* The engine is done with a send: its private copy goes, and the request
 * too if the user freed it meanwhile. */
static void let_go(struct wisp_p2p_req *req)
{
    req->engine_holds = false;
    req->slot = -1;
    free(req->tmp);
    req->tmp = NULL;
    if (req->user_freed)
        wisp_p2p_req_release(req);
}

/* A send's bytes as one run into `out`: its data, or its layout packed. */
static void copy_out(const struct wisp_p2p_req *req, void *out, uint64_t n)
{
    if (req->data)
        memcpy(out, req->data, n);
    else if (n)
        wisp_dt_layout_pack(req->sbuf, req->count, req->send_layout, 0, n, out);
}

/* Copy the next staging chunks the receiver has room for; true if any. */
static bool stage_more(struct slot *s, struct wisp_p2p_req *req)
{
    uint64_t k = atomic_load_explicit(&s->staged, memory_order_relaxed);
    uint64_t all = chunks_of(s->size),
             room = atomic_load_explicit(&s->drained, memory_order_acquire) + CHUNKS;
    if (k >= all || k >= room)
        return false;
    for (; k < all && k < room; k++) {
        uint64_t at = k * chunk_size(),
                 len = s->size - at < chunk_size() ? s->size - at : chunk_size();
        memcpy(staging(s) + (k % CHUNKS) * chunk_size(), req->data + at, len);
        /* Chunk by chunk: the receiver copies one out while we copy the next in. */
        atomic_store_explicit(&s->staged, k + 1, memory_order_release);
    }
    return true;
}

/* Is it copied once, by the receiver, straight out of the send buffer? */
static bool single_copy(const void *p, uint64_t size)
{
    return size && size >= wisp_p2p.single_copy_min && wisp_shm_heap_holds(p, size);
}

/* Or, from private memory, with cross-memory attach (cma.c)? Like single
 * copy, checked before immediate; messages that fit the staging area are
 * staged late when the receiver is late (eager, as the MPIs' are). */
static bool copied_by_cma(uint64_t size)
{
    return wisp_p2p.cma && size >= wisp_p2p.cma_min;
}

/* Whether every byte `count` elements of `desc` at `buf` may touch is in
 * the shared heap. */
static bool layout_in_heap(const char *buf, MPI_Count count, const wisp_dt_desc_t *desc)
{
    int64_t reach = (int64_t)(count - 1) * wisp_dt_desc_extent(desc);
    const char *lo = buf + wisp_dt_desc_true_lb(desc) + (reach < 0 ? reach : 0);
    uint64_t span = (uint64_t)(wisp_dt_desc_true_extent(desc) + (reach < 0 ? -reach : reach));
    return wisp_shm_heap_holds(lo, span);
}

/* Does the receiver read this non-contiguous send in place, from its
 * layout in the heap, so that it is copied once and never packed? Runs of
 * any length (wisp_dt_layout_copy takes short ones through a piece in the
 * L1 cache). Not a buffered one (the user may reuse the buffer at once),
 * nor one at MPI_BOTTOM (a null origin means staged), nor one in private
 * memory (process_vm_readv pins the sender's pages once per piece: 10x
 * slower than packing a layout of 64-byte runs). */
bool wisp_p2p_send_layout(struct wisp_p2p_req *req)
{
    wisp_dt_desc_t *desc;
    if (req->mode == WISP_P2P_BUFFERED || !req->sbuf || req->count <= 0 ||
        wisp_dt_desc_get(req->type, &desc) != WISP_DT_OK)
        return false;
    uint64_t bytes = (uint64_t)req->count * wisp_dt_desc_size(desc);
    if (!bytes || bytes < wisp_p2p.single_copy_min || wisp_dt_desc_bytes(desc) > LAYOUT_BYTES ||
        !layout_in_heap(req->sbuf, req->count, desc)) {
        wisp_dt_desc_release(desc);
        return false;
    }
    req->send_layout = desc;
    req->bytes = bytes;
    req->data = NULL;
    return true;
}

static bool advance_slot(int i);

/* Free the slots whose receivers are done, which the next progress pass
 * would do: a send that finds none free would otherwise wait in line (and
 * take a private copy) or wait for that pass. */
static bool reclaim_slots(void)
{
    bool freed = false;
    for (int i = mine.nbusy - 1; i >= 0; i--) {
        uint32_t state = atomic_load_explicit(&slot_at(wisp_p2p.node_rank, mine.busy[i])->state,
                                              memory_order_acquire);
        if (state == SLOT_DONE || state == SLOT_COPIED)
            freed |= advance_slot(i);
    }
    return freed;
}

/*
 * Out of slots with a send waiting: the receivers hold every slot with a
 * message they have not matched, and may wait for the send in line behind
 * them (MPI's progress rule says it completes, its receive being posted).
 * Tell them once: each copies this sender's unexpected messages aside
 * (spill_for_starved), as the MPI's receiver would have buffered eager
 * ones, and their slots come free (a synchronous send still completes at
 * its match: SLOT_COPIED).
 */
static void starve(void)
{
    if (mine.starving)
        return;
    mine.starving = true;
    atomic_fetch_add_explicit(starved_count(wisp_p2p.node_rank), 1, memory_order_release);
    for (int i = 0; i < mine.nbusy; i++) {
        int to = slot_at(wisp_p2p.node_rank, mine.busy[i])->to;
        wisp_doorbell_ring(bell(to));
        wisp_doorbell_ring(rescue_bell(to)); /* it may sit in a call wisp does not see */
    }
}

/* Put `req` into the ring to `node`; false when the ring or the slots are full. */
static bool emit(struct wisp_p2p_req *req, int node)
{
    struct wisp_fastbox_ring *r = ring(wisp_p2p.node_rank, node);
    int ctx = req->comm->ctx;
    bool layout = req->send_layout && !req->data; /* read in place (wisp_p2p_send_layout) */
    bool single = layout || single_copy(req->data, req->bytes) || copied_by_cma(req->bytes);
    if (!single && req->bytes <= wisp_p2p.immediate_max && req->mode != WISP_P2P_SYNC) {
        if (!wisp_fastbox_put(r, match_word(ctx, req->tag, KIND_IMMEDIATE), req->data,
                              (uint32_t)req->bytes))
            return false;
        wake(node);
        send_complete(req);
        return true;
    }
    if (!mine.nfree && !reclaim_slots()) {
        starve();
        return false;
    }
    int index = mine.free[mine.nfree - 1];
    struct slot *s = slot_at(wisp_p2p.node_rank, index);
    s->sync = req->mode == WISP_P2P_SYNC;
    s->to = node;
    s->size = req->bytes;
    s->seq = ++emitted;
    s->src = !single ? NULL : layout ? (const char *)req->sbuf : req->data;
    s->layout = layout ? (uint32_t)wisp_dt_desc_export(req->send_layout, s->desc, LAYOUT_BYTES) : 0;
    s->count = req->count;
    atomic_store_explicit(&s->dst, NULL, memory_order_relaxed);
    atomic_store_explicit(&s->next_block, 0, memory_order_relaxed);
    atomic_store_explicit(&s->copied, 0, memory_order_relaxed);
    atomic_store_explicit(&s->staged, 0, memory_order_relaxed);
    atomic_store_explicit(&s->drained, 0, memory_order_relaxed);
    uint32_t was = atomic_load_explicit(&s->state, memory_order_relaxed);
    slot_move(s, SLOT(FREE) | SLOT(DONE) | SLOT(COPIED), SLOT_POSTED, memory_order_relaxed);
    /* One chunk is staged before the notice (the receiver finds it ready);
     * longer messages after it, so that a waiting receiver copies along. */
    bool one_chunk = !single && req->bytes <= chunk_size();
    if (one_chunk)
        stage_more(s, req);
    struct rendezvous rdv = {.slot = (uint32_t)index,
                             .staged = one_chunk ? (uint32_t)chunks_of(req->bytes) : 0,
                             .size = req->bytes,
                             .src = s->src};
    if (!wisp_fastbox_put(r, match_word(ctx, req->tag, KIND_RENDEZVOUS), &rdv, sizeof rdv)) {
        /* The slot stays free (no receiver saw it); its fields are rewritten next time. */
        slot_move(s, SLOT(POSTED), was, memory_order_relaxed);
        return false;
    }
    wake(node);
    if (!single && !one_chunk)
        stage_more(s, req);
    mine.nfree--;
    mine.busy[mine.nbusy++] = index;
    mine.req[index] = req;
    req->slot = index;
    req->seq = s->seq;
    req->sync_matched = false;
    req->posted_pass = atomic_load_explicit(&passes, memory_order_relaxed);
    req->engine_holds = true;
    wisp_p2p_count_add(&wisp_p2p.outstanding, 1);
    if (!single && !s->sync &&
        atomic_load_explicit(&s->staged, memory_order_relaxed) == chunks_of(req->bytes))
        send_complete(req); /* fully staged: an eager send */
    return true;
}

void wisp_p2p_send_matched(struct wisp_p2p_req *req)
{
    req->engine_holds = false;
    wisp_p2p_count_add(&wisp_p2p.outstanding, -1);
    send_complete(req);
    if (req->user_freed)
        wisp_p2p_req_release(req);
}

bool wisp_p2p_send_now(struct wisp_p2p_comm *comm, int dest, int tag, const void *buf,
                       MPI_Count count, MPI_Datatype type)
{
    uint64_t bytes;
    bool contig;
    MPI_Aint offset;
    int node = comm->node_of[dest];
    if (wisp_p2p_type_bytes(type, count, &bytes, &contig, &offset, NULL) != MPI_SUCCESS ||
        !contig || bytes > wisp_p2p.immediate_max || copied_by_cma(bytes) ||
        single_copy((const char *)buf + offset, bytes) || !wisp_list_empty(&pending[node]) ||
        !wisp_fastbox_put(ring(wisp_p2p.node_rank, node),
                          match_word(comm->ctx, tag, KIND_IMMEDIATE), (const char *)buf + offset,
                          (uint32_t)bytes))
        return false;
    wake(node);
    return true;
}

static void send_to_self(struct wisp_p2p_req *req)
{
    struct wisp_p2p_msg *msg = malloc(sizeof *msg + req->bytes);
    if (!msg)
        wisp_fatal("out of memory for a message of %llu bytes to self",
                   (unsigned long long)req->bytes);
    *msg = (struct wisp_p2p_msg){.source = req->comm->rank,
                                 .tag = req->tag,
                                 .size = req->bytes,
                                 .from = wisp_p2p.node_rank,
                                 .slot = -1};
    wisp_list_init(&msg->link);
    copy_out(req, msg->data, req->bytes);
    wisp_stats_shm.self++;
    wisp_stats_shm.copies += 2;
    if (req->mode == WISP_P2P_SYNC) {
        msg->waiter = req; /* done when matched */
        req->engine_holds = true;
        wisp_p2p_count_add(&wisp_p2p.outstanding, 1);
    } else {
        send_complete(req);
    }
    wisp_p2p_incoming(req->comm, msg);
}

void wisp_p2p_send_start(struct wisp_p2p_req *req, int node)
{
    req->slot = -1;
    if (node == wisp_p2p.node_rank) {
        send_to_self(req);
        return;
    }
    if (wisp_list_empty(&pending[node]) && emit(req, node))
        return;
    /* Behind others to the same process, or no room: wait in line. Sends an
     * MPI would buffer (all but synchronous ones up to a staging area)
     * complete now from a private copy, as the MPI's eager protocol would. */
    req->engine_holds = true;
    if (req->mode != WISP_P2P_SYNC && req->bytes <= wisp_p2p.stage && !req->tmp) {
        void *copy = malloc(req->bytes ? req->bytes : 1);
        if (copy) {
            copy_out(req, copy, req->bytes);
            req->tmp = copy;
            req->data = copy;
            send_complete(req);
        }
    }
    req->slot = -1;
    wisp_list_push(&pending[node], &req->link);
    npending++;
    wisp_p2p_count_add(&wisp_p2p.outstanding, 1);
}

bool wisp_p2p_sends_on(const struct wisp_p2p_comm *comm)
{
    for (int node = 0; npending && node < wisp_p2p.node_size; node++)
        for (struct wisp_list *l = pending[node].next; l != &pending[node]; l = l->next)
            if (wisp_list_entry(l, struct wisp_p2p_req, link)->comm == comm)
                return true;
    for (int i = 0; i < mine.nbusy; i++)
        if (mine.req[mine.busy[i]]->comm == comm)
            return true;
    return false;
}

static bool emit_pending(void)
{
    bool moved = false;
    for (int node = 0; node < wisp_p2p.node_size; node++) {
        while (!wisp_list_empty(&pending[node])) {
            struct wisp_p2p_req *req =
                wisp_list_entry(pending[node].next, struct wisp_p2p_req, link);
            if (!emit(req, node))
                break;
            wisp_list_remove(&req->link);
            npending--;
            wisp_p2p_count_add(&wisp_p2p.outstanding, -1);
            moved = true;
            if (req->slot < 0) /* immediate: sent and done */
                let_go(req);
        }
    }
    return moved;
}

/* How one side copies its blocks of a synergistic message: in its own
 * address space (both buffers reachable: its own and the shared heap), or
 * across into / out of the other process's private memory (cma.c). */
typedef void copy_fn(int peer, char *dst, const char *src, uint64_t n);

static void copy_here(int peer, char *dst, const char *src, uint64_t n)
{
    (void)peer;
    wisp_p2p_copy(dst, src, n);
}

static void copy_from_peer(int peer, char *dst, const char *src, uint64_t n)
{
    wisp_p2p_cma_copy(peer, dst, src, n);
}

static void copy_to_peer(int peer, char *dst, const char *src, uint64_t n)
{
    wisp_p2p_cma_write(peer, dst, src, n);
}

/* A block, bytes [at, at + len) of the message: one run of each side, or
 * the sender's layout into the receiver's (or its one run). */
struct blocks {
    const char *src;
    char *dst;
    copy_fn *copy; /* one run each */
    int peer;
    MPI_Count scount, dcount;
    const wisp_dt_desc_t *sdesc, *ddesc; /* sdesc: layouts; ddesc NULL: dst is one run */
};

static void copy_block(const struct blocks *c, uint64_t at, uint64_t len)
{
    if (!c->sdesc)
        c->copy(c->peer, c->dst + at, c->src + at, len);
    else if (c->ddesc)
        wisp_dt_team_copy(c->src, c->scount, c->sdesc, c->dst, c->dcount, c->ddesc, at, len);
    else
        wisp_dt_team_pack(c->src, c->scount, c->sdesc, at, len, c->dst + at);
}

/* Claim and copy blocks of a synergistic message; true if any. */
static bool claim_blocks(struct slot *s, const struct blocks *c)
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

/* Has the sender of a single-copy message waited long enough for a
 * receiver to take it back and stage it (and won the race for it)? */
static bool stages_late(struct slot *s, const struct wisp_p2p_req *req)
{
    if (s->sync || s->size > wisp_p2p.stage || req->done ||
        atomic_load_explicit(&passes, memory_order_relaxed) - req->posted_pass < STAGE_LATE_PASSES)
        return false;
    uint32_t posted = SLOT_POSTED;
    return slot_swap(s, &posted, SLOT(POSTED), SLOT_STAGING);
}

/* Send a message that receiver `to` handed back (its record `index`,
 * generation `gen`) through the MPI, ahead of forwarded send `fwd`, unless
 * the receiver took it back meanwhile. */
static void send_returned(int to, uint32_t index, uint32_t gen, const struct wisp_p2p_req *fwd)
{
    uint64_t size;
    int tag;
    void *bytes = wisp_p2p_handback_claim(to, index, gen, &size, &tag);
    if (!bytes)
        return;
    struct wisp_p2p_req *req = wisp_p2p_req_new(WISP_P2P_SEND);
    req->tmp = bytes;
    req->user_freed = req->engine_holds = true; /* finish_forwarded lets it go */
    wisp_p2p_req_fail_on(req, WISP_P2P_MPI(Isend, size, req->tmp, (MPI_Count)size, MPI_BYTE,
                                           fwd->peer, tag, fwd->handle, &req->inner));
    wisp_list_push(&forwarded, &req->link);
}

/* The receiver asks for a synchronous message through the MPI (its receive
 * is lent there: wisp_p2p_forward). It goes there after every earlier one
 * to the same receiver that was asked for (the MPI matches them in the
 * order they reach it), from a thread that may call the MPI; true if it
 * went, or the receiver took it back meanwhile. Also on a communicator the
 * user has freed: wisp keeps it, and the MPI's, while the send is in a
 * slot (comm.c, in_use), and both MPIs take new calls on its handle then. */
static bool forward(int index)
{
    struct slot *s = slot_at(wisp_p2p.node_rank, index);
    struct wisp_p2p_req *req = mine.req[index];
    if (wisp_p2p.rescuing)
        return false;
    for (int j = 0; j < mine.nbusy; j++) {
        struct slot *earlier = slot_at(wisp_p2p.node_rank, mine.busy[j]);
        uint32_t state = atomic_load_explicit(&earlier->state, memory_order_acquire);
        if (earlier->to == s->to && earlier->seq < s->seq &&
            (state == SLOT_FORWARD || state == SLOT_HANDING))
            return false;
    }
    for (uint32_t k = 0; k < s->nbefore; k++)
        send_returned(s->to, s->before[k].index, s->before[k].gen, req);
    uint32_t asked = SLOT_FORWARD;
    if (s->more) { /* the receiver names the next batch */
        if (slot_swap(s, &asked, SLOT(FORWARD), SLOT_HANDING))
            wake(s->to);
        return true;
    }
    if (!slot_swap(s, &asked, SLOT(FORWARD), SLOT_FORWARDED))
        return true;
    if (!req->data) { /* read in place so far: the MPI needs it packed */
        if (!(req->tmp = malloc(req->bytes)))
            wisp_fatal("out of memory for a forwarded message of %llu bytes",
                       (unsigned long long)req->bytes);
        copy_out(req, req->tmp, req->bytes);
        req->data = req->tmp;
    }
    wisp_p2p_req_fail_on(req,
                         WISP_P2P_MPI(Issend, req->bytes, req->data, (MPI_Count)req->bytes,
                                      MPI_BYTE, req->peer, req->tag, req->handle, &req->inner));
    return true;
}

static bool advance_slot(int i)
{
    int index = mine.busy[i];
    struct slot *s = slot_at(wisp_p2p.node_rank, index);
    struct wisp_p2p_req *req = mine.req[index];
    uint32_t state = atomic_load_explicit(&s->state, memory_order_acquire);
    bool moved = false;
    if (state == SLOT_FORWARD)
        return forward(index);
    if (state == SLOT_FORWARDED)
        return false; /* the receiver takes it from the MPI, then gives the slot back */
    if (state == SLOT_HANDING)
        return false; /* the receiver names the next batch */
    if (state != SLOT_DONE && state != SLOT_COPIED) {
        if (!s->src) {
            moved = stage_more(s, req);
            if (!req->done && !s->sync &&
                atomic_load_explicit(&s->staged, memory_order_relaxed) == chunks_of(s->size))
                send_complete(req);
        } else if (state == SLOT_MATCHED) {
            char *dst = atomic_load_explicit(&s->dst, memory_order_acquire);
            alignas(16) unsigned char rdesc[LAYOUT_BYTES];
            struct blocks c = {.src = s->src, .dst = dst, .peer = s->to};
            if (dst && s->layout) { /* both sides in the heap (copy_rendezvous) */
                c.sdesc = req->send_layout, c.scount = s->count, c.dcount = s->rcount;
                if (s->rlayout)
                    c.ddesc = wisp_dt_desc_import(memcpy(rdesc, s->rdesc, s->rlayout));
            } else if (dst) {
                c.copy = wisp_shm_heap_holds(dst, s->size) ? copy_here : copy_to_peer;
            }
            if (dst && claim_blocks(s, &c))
                moved = true;
        } else if (state == SLOT_POSTED && stages_late(s, req)) {
            copy_out(req, staging(s), s->size);
            slot_move(s, SLOT(STAGING), SLOT_STAGED, memory_order_relaxed);
            /* Last: the receiver that sees it sees the bytes and STAGED. */
            atomic_store_explicit(&s->staged, chunks_of(s->size), memory_order_release);
            wake(s->to);
            send_complete(req);
            moved = true;
        }
        return moved;
    }
    mine.busy[i] = mine.busy[--mine.nbusy];
    mine.free[mine.nfree++] = index;
    mine.starving = false;
    wisp_p2p_count_add(&wisp_p2p.outstanding, -1);
    if (state == SLOT_COPIED && !req->sync_matched) {
        req->slot = -1;
        wisp_list_push(&unmatched, &req->link);
        return true;
    }
    if (req->inner != MPI_REQUEST_NULL && !req->done) { /* forwarded: the MPI completes it */
        req->slot = -1;
        wisp_list_push(&forwarded, &req->link);
        return true;
    }
    if (!req->done)
        send_complete(req);
    let_go(req);
    return true;
}

/* Forwarded sends whose MPI request completed let go of their bytes (the
 * user may have freed the request, and then nobody else tests it). */
static bool finish_forwarded(void)
{
    bool moved = false;
    for (struct wisp_list *l = forwarded.next, *next; l != &forwarded; l = next) {
        next = l->next;
        struct wisp_p2p_req *req = wisp_list_entry(l, struct wisp_p2p_req, link);
        if (wisp_p2p_req_test(req)) {
            wisp_list_remove(&req->link);
            let_go(req);
            moved = true;
        }
    }
    return moved;
}

/* Does no send need this process any more? Sends waiting in line (complete
 * from a private copy, or freed with MPI_Request_free) must go out, staged
 * ones must be staged whole, and single-copy ones be copied or staged late:
 * the receiver may still be on its way to them, and MPI_Finalize lets the
 * user reuse every buffer. */
static bool sends_delivered(void *unused)
{
    (void)unused;
    if (npending || !wisp_list_empty(&forwarded))
        return false;
    for (int i = 0; i < mine.nbusy; i++) {
        struct slot *s = slot_at(wisp_p2p.node_rank, mine.busy[i]);
        uint32_t state = atomic_load_explicit(&s->state, memory_order_acquire);
        uint64_t staged = atomic_load_explicit(&s->staged, memory_order_relaxed);
        bool needs_me = state == SLOT_FORWARD || state == SLOT_FORWARDED || state == SLOT_HANDING ||
                        (s->src ? state != SLOT_DONE && state != SLOT_COPIED && state != SLOT_STAGED
                                : state != SLOT_DONE && staged < chunks_of(s->size));
        if (needs_me)
            return false;
    }
    return true;
}

/* Once the sends are delivered, no receiver reads a sender's bytes any
 * more (they are staged whole, or copied): the private copies that the
 * slots' requests hold go, and the requests the user freed with them. */
static void drop_slot_holds(void)
{
    for (int i = 0; i < mine.nbusy; i++)
        let_go(mine.req[mine.busy[i]]);
}

/* ---- receiving --------------------------------------------------------- */

static void copy_move(struct wisp_p2p_msg *msg, unsigned from, enum wisp_p2p_copy to);
#define COPY(s) (1u << WISP_P2P_COPY_##s)

void wisp_p2p_msg_drop(struct wisp_p2p_msg *msg)
{
    if (wisp_p2p_copy_filling(msg)) { /* freed when whole */
        copy_move(msg, COPY(FILLING), WISP_P2P_COPY_DROPPED);
        return;
    }
    /* A record named to its sender: copied out, or too late now. A
     * synchronous one still waiting for batches: the rest stay here. */
    if (msg->route == WISP_P2P_ROUTE_HANDED || msg->route == WISP_P2P_ROUTE_BATCHED)
        wisp_p2p_forward_recall(msg);
    if (msg->slot >= 0) {
        struct slot *s = slot_at(msg->from, msg->slot);
        /* A sender staging it late (STAGING) writes STAGED: DONE must come after. */
        uint32_t state = atomic_load_explicit(&s->state, memory_order_acquire);
        unsigned rounds = 0;
        unsigned droppable = SLOT(POSTED) | SLOT(MATCHED) | SLOT(STAGED) | SLOT(FORWARD) |
                             SLOT(FORWARDED) | SLOT(HANDING);
        while (state == SLOT_STAGING || !slot_swap(s, &state, droppable, SLOT_DONE)) {
            if (state == SLOT_STAGING)
                wisp_backoff(&rounds); /* the sender may be preempted mid-copy */
            state = atomic_load_explicit(&s->state, memory_order_acquire);
        }
        wake(msg->from);
    }
    free(msg);
}

/* Whether the sender of a layout read in place copies blocks of it too:
 * a large message, whole, into a receive buffer in the heap whose own
 * layout's description fits the slot. The first call publishes the
 * receive's side (its description before dst) and wakes the sender. */
static bool layout_synergy(struct wisp_p2p_req *req, const struct wisp_p2p_msg *msg, struct slot *s)
{
    if (atomic_load_explicit(&s->dst, memory_order_relaxed))
        return true;
    uint64_t n = msg->size;
    if (n < wisp_p2p.synergy_min || n > req->cap || req->unpack ||
        (req->layout ? wisp_dt_desc_bytes(req->layout) > LAYOUT_BYTES ||
                           !layout_in_heap(req->rbuf, req->count, req->layout)
                     : !wisp_shm_heap_holds(req->dst, n)))
        return false;
    s->rcount = req->count;
    s->rlayout =
        req->layout ? (uint32_t)wisp_dt_desc_export(req->layout, s->rdesc, LAYOUT_BYTES) : 0;
    atomic_store_explicit(&s->dst, req->layout ? (char *)req->rbuf : req->dst,
                          memory_order_release);
    wake(msg->from);
    return true;
}

static bool copy_rendezvous(struct wisp_p2p_req *req)
{
    struct wisp_p2p_msg *msg = req->msg;
    struct slot *s = slot_at(msg->from, msg->slot);
    uint64_t n = msg->size < req->cap ? msg->size : req->cap;
    bool moved = false;
    if (msg->src && s->layout) { /* the sender's layout in the heap, read in place */
        alignas(16) unsigned char desc[LAYOUT_BYTES];
        memcpy(desc, s->desc, s->layout);
        const wisp_dt_desc_t *sdesc = wisp_dt_desc_import(desc);
        if (layout_synergy(req, msg, s)) {
            struct blocks c = {.src = msg->src,
                               .sdesc = sdesc,
                               .scount = s->count,
                               .dst = req->layout ? (char *)req->rbuf : req->dst,
                               .ddesc = req->layout,
                               .dcount = req->count};
            moved = claim_blocks(s, &c);
            if (atomic_load_explicit(&s->copied, memory_order_acquire) < msg->size)
                return moved; /* the sender still copies a block */
            wisp_stats_shm.synergistic++;
        } else {
            wisp_p2p_recv_get_layout(req, msg->src, s->count, sdesc, n);
            wisp_stats_shm.single_copy++;
        }
        wisp_stats_shm.copies++;
    } else if (msg->src) {
        /* A private side is reached by cross-memory attach: the source by
         * this receiver, a private receive buffer by the sender. */
        bool cma = !wisp_shm_heap_contains(msg->src);
        bool synergy = msg->size >= wisp_p2p.synergy_min && n == msg->size && req->dst &&
                       !req->unpack && (wisp_p2p.cma || wisp_shm_heap_holds(req->dst, n));
        if (synergy) {
            if (!atomic_load_explicit(&s->dst, memory_order_relaxed)) {
                atomic_store_explicit(&s->dst, req->dst, memory_order_release);
                wake(msg->from);
            }
            struct blocks c = {.src = msg->src,
                               .dst = req->dst,
                               .peer = msg->from,
                               .copy = cma ? copy_from_peer : copy_here};
            moved = claim_blocks(s, &c);
            if (atomic_load_explicit(&s->copied, memory_order_acquire) < msg->size)
                return moved; /* the sender still copies a block */
            wisp_stats_shm.synergistic++;
        } else {
            if (cma)
                wisp_p2p_recv_put_peer(req, 0, msg->from, msg->src, n);
            else
                wisp_p2p_recv_put(req, 0, msg->src, n);
            wisp_stats_shm.single_copy++;
        }
        wisp_stats_shm.copies++;
    } else {
        uint64_t j = msg->drained, all = chunks_of(msg->size);
        if (j >= msg->staged && j < all)
            msg->staged = atomic_load_explicit(&s->staged, memory_order_acquire);
        uint64_t ready = msg->staged;
        if (j < ready) {
            for (; j < ready; j++) {
                uint64_t at = j * chunk_size();
                uint64_t len = msg->size - at < chunk_size() ? msg->size - at : chunk_size();
                if (at < n)
                    wisp_p2p_recv_put(req, at, staging(s) + (j % CHUNKS) * chunk_size(),
                                      n - at < len ? n - at : len);
            }
            msg->drained = j;
            if (all > CHUNKS) { /* the sender waits for room */
                atomic_store_explicit(&s->drained, j, memory_order_release);
                wake(msg->from);
            }
            moved = true;
        }
        if (j < all)
            return moved;
        wisp_stats_shm.staged++;
        wisp_stats_shm.copies += 2;
    }
    if (!req->spill) /* a private copy counts its bytes when delivered */
        wisp_stats_shm.bytes += n;
    slot_move(s, SLOT(POSTED) | SLOT(MATCHED) | SLOT(STAGED),
              req->spill && s->sync ? SLOT_COPIED : SLOT_DONE, memory_order_release);
    wake(msg->from);
    wisp_list_remove(&req->link);
    wisp_p2p_count_add(&wisp_p2p.outstanding, -1);
    req->msg = NULL;
    free(msg);
    if (req->spill)
        wisp_p2p_spilled(req);
    else
        wisp_p2p_recv_finish(req);
    return true;
}

/*
 * The sender of a rendezvous message waits until a receiver copies it. When
 * the receive it belongs to is lent to the MPI for a blocking call (match.c),
 * the sender may be on its way to that same call (a collective both enter):
 * it would never get there. A standard message is then copied into a
 * private buffer, which takes its place among the unexpected messages, and
 * the sender completes, as the MPI's eager protocol lets a standard send do.
 */
bool wisp_p2p_spill(struct wisp_p2p_msg *msg)
{
    struct wisp_p2p_msg *copy = malloc(sizeof *copy + msg->size);
    struct wisp_p2p_req *fill = copy ? wisp_p2p_req_new(WISP_P2P_RECV) : NULL;
    if (!fill) {
        free(copy);
        wisp_log(1, "no memory to copy aside a waiting message of %llu bytes from node rank %d",
                 (unsigned long long)msg->size, msg->from);
        return false;
    }
    *copy = (struct wisp_p2p_msg){.source = msg->source,
                                  .tag = msg->tag,
                                  .size = msg->size,
                                  .from = msg->from,
                                  .ctx = msg->ctx,
                                  .slot = -1,
                                  .copy = WISP_P2P_COPY_FILLING};
    struct slot *s = slot_at(msg->from, msg->slot);
    if (s->sync)
        copy->sync_seq = s->seq;             /* its sender hears of the match: SLOT_COPIED */
    wisp_list_push(&msg->link, &copy->link); /* just before it */
    wisp_list_remove(&msg->link);
    fill->spill = copy;
    fill->dst = (char *)copy->data;
    fill->cap = msg->size;
    fill->msg = msg;
    wisp_p2p_recv_advance(fill);
    return true;
}

/*
 * A synchronous message cannot complete before its match, so copying it
 * aside would not free a sender on its way to a blocking call: for a lent
 * receive, the receiver asks its sender to send it through the MPI
 * instead, where the lent receive may take it. The message stays among the
 * unexpected ones, marked: a receive that takes it later recalls it
 * here if its sender has not sent it yet, else receives it from the MPI.
 */
bool wisp_p2p_msg_sync(const struct wisp_p2p_msg *msg)
{
    return msg->slot >= 0 && slot_at(msg->from, msg->slot)->sync;
}

bool wisp_p2p_returnable(const struct wisp_p2p_msg *msg)
{
    return msg->slot < 0 && !wisp_p2p_copy_filling(msg) && !msg->waiter && !msg->sync_seq;
}

static bool put_matched(int to, uint64_t seq)
{
    if (!wisp_fastbox_put(ring(wisp_p2p.node_rank, to), match_word(0, 0, KIND_MATCHED), &seq,
                          sizeof seq))
        return false;
    wake(to);
    return true;
}

void wisp_p2p_sync_matched(const struct wisp_p2p_msg *copy)
{
    if (put_matched(copy->from, copy->sync_seq))
        return;
    if (nnotices == notices_cap) {
        size_t cap = notices_cap ? 2 * notices_cap : 16;
        struct matched_notice *more = realloc(notices, cap * sizeof *more);
        if (!more)
            wisp_fatal("out of memory for the match of a synchronous message");
        notices = more;
        notices_cap = cap;
    }
    notices[nnotices++] = (struct matched_notice){copy->from, copy->sync_seq};
}

/* The notices that found a full ring, again. */
static bool send_notices(void)
{
    size_t kept = 0;
    for (size_t i = 0; i < nnotices; i++)
        if (!put_matched(notices[i].to, notices[i].seq))
            notices[kept++] = notices[i];
    bool moved = kept < nnotices;
    nnotices = kept;
    return moved;
}

/* The receiver matched the copy of synchronous send `seq` of this process:
 * done, or (its slot not yet seen COPIED here) done once it is. */
static void matched(uint64_t seq)
{
    for (struct wisp_list *l = unmatched.next; l != &unmatched; l = l->next) {
        struct wisp_p2p_req *req = wisp_list_entry(l, struct wisp_p2p_req, link);
        if (req->seq == seq) {
            wisp_list_remove(&req->link);
            send_complete(req);
            let_go(req);
            return;
        }
    }
    for (int i = 0; i < mine.nbusy; i++) {
        struct wisp_p2p_req *req = mine.req[mine.busy[i]];
        if (req->seq == seq) {
            req->sync_matched = true;
            return;
        }
    }
    wisp_fatal("a match for synchronous send %llu, which this process does not hold",
               (unsigned long long)seq);
}

/* ---- a copy's life (p2p.h, enum wisp_p2p_copy) ----------------------- */

/* Every change of a copy's state: from one of the states in `from` (a mask
 * of COPY(...)), checked in the debug and sanitizer builds. */
static void copy_move(struct wisp_p2p_msg *msg, unsigned from, enum wisp_p2p_copy to)
{
    static const char *const names[] = {"NONE", "FILLING", "TAKEN", "DROPPED", "WHOLE"};
    wisp_state_check("a message's copy aside", names, msg->copy, from, to);
    msg->copy = to;
}

void wisp_p2p_copy_take(struct wisp_p2p_msg *copy, struct wisp_p2p_req *req)
{
    copy_move(copy, COPY(FILLING), WISP_P2P_COPY_TAKEN);
    copy->taker = req;
}

enum wisp_p2p_copy wisp_p2p_copy_whole(struct wisp_p2p_msg *copy)
{
    enum wisp_p2p_copy was = copy->copy;
    copy_move(copy, COPY(FILLING) | COPY(TAKEN) | COPY(DROPPED), WISP_P2P_COPY_WHOLE);
    return was;
}

/* ---- a message's route to the MPI (p2p.h, enum wisp_p2p_route) --------- */

#define ROUTE(s) (1u << WISP_P2P_ROUTE_##s)

/* Every change of a message's route: from one of the states in `from` (a
 * mask of ROUTE(...)), checked in the debug and sanitizer builds. */
static void route_move(struct wisp_p2p_msg *msg, unsigned from, enum wisp_p2p_route to)
{
    static const char *const names[] = {"HERE", "QUEUED", "HANDED", "SENT", "ASKED", "BATCHED"};
    wisp_state_check("a message's route to the MPI", names, msg->route, from, to);
    msg->route = to;
}

void wisp_p2p_route_queue(struct wisp_p2p_msg *earlier, struct wisp_p2p_msg *msg)
{
    route_move(earlier, ROUTE(HERE), WISP_P2P_ROUTE_QUEUED);
    earlier->behind = msg;
}

/* `msg` no longer waits for earlier messages to be named (BATCHED ->
 * `to`): those still QUEUED before it are plain unexpected ones again. */
static void unbatch(struct wisp_p2p_msg *msg, enum wisp_p2p_route to)
{
    route_move(msg, ROUTE(BATCHED), to);
    wisp_list_remove(&msg->hlink);
    wisp_p2p_count_add(&wisp_p2p.outstanding, -1);
    struct wisp_p2p_comm *comm = wisp_p2p_comm_of_ctx(msg->ctx);
    if (!comm)
        return;
    for (struct wisp_list *l = comm->unexpected.next; l != &comm->unexpected; l = l->next) {
        struct wisp_p2p_msg *m = wisp_list_entry(l, struct wisp_p2p_msg, link);
        if (m->route == WISP_P2P_ROUTE_QUEUED && m->behind == msg) {
            route_move(m, ROUTE(QUEUED), WISP_P2P_ROUTE_HERE);
            m->behind = NULL;
        }
    }
}

/* Name in BATCHED `msg`'s slot the next batch of the earlier messages
 * queued before it (QUEUED -> HANDED), as many as its sender's records free
 * here allow, and ask the sender (FORWARD); `more` when some are left,
 * else `msg` is ASKED. Only the first message of a sender in `batched`
 * takes records: its sender sends in order, so a later one that held
 * records would keep them from the first, which it waits for. The number
 * named. */
static uint32_t name_batch(struct wisp_p2p_msg *msg)
{
    struct slot *s = slot_at(msg->from, msg->slot);
    struct wisp_p2p_comm *comm = wisp_p2p_comm_of_ctx(msg->ctx);
    bool first = true, more = false;
    for (struct wisp_list *l = batched.next; l != &msg->hlink; l = l->next)
        first &= wisp_list_entry(l, struct wisp_p2p_msg, hlink)->from != msg->from;
    uint32_t n = 0;
    for (struct wisp_list *l = comm->unexpected.next; l != &comm->unexpected; l = l->next) {
        struct wisp_p2p_msg *m = wisp_list_entry(l, struct wisp_p2p_msg, link);
        if (m->route != WISP_P2P_ROUTE_QUEUED || m->behind != msg)
            continue;
        if (!first || n == WISP_P2P_RETURN_MAX || !wisp_p2p_handback_put(m)) {
            more = true;
            break;
        }
        route_move(m, ROUTE(QUEUED), WISP_P2P_ROUTE_HANDED);
        m->behind = NULL;
        s->before[n].index = m->ret_index;
        s->before[n].gen = m->ret_gen;
        n++;
    }
    s->nbefore = n;
    s->more = more;
    slot_move(s, SLOT(POSTED) | SLOT(HANDING), SLOT_FORWARD, memory_order_release);
    wake(msg->from);
    if (!more)
        unbatch(msg, WISP_P2P_ROUTE_ASKED);
    return n;
}

void wisp_p2p_forward(struct wisp_p2p_msg *msg)
{
    route_move(msg, ROUTE(HERE), WISP_P2P_ROUTE_BATCHED);
    wisp_list_push(&batched, &msg->hlink);
    wisp_p2p_count_add(&wisp_p2p.outstanding, 1);
    name_batch(msg);
}

void wisp_p2p_back_sent(struct wisp_p2p_msg *msg)
{
    route_move(msg, ROUTE(HANDED), WISP_P2P_ROUTE_SENT);
}

/* Senders that sent a batch (HANDING): their records sent are free again,
 * and the next batch is named. One that could name nothing stays HANDING
 * and is tried again a millisecond later (its pipe busy). */
static bool name_next_batches(void)
{
    static uint64_t retry_at;
    if (retry_at && wisp_core_clock_ns() < retry_at)
        return false;
    retry_at = 0;
    bool moved = false;
    for (struct wisp_list *l = batched.next, *next; l != &batched; l = next) {
        next = l->next;
        struct wisp_p2p_msg *msg = wisp_list_entry(l, struct wisp_p2p_msg, hlink);
        struct slot *s = slot_at(msg->from, msg->slot);
        if (atomic_load_explicit(&s->state, memory_order_acquire) != SLOT_HANDING)
            continue;
        wisp_p2p_handback_reclaim(msg->from);
        if (name_batch(msg) || msg->route != WISP_P2P_ROUTE_BATCHED)
            moved = true;
        else
            retry_at = wisp_core_clock_ns() + 1000000u;
    }
    return moved;
}

bool wisp_p2p_forward_recall(struct wisp_p2p_msg *msg)
{
    enum wisp_p2p_route route = msg->route;
    msg->behind = NULL;
    switch (route) {
    case WISP_P2P_ROUTE_HERE:
        route_move(msg, 0, WISP_P2P_ROUTE_HERE); /* never asked for */
        return true;
    case WISP_P2P_ROUTE_QUEUED: /* never named to its sender */
        route_move(msg, ROUTE(QUEUED), WISP_P2P_ROUTE_HERE);
        return true;
    case WISP_P2P_ROUTE_HANDED:
        route_move(msg, ROUTE(HANDED), WISP_P2P_ROUTE_HERE);
        return wisp_p2p_handback_recall(msg);
    case WISP_P2P_ROUTE_SENT:
        route_move(msg, ROUTE(SENT), WISP_P2P_ROUTE_HERE);
        return false;
    case WISP_P2P_ROUTE_ASKED:
    case WISP_P2P_ROUTE_BATCHED:
        break;
    }
    struct slot *s = slot_at(msg->from, msg->slot);
    uint32_t state = atomic_load_explicit(&s->state, memory_order_acquire);
    bool recalled = false;
    while ((state == SLOT_FORWARD || state == SLOT_HANDING) &&
           !(recalled = slot_swap(s, &state, SLOT(FORWARD) | SLOT(HANDING), SLOT_POSTED)))
        ;
    if (route == WISP_P2P_ROUTE_BATCHED)
        unbatch(msg, WISP_P2P_ROUTE_HERE);
    else
        route_move(msg, ROUTE(ASKED), WISP_P2P_ROUTE_HERE);
    return recalled;
}

void wisp_p2p_recv_advance(struct wisp_p2p_req *req)
{
    struct wisp_p2p_msg *msg = req->msg;
    uint32_t posted = SLOT_POSTED;
    if (msg->src && !slot_swap(slot_at(msg->from, msg->slot), &posted, SLOT(POSTED), SLOT_MATCHED))
        msg->src = NULL; /* its sender took it back: it is (being) staged */
    wisp_list_push(&receiving, &req->link);
    wisp_p2p_count_add(&wisp_p2p.outstanding, 1);
    copy_rendezvous(req);
}

/* A message for `comm` (NULL: not served here yet, so kept for later). */
static void arrived(struct wisp_p2p_comm *comm, struct wisp_p2p_msg *msg)
{
    if (comm)
        wisp_p2p_incoming(comm, msg);
    else
        wisp_p2p_comm_keep_early(msg);
}

/* An immediate message straight from the cells into a receive's buffer, or
 * piece by piece into its layout. */
static void read_cells(const struct wisp_fastbox_ring *r, const struct wisp_fastbox_cell *cell,
                       struct wisp_p2p_req *req, uint64_t n)
{
    if (!req->layout) {
        wisp_fastbox_read(r, cell, req->dst, 0, (uint32_t)n);
        return;
    }
    char piece[512]; /* a ULT's stack is small */
    for (uint64_t at = 0; at < n; at += sizeof piece) {
        uint32_t len = n - at < sizeof piece ? (uint32_t)(n - at) : (uint32_t)sizeof piece;
        wisp_fastbox_read(r, cell, piece, (uint32_t)at, len);
        wisp_p2p_recv_put(req, at, piece, len);
    }
}

static struct wisp_p2p_msg *msg_new(size_t payload)
{
    struct wisp_p2p_msg *msg = malloc(sizeof *msg + payload);
    if (!msg)
        wisp_fatal("out of memory for an unexpected message");
    return msg;
}

/* Take every message waiting in ring `r` from `from`; true if any. */
static bool drain(struct wisp_fastbox_ring *r, int from)
{
    const struct wisp_fastbox_cell *cell = wisp_fastbox_peek(r);
    if (!cell)
        return false;
    do {
        int kind = kind_of(cell->match), tag = tag_of(cell->match), ctx = ctx_of(cell->match);
        struct wisp_p2p_comm *comm = wisp_p2p_comm_of_ctx(ctx);
        int source = comm ? comm->rank_of[from] : -1;
        if (kind == KIND_MATCHED) {
            uint64_t seq;
            wisp_fastbox_read(r, cell, &seq, 0, sizeof seq);
            matched(seq);
        } else if (kind == KIND_IMMEDIATE) {
            struct wisp_p2p_req *req = comm ? wisp_p2p_match_posted(comm, source, tag) : NULL;
            if (req) { /* straight from the cells into the receive buffer */
                uint64_t n = cell->size < req->cap ? cell->size : req->cap;
                read_cells(r, cell, req, n);
                req->st_source = source;
                req->st_tag = tag;
                req->st_bytes = n;
                req->st_error = cell->size > req->cap ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
                wisp_stats_shm.bytes += n;
                wisp_p2p_recv_finish(req);
            } else {
                struct wisp_p2p_msg *msg = msg_new(cell->size);
                *msg = (struct wisp_p2p_msg){.source = source,
                                             .tag = tag,
                                             .size = cell->size,
                                             .from = from,
                                             .ctx = ctx,
                                             .slot = -1};
                wisp_fastbox_read(r, cell, msg->data, 0, cell->size);
                arrived(comm, msg);
            }
            wisp_stats_shm.immediate++;
            wisp_stats_shm.copies += 2;
        } else {
            struct rendezvous rdv;
            wisp_fastbox_read(r, cell, &rdv, 0, sizeof rdv);
            struct wisp_p2p_msg *msg = msg_new(0);
            *msg = (struct wisp_p2p_msg){.source = source,
                                         .tag = tag,
                                         .size = rdv.size,
                                         .from = from,
                                         .ctx = ctx,
                                         .slot = (int)rdv.slot,
                                         .src = rdv.src,
                                         .staged = rdv.staged};
            arrived(comm, msg);
        }
        wisp_fastbox_release(r);
    } while ((cell = wisp_fastbox_peek(r)));
    return true;
}

/* ---- progress and waiting ---------------------------------------------- */

/* Has a sender run out of slots since this process last looked? Read
 * before the rings are drained: its notices are in by then. */
static bool starved_news(void)
{
    bool any = false;
    for (int i = 0; i < ninbox; i++) {
        uint32_t count = atomic_load_explicit(starved_count(inbox[i].from), memory_order_acquire);
        inbox[i].starved_news =
            count != atomic_load_explicit(&inbox[i].starved_seen, memory_order_relaxed);
        atomic_store_explicit(&inbox[i].starved_seen, count, memory_order_relaxed);
        any |= inbox[i].starved_news;
    }
    return any;
}

/* The same look without acting on it, for the rescuer (unlocked). */
static bool starved_unseen(void)
{
    for (int i = 0; i < ninbox; i++)
        if (atomic_load_explicit(starved_count(inbox[i].from), memory_order_relaxed) !=
            atomic_load_explicit(&inbox[i].starved_seen, memory_order_relaxed))
            return true;
    return false;
}

/* Copy aside what starved senders wait for (starve). */
static void spill_for_starved(void)
{
    for (int i = 0; i < ninbox; i++)
        if (inbox[i].starved_news) {
            inbox[i].starved_news = false;
            wisp_p2p_spill_held(inbox[i].from);
        }
}

/* Everything that needs no call into the MPI. */
static bool progress_local(void)
{
    bool moved = false, starved = starved_news();
    for (int i = 0; i < ninbox; i++)
        moved |= drain(inbox[i].ring, inbox[i].from);
    if (starved) {
        spill_for_starved();
        moved = true;
    }
    if (npending)
        moved |= emit_pending();
    for (int i = mine.nbusy - 1; i >= 0; i--)
        moved |= advance_slot(i);
    for (struct wisp_list *l = receiving.next, *next; l != &receiving; l = next) {
        next = l->next;
        moved |= copy_rendezvous(wisp_list_entry(l, struct wisp_p2p_req, link));
    }
    if (!wisp_list_empty(&batched))
        moved |= name_next_batches();
    if (wisp_p2p_handback_npiped)
        moved |= wisp_p2p_handback_pump();
    if (nnotices)
        moved |= send_notices();
    return moved;
}

/* This process waits and nothing moves: what it waits for may be a peer's
 * work stuck behind a call wisp does not see there (a collective, say).
 * Ring the doorbells of the peers' rescuers that sleep, at most once per
 * CALL_EVERY_NS; a rescuer with nothing in flight goes back to sleep. */
static void call_rescuers(void)
{
    static uint64_t last;
    uint64_t now = wisp_core_clock_ns();
    if (now - last < CALL_EVERY_NS)
        return;
    last = now;
    for (int p = 0; p < wisp_p2p.node_size; p++)
        if (p != wisp_p2p.node_rank)
            wisp_doorbell_ring(rescue_bell(p));
}

bool wisp_p2p_progress(void)
{
    static unsigned idle_passes;
    if (!wisp_p2p.on) /* WISP_SHM=off: only MPI_Isendrecv's requests of wisp */
        return false;
    /* The lock is held: a plain increment (no locked instruction) will do. */
    atomic_store_explicit(&passes, atomic_load_explicit(&passes, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    bool moved = progress_local();
    if (wisp_p2p_count(&wisp_p2p.deferred))
        wisp_p2p_finish_deferred();
    moved |= wisp_p2p_remote_advance();
    if (!wisp_list_empty(&forwarded))
        moved |= finish_forwarded();
    if (moved)
        idle_passes = 0;
    else if (++idle_passes % CALL_AFTER_PASSES == 0)
        call_rescuers();
    return moved;
}

/*
 * The rescuer: a thread that, when work is in flight and no application
 * thread has moved the engine since its last look (they are computing, or
 * blocked inside the MPI, in a collective say), moves it: so a peer waiting
 * for this process's staged chunks, queued sends or copy of its message is
 * never stuck behind a call wisp does not see. With nothing in flight it
 * sleeps on its doorbell (no timer), which a peer that waits in vain rings
 * (call_rescuers); with work in flight it looks on a timer until the work
 * is done. It never calls the MPI (whose thread level may be single), so
 * receives that need the MPI to unpack are finished by the application's
 * next call.
 */
static bool rescuer_called(void *unused)
{
    (void)unused;
    return atomic_load(&rescuer_stop) || wisp_p2p_count(&wisp_p2p.outstanding) || starved_unseen();
}

static void *rescue(void *unused)
{
    (void)unused;
    unsigned long seen = 0;
    bool quiet = false;
    while (!atomic_load(&rescuer_stop)) {
        if (!wisp_p2p_count(&wisp_p2p.outstanding) && !starved_unseen()) {
            wisp_doorbell_wait(rescue_bell(wisp_p2p.node_rank), rescuer_called, NULL);
            seen = atomic_load_explicit(&passes, memory_order_relaxed);
            quiet = true; /* called: look again soon */
            continue;
        }
        /* Every wakeup takes a core from a spinning process for a few
         * microseconds: look often only when the last look found the
         * application quiet. */
        nanosleep(&(struct timespec){0, quiet ? RESCUE_NS : RESCUE_IDLE_NS}, NULL);
        unsigned long now = atomic_load_explicit(&passes, memory_order_relaxed);
        quiet = now == seen;
        if (!quiet) {
            seen = now;
            continue;
        }
        /* Looking costs the application a barrier (lock.h): only for work. */
        if ((wisp_p2p_count(&wisp_p2p.outstanding) || starved_unseen()) &&
            wisp_p2p_rescuer_enter()) {
            wisp_p2p.rescuing = true;
            progress_local();
            wisp_p2p.rescuing = false;
            wisp_p2p_rescuer_leave();
        }
    }
    return NULL;
}

bool wisp_p2p_progress_async(void)
{
    /* Unlocked looks: work that appears meanwhile waits for the next call. */
    if (!wisp_p2p.on || (!wisp_p2p_count(&wisp_p2p.outstanding) &&
                         !wisp_p2p_count(&wisp_p2p.deferred) && !wisp_p2p_remote_waiting()))
        return false;
    if (!wisp_p2p_rescuer_enter())
        return false; /* an application thread is inside: it moves the engine */
    wisp_p2p_progress();
    wisp_p2p_rescuer_leave();
    return true;
}

static bool has_message(void *unused)
{
    (void)unused;
    for (int i = 0; i < ninbox; i++)
        if (wisp_fastbox_waiting(inbox[i].ring))
            return true;
    return false;
}

void wisp_p2p_progress_thread(bool rung)
{
    wisp_p2p.ring_always = rung;
#if defined(OPEN_MPI)
    wisp_p2p.waitall_polls = true;
#endif
}

bool wisp_p2p_nap(long ns)
{
    if (!wisp_p2p.on)
        return false;
    wisp_doorbell_wait_for(bell(wisp_p2p.node_rank), has_message, NULL, ns);
    return true;
}

void wisp_p2p_nap_end(void)
{
    if (wisp_p2p.on)
        wisp_doorbell_ring(bell(wisp_p2p.node_rank));
}

void wisp_p2p_poke(void)
{
    int flag;
    if (poke_comm == MPI_COMM_NULL) /* WISP_SHM=off: no engine to keep moving */
        return;
    PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, poke_comm, &flag, MPI_STATUS_IGNORE);
}

void wisp_p2p_poke_idle(void)
{
    /* Threads may count over each other (a relaxed load and store, no
     * locked instruction): it only spaces the pokes. */
    static _Atomic unsigned polls;
    unsigned n = atomic_load_explicit(&polls, memory_order_relaxed) + 1;
    atomic_store_explicit(&polls, n, memory_order_relaxed);
    if (n % POKE_EVERY == 0)
        wisp_p2p_poke();
}

/*
 * Waiting backs off. On a node with more processes than cores (sleepy),
 * the process this one waits for may well be waiting for its core: after a
 * few idle polls it yields the core at each poll, and every 64th naps on
 * its doorbell, which a local peer rings when it gives it something, each
 * nap longer (events of the MPI ring no bell: a short wait of the MPI's
 * loses little, a long one costs no core). Measured with pairs of 4
 * processes on 2 cores, a spin of 256 polls before yielding tripled the
 * small-message latency against a spin of 16 (docs/benchmarks.md).
 * Elsewhere it spins, as the MPI's own waits do, yielding now and then
 * after a long while, for a core shared with other jobs.
 */
void wisp_p2p_wait_until(bool (*done)(void *), void *arg)
{
    unsigned idle = 0, naps = 0;
    while (!done(arg)) {
        if (wisp_p2p_progress()) {
            idle = naps = 0;
            continue;
        }
        idle++;
        wisp_cpu_relax(); /* fewer loads of the line a peer is about to write */
        bool rest = wisp_p2p.sleepy && idle > SPIN_SLEEPY;
        bool nap = rest && idle % 64 == 0;
        if (idle % POKE_EVERY == 0 || nap)
            wisp_p2p_poke();
        bool yield = (rest && !nap) || (idle > SPIN_AWAKE && idle % 64 == 0);
        /* The rescuer looks only when no pass was made for a while, so the
         * lock is let go between polls only for other application threads
         * and around a yield or a nap. */
        if (!nap && !yield && !wisp_p2p.threads)
            continue;
        wisp_p2p_unlock();
        if (nap) {
            long ns = (long)NAP_MIN_NS << (naps < 5 ? naps : 5);
            naps++;
            wisp_doorbell_wait_for(bell(wisp_p2p.node_rank), has_message, NULL,
                                   ns < NAP_NS ? ns : NAP_NS);
        } else if (yield) {
            sched_yield();
        }
        wisp_p2p_lock();
    }
}
