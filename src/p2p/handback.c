/*
 * Messages handed back to their sender (engine.c, wisp_p2p_forward): an
 * earlier message of a synchronous one's sender that this process holds
 * must reach the MPI before it, so its sender sends it there. Each process
 * has a table of records for them in the node's segment, apart from its
 * rendezvous slots (which its own sends may all hold). A record names the
 * receiver's copy of the bytes: read from the shared heap or with
 * cross-memory attach where those reach it, else from a file in /dev/shm
 * that the receiver writes for the occasion (the sanitizer build has no
 * heap, and ptrace rules may forbid cross-memory attach).
 *
 * A record's life: FREE -> HANDED (| generation << 4, so that a record
 * taken back and reused is never mistaken for it) -> CLAIMED by the sender
 * -> SENT, or HANDED -> TAKEN when a receive here takes the message back
 * first; then FREE again, by its owner.
 */
#include "p2p/p2p.h"

#include <fcntl.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/config.h"
#include "core/log.h"
#include "shm/heap.h"
#include "shm/segment.h"

enum { HANDED = 1, CLAIMED, SENT, TAKEN };

struct record {
    alignas(64) _Atomic uint32_t state;
    int tag;
    uint64_t size;
    const char *copy; /* the receiver's bytes, or NULL: in `file` */
    char file[96];    /* /dev/shm name: /wisp-<WISP_JOB, up to 64>-back-<pid>-<index> */
};

static struct record *table; /* WISP_P2P_RETURN_MAX per node rank */
static int me;
static int free_list[WISP_P2P_RETURN_MAX], nfree;
static uint32_t generation;

size_t wisp_p2p_handback_size(int node_size)
{
    return (size_t)node_size * WISP_P2P_RETURN_MAX * sizeof(struct record);
}

void wisp_p2p_handback_init(void *region, int node_rank)
{
    table = region;
    me = node_rank;
    nfree = 0;
    for (int i = WISP_P2P_RETURN_MAX - 1; i >= 0; i--)
        free_list[nfree++] = i;
}

static struct record *record_at(int owner, uint32_t index)
{
    return &table[(size_t)owner * WISP_P2P_RETURN_MAX + index];
}

static uint32_t handed(uint32_t gen)
{
    return HANDED | gen << 4;
}

int wisp_p2p_handback_free(void)
{
    return nfree;
}

/* A file's length: a mapping of 0 bytes fails. */
static size_t mapped(uint64_t size)
{
    return size ? size : 1;
}

/* The bytes in a file of their own: nothing else of ours reaches them. */
static bool write_file(struct record *r, uint32_t index, const void *bytes, uint64_t size)
{
    wisp_shm_name(r->file, sizeof r->file, "back", (int)index);
    shm_unlink(r->file); /* one left by a killed process that had our pid */
    int fd = shm_open(r->file, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0) {
        wisp_log(1, "cannot create %s to hand a message back: %m", r->file);
        return false;
    }
    void *map = MAP_FAILED;
    if (!posix_fallocate(fd, 0, (off_t)mapped(size)))
        map = mmap(NULL, mapped(size), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (map == MAP_FAILED) {
        wisp_log(1, "no room in /dev/shm to hand a message of %llu bytes back",
                 (unsigned long long)size);
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

bool wisp_p2p_handback_put(const struct wisp_p2p_msg *msg, uint32_t *index, uint32_t *gen)
{
    if (!nfree)
        return false;
    uint32_t i = (uint32_t)free_list[nfree - 1];
    struct record *r = record_at(me, i);
    const char *bytes = (const char *)msg->data;
    r->tag = msg->tag;
    r->size = msg->size;
    r->copy = wisp_p2p.cma || wisp_shm_heap_holds(bytes, msg->size) ? bytes : NULL;
    if (!r->copy && !write_file(r, i, bytes, msg->size))
        return false;
    nfree--;
    *index = i;
    *gen = generation = (generation + 1) & (UINT32_MAX >> 4);
    atomic_store_explicit(&r->state, handed(*gen), memory_order_release);
    return true;
}

bool wisp_p2p_handback_take(uint32_t index, uint32_t gen)
{
    struct record *r = record_at(me, index);
    uint32_t state = handed(gen);
    bool back = atomic_compare_exchange_strong(&r->state, &state, TAKEN);
    /* Claimed: the sender may be reading our copy, which goes after this. */
    for (unsigned rounds = 0; state == CLAIMED;
         state = atomic_load_explicit(&r->state, memory_order_acquire))
        wisp_backoff(&rounds);
    if (!r->copy)
        shm_unlink(r->file);
    free_list[nfree++] = (int)index;
    return back;
}

void *wisp_p2p_handback_claim(int owner, uint32_t index, uint32_t gen, uint64_t *size, int *tag)
{
    struct record *r = record_at(owner, index);
    uint32_t asked = handed(gen);
    if (!atomic_compare_exchange_strong(&r->state, &asked, CLAIMED))
        return NULL; /* taken back */
    char *bytes = malloc(r->size ? r->size : 1);
    if (!bytes)
        wisp_fatal("out of memory for a message of %llu bytes to send through the MPI",
                   (unsigned long long)r->size);
    if (!r->copy)
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
