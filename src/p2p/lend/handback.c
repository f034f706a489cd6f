/*
 * Messages handed back to their sender (message.c, wisp_p2p_forward): an
 * earlier message of a synchronous one's sender that this process holds
 * must reach the MPI before it, so its sender sends it there. Each process
 * has records for them in the node's segment, apart from its rendezvous
 * slots (which its own sends may all hold), a share of its own per sender:
 * a sender waits only for records that it frees itself (by claiming them),
 * never for another sender's. A record names the receiver's copy of the
 * bytes: read from the shared heap or with cross-memory attach where those
 * reach it, else from a file in /dev/shm that the receiver writes for the
 * occasion (the sanitizer build has no heap, and ptrace rules may forbid
 * cross-memory attach). Where /dev/shm has no room for that file, the
 * receiver streams the bytes to the sender through a small pipe of the
 * pair's in the segment, chunk by chunk while the sender copies them out
 * (one such record per pair at a time): slower, never stuck.
 *
 * A record's life: FREE -> HANDED (| generation << 4, so that a record
 * recalled and reused is never mistaken for it) -> CLAIMED by the sender
 * -> SENT, or HANDED -> RECALLED when a receive here takes the message
 * first; then FREE again, by its owner: at that receive, or as soon as its
 * owner sees it SENT (wisp_p2p_handback_reclaim), so that a sender with
 * more earlier messages than records gets them back in batches.
 */
#include "p2p/lend/handback.h"
#include "p2p/lend/lend.h"

#include <fcntl.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/config.h"
#include "core/log.h"
#include "p2p/cma.h"
#include "p2p/lock.h"
#include "p2p/state.h"
#include "shm/heap.h"
#include "shm/segment.h"

enum { HANDED = 1, CLAIMED, SENT, RECALLED };
enum { PIPE_BYTES = 4096 };

struct record {
    alignas(64) _Atomic uint32_t state;
    int tag;
    uint64_t size;
    const char *copy; /* the receiver's bytes, or NULL: in `file`, or `piped` */
    bool piped;       /* streamed through the pair's pipe */
    char file[112];   /* /dev/shm name: /wisp-<WISP_JOB, up to 64>+back-<16 hex>-<index> */
};

/* Per (receiver, sender) pair: bytes of one record streamed, `filled` by
 * the receiver and `drained` by the sender, both counted from its start. */
struct pipe {
    alignas(64) _Atomic uint64_t filled;
    alignas(64) _Atomic uint64_t drained;
    alignas(64) char bytes[PIPE_BYTES];
};

static struct record *table; /* per receiver, per sender: `share` records */
static struct pipe *pipes;   /* per receiver, per sender */
static int me, nodes, share;
/* This process's records, per sender: the free ones' indices, and the
 * message each one in use hands back. */
static int *free_list, *nfree;
static struct wisp_p2p_msg **holder;
/* Per sender: the message streamed through the pipe (its record's index
 * in piped_index), or NULL; and how many are. */
static struct wisp_p2p_msg **piped;
static uint32_t *piped_index;
int wisp_p2p_handback_npiped;
#define npiped wisp_p2p_handback_npiped
static uint32_t generation;

/* Records per (receiver, sender) pair: WISP_P2P_RETURN_MAX for a node of
 * two, fewer on larger nodes (the table grows with the square of the
 * node's size), never fewer than 4. */
static int share_of(int node_size)
{
    int n = 256 / (node_size > 1 ? node_size : 1);
    return n < 4 ? 4 : n > WISP_P2P_RETURN_MAX ? WISP_P2P_RETURN_MAX : n;
}

static size_t records_size(int node_size)
{
    return (size_t)node_size * (size_t)node_size * (size_t)share_of(node_size) *
           sizeof(struct record);
}

size_t wisp_p2p_handback_size(int node_size)
{
    return records_size(node_size) + (size_t)node_size * (size_t)node_size * sizeof(struct pipe);
}

void wisp_p2p_handback_init(void *region, int node_rank, int node_size)
{
    table = region;
    pipes = (struct pipe *)((char *)region + records_size(node_size));
    me = node_rank;
    nodes = node_size;
    share = share_of(node_size);
    size_t n = (size_t)node_size * (size_t)share;
    free_list = malloc(n * sizeof *free_list);
    nfree = malloc((size_t)node_size * sizeof *nfree);
    holder = calloc(n, sizeof *holder);
    piped = calloc((size_t)node_size, sizeof *piped);
    piped_index = calloc((size_t)node_size, sizeof *piped_index);
    npiped = 0;
    if (!free_list || !nfree || !holder || !piped || !piped_index)
        wisp_fatal("out of memory for the records of messages handed back");
    for (int p = 0; p < node_size; p++) {
        nfree[p] = 0;
        for (int i = share - 1; i >= 0; i--)
            free_list[p * share + nfree[p]++] = i;
    }
}

static struct record *record_at(int owner, int sender, uint32_t index)
{
    return &table[((size_t)owner * (size_t)nodes + (size_t)sender) * (size_t)share + index];
}

static struct pipe *pipe_of(int receiver, int sender)
{
    return &pipes[(size_t)receiver * (size_t)nodes + (size_t)sender];
}

static void release(int sender, uint32_t index)
{
    struct record *r = record_at(me, sender, index);
    if (r->piped) {
        piped[sender] = NULL;
        npiped--;
        wisp_p2p_count_add(&wisp_p2p.outstanding, -1);
    } else if (!r->copy) {
        shm_unlink(r->file);
    }
    holder[sender * share + (int)index] = NULL;
    free_list[sender * share + nfree[sender]++] = (int)index;
}

static uint32_t handed(uint32_t gen)
{
    return HANDED | gen << 4;
}

int wisp_p2p_handback_free(int sender)
{
    return nfree[sender];
}

int wisp_p2p_handback_reclaim(int sender, struct wisp_p2p_msg *sent[WISP_P2P_RETURN_MAX])
{
    int n = 0;
    for (uint32_t i = 0; i < (uint32_t)share; i++) {
        struct wisp_p2p_msg *msg = holder[sender * share + (int)i];
        if (msg &&
            atomic_load_explicit(&record_at(me, sender, i)->state, memory_order_acquire) == SENT) {
            sent[n++] = msg;
            release(sender, i);
        }
    }
    return n;
}

/* A file's length: a mapping of 0 bytes fails. */
static size_t mapped(uint64_t size)
{
    return size ? size : 1;
}

/* The bytes in a file of their own: nothing else of ours reaches them
 * (`index`: the record's, unique among this process's). */
static bool write_file(struct record *r, uint32_t index, const void *bytes, uint64_t size)
{
    int fd = wisp_shm_create(r->file, sizeof r->file, "back", (int)index);
    static bool told_create, told_room; /* it is tried again: say it once */
    if (fd < 0) {
        if (!told_create)
            wisp_log(1, "cannot create %s to hand a message back: %m", r->file);
        told_create = true;
        return false;
    }
    void *map = MAP_FAILED;
    if (!posix_fallocate(fd, 0, (off_t)mapped(size)))
        map = mmap(NULL, mapped(size), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (map == MAP_FAILED) {
        if (!told_room)
            wisp_log(1, "no room in /dev/shm to hand a message of %llu bytes back",
                     (unsigned long long)size);
        told_room = true;
        shm_unlink(r->file);
        return false;
    }
    memcpy(map, bytes, size);
    munmap(map, mapped(size));
    return true;
}

static void read_file(const struct record *r, void *dst)
{
    int fd = shm_open(r->file, O_RDONLY, 0);
    void *map = fd < 0 ? MAP_FAILED : mmap(NULL, mapped(r->size), PROT_READ, MAP_SHARED, fd, 0);
    if (fd >= 0)
        close(fd);
    if (map == MAP_FAILED)
        wisp_fatal("cannot read %s, a message handed back by its receiver: %m", r->file);
    memcpy(dst, map, r->size);
    munmap(map, mapped(r->size));
}

/* Stream what the pipe of `sender` has room for of the message piped to
 * it, once the sender claimed it (it copies out meanwhile). */
static bool pump(int sender)
{
    struct wisp_p2p_msg *msg = piped[sender];
    if (!msg || atomic_load_explicit(&record_at(me, sender, piped_index[sender])->state,
                                     memory_order_acquire) != CLAIMED)
        return false;
    struct pipe *p = pipe_of(me, sender);
    uint64_t filled = atomic_load_explicit(&p->filled, memory_order_relaxed);
    uint64_t room = PIPE_BYTES - (filled - atomic_load_explicit(&p->drained, memory_order_acquire));
    uint64_t n = msg->size - filled < room ? msg->size - filled : room;
    if (!n)
        return false;
    for (uint64_t done = 0; done < n;) { /* at most two pieces: the pipe wraps */
        uint64_t at = (filled + done) % PIPE_BYTES;
        uint64_t len = n - done < PIPE_BYTES - at ? n - done : PIPE_BYTES - at;
        memcpy(p->bytes + at, msg->data + filled + done, len);
        done += len;
    }
    atomic_store_explicit(&p->filled, filled + n, memory_order_release);
    return true;
}

bool wisp_p2p_handback_pump(void)
{
    bool moved = false;
    for (int p = 0; npiped && p < nodes; p++)
        moved |= pump(p);
    return moved;
}

/* The sender: copy the record's bytes out of the pipe as they come. */
static void read_pipe(int owner, const struct record *r, char *dst)
{
    struct pipe *p = pipe_of(owner, me);
    unsigned rounds = 0;
    for (uint64_t got = 0; got < r->size;) {
        uint64_t filled = atomic_load_explicit(&p->filled, memory_order_acquire);
        if (filled == got) {
            /* The receiver (its rescuer, maybe) streams on; it may wait in
             * the same way for a pipe of ours, which this thread feeds. */
            if (!wisp_p2p_handback_pump())
                wisp_backoff(&rounds);
            continue;
        }
        while (got < filled) {
            uint64_t at = got % PIPE_BYTES;
            uint64_t len = filled - got < PIPE_BYTES - at ? filled - got : PIPE_BYTES - at;
            memcpy(dst + got, p->bytes + at, len);
            got += len;
        }
        atomic_store_explicit(&p->drained, got, memory_order_release);
        rounds = 0;
    }
}

bool wisp_p2p_handback_put(struct wisp_p2p_msg *msg)
{
    int sender = msg->from;
    if (!nfree[sender])
        return false;
    uint32_t i = (uint32_t)free_list[sender * share + nfree[sender] - 1];
    struct record *r = record_at(me, sender, i);
    const char *bytes = (const char *)msg->data;
    r->tag = msg->tag;
    r->size = msg->size;
    r->copy = wisp_p2p.cma || wisp_shm_heap_holds(bytes, msg->size) ? bytes : NULL;
    r->piped = false;
    if (!r->copy && !write_file(r, (uint32_t)(sender * share) + i, bytes, msg->size)) {
        if (piped[sender]) /* the pipe is busy: after that one */
            return false;
        r->piped = true;
        piped[sender] = msg;
        piped_index[sender] = i;
        npiped++;
        wisp_p2p_count_add(&wisp_p2p.outstanding, 1); /* the rescuer streams it */
        struct pipe *p = pipe_of(me, sender);
        atomic_store_explicit(&p->filled, 0, memory_order_relaxed);
        atomic_store_explicit(&p->drained, 0, memory_order_relaxed);
    }
    nfree[sender]--;
    holder[sender * share + (int)i] = msg;
    msg->lend.ret_index = i;
    msg->lend.ret_gen = generation = (generation + 1) & (UINT32_MAX >> 4);
    atomic_store_explicit(&r->state, handed(msg->lend.ret_gen), memory_order_release);
    return true;
}

bool wisp_p2p_handback_recall(const struct wisp_p2p_msg *msg)
{
    struct record *r = record_at(me, msg->from, msg->lend.ret_index);
    uint32_t state = handed(msg->lend.ret_gen);
    bool back = atomic_compare_exchange_strong(&r->state, &state, RECALLED);
    /* Claimed: the sender may be reading our copy, which goes after this. */
    for (unsigned rounds = 0; state == CLAIMED;
         state = atomic_load_explicit(&r->state, memory_order_acquire))
        if (!pump(msg->from)) /* it may be copying out of our pipe */
            wisp_backoff(&rounds);
    release(msg->from, msg->lend.ret_index);
    return back;
}

void *wisp_p2p_handback_claim(int owner, uint32_t index, uint32_t gen, uint64_t *size, int *tag)
{
    struct record *r = record_at(owner, me, index);
    uint32_t asked = handed(gen);
    if (!atomic_compare_exchange_strong(&r->state, &asked, CLAIMED))
        return NULL; /* recalled */
    char *bytes = malloc(r->size ? r->size : 1);
    if (!bytes)
        wisp_fatal("out of memory for a message of %llu bytes to send through the MPI",
                   (unsigned long long)r->size);
    if (r->piped)
        read_pipe(owner, r, bytes);
    else if (!r->copy)
        read_file(r, bytes);
    else if (wisp_shm_heap_holds(r->copy, r->size))
        memcpy(bytes, r->copy, r->size);
    else
        wisp_p2p_cma_copy(owner, bytes, r->copy, r->size);
    *size = r->size;
    *tag = r->tag;
    atomic_store_explicit(&r->state, SENT, memory_order_release);
    return bytes;
}
