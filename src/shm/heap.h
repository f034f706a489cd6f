/*
 * The node's shared heap: one region that every process of the (virtual)
 * node maps at the same virtual address, cut into one partition per process.
 * A process allocates only from its own partition (no cross-process lock);
 * any process can read and write any partition, so a pointer into the heap
 * means the same memory everywhere on the node.
 */
#ifndef WISP_SHM_HEAP_H
#define WISP_SHM_HEAP_H

#include <mpi.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

struct wisp_shm_heap {
    char *base; /* partition 0; partition r at base + r * partition_size */
    size_t partition_size;
    int nparts;   /* processes of the node */
    int my_part;  /* this process's node rank */
    bool serving; /* allocations come from the heap (MPI_Init..MPI_Finalize) */
    /* Node-shared, one enum wisp_shm_chunk per 2^chunk_shift bytes of the
     * heap (fault.c): may other processes reach this memory? */
    _Atomic unsigned char *chunks;
    unsigned chunk_shift;
};
extern struct wisp_shm_heap wisp_shm_heap;

/* Collective over `node`: map the heap (WISP_SHM, WISP_HEAP_SIZE). When it
 * cannot be mapped at one address everywhere, every process of the node
 * keeps private memory, and WISP_VERBOSE says why. `serves_malloc`: the
 * process's malloc is wisp's (malloc.c), which node rank 0's log line says. */
void wisp_shm_heap_init(MPI_Comm node, int node_rank, int node_size, bool serves_malloc);

/* Stop serving new allocations; memory already handed out stays valid. */
void wisp_shm_heap_stop(void);
/* The component's start (core/component.h): the heap over the node, with
 * WISP_SHM (malloc.c). */
void wisp_shm_start(int thread_level);

/* NULL when the partition is full (the caller falls back to private memory). */
void *wisp_shm_heap_alloc(size_t size, size_t alignment, bool zero);
void *wisp_shm_heap_realloc(void *p, size_t size);
void wisp_shm_heap_free(void *p);
size_t wisp_shm_heap_usable_size(const void *p);

/* MPI_Alloc_mem and MPI_Free_mem (alloc_mem.c). */
int wisp_shm_alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr);
int wisp_shm_free_mem(void *base);

/* The bytes of the whole heap, every process's partition. */
static inline size_t wisp_shm_heap_span(void)
{
    return wisp_shm_heap.partition_size * (size_t)wisp_shm_heap.nparts;
}

/* Is `p` in the heap's address range? Says whose free() it is; whether
 * another process may reach it is wisp_shm_heap_holds's to say. */
static inline bool wisp_shm_heap_contains(const void *p)
{
    const char *c = p;
    return c >= wisp_shm_heap.base && c < wisp_shm_heap.base + wisp_shm_heap_span();
}

/* The states of a chunk of the heap (fault.c tells their story). UNKNOWN:
 * it may have pages that tmpfs has not backed yet. BACKED: every page of it
 * is committed in the file, so no process faults on it; for good. PRIVATE:
 * some process mapped private memory over a page of it that /dev/shm could
 * not back, so no other process may reach it through the heap; for good.
 * UNKNOWN -> BACKED and UNKNOWN -> PRIVATE are the only moves. */
enum wisp_shm_chunk { WISP_SHM_CHUNK_UNKNOWN, WISP_SHM_CHUNK_BACKED, WISP_SHM_CHUNK_PRIVATE };

/* holds()'s slow path (fault.c): commits the UNKNOWN chunks of the range
 * and makes them BACKED; false when one is PRIVATE or cannot be committed. */
bool wisp_shm_heap_back(const char *p, uint64_t n);

/* Are all `n` bytes at `p` in the heap, where every process of the node
 * maps them at that address and may read and write them without a fault?
 * (No bytes: nothing to reach.) Every decision to let another process reach
 * memory through the heap (single copy, a window the ghosts serve) asks
 * this, never wisp_shm_heap_contains. One load per chunk once BACKED. */
static inline bool wisp_shm_heap_holds(const void *p, uint64_t n)
{
    const char *c = p;
    if (!n)
        return true;
    if (!wisp_shm_heap_contains(c) || !wisp_shm_heap_contains(c + n - 1))
        return false;
    size_t first = (size_t)(c - wisp_shm_heap.base) >> wisp_shm_heap.chunk_shift;
    size_t last = (size_t)(c + n - 1 - wisp_shm_heap.base) >> wisp_shm_heap.chunk_shift;
    for (size_t i = first; i <= last; i++)
        if (atomic_load_explicit(&wisp_shm_heap.chunks[i], memory_order_acquire) !=
            WISP_SHM_CHUNK_BACKED)
            return wisp_shm_heap_back(c, n);
    return true;
}

/* prefault()'s slow path (fault.c). */
void wisp_shm_heap_prefault_range(const char *p, uint64_t n);

/* Makes every page of [p, p + n) that lies in the heap backed or private
 * to this process, so that a system call may read or write it: where a
 * touch raises SIGBUS, which wisp resolves (fault.c), the kernel's own
 * access answers EFAULT. Before wisp's process_vm_readv and writev. */
static inline void wisp_shm_heap_prefault(const void *p, uint64_t n)
{
    const char *c = p, *base = wisp_shm_heap.base, *end = base + wisp_shm_heap_span();
    if (!n || !base || c >= end || c + n <= base)
        return;
    const char *lo = c > base ? c : base, *hi = c + n < end ? c + n : end;
    size_t first = (size_t)(lo - base) >> wisp_shm_heap.chunk_shift;
    size_t last = (size_t)(hi - 1 - base) >> wisp_shm_heap.chunk_shift;
    for (size_t i = first; i <= last; i++)
        if (!wisp_shm_heap.chunks ||
            atomic_load_explicit(&wisp_shm_heap.chunks[i], memory_order_acquire) !=
                WISP_SHM_CHUNK_BACKED) {
            wisp_shm_heap_prefault_range(lo, (uint64_t)(hi - lo));
            return;
        }
}

/* Is `p` in this process's own partition (so allocated by this process)? */
static inline bool wisp_shm_heap_owns(const void *p)
{
    const char *mine =
        wisp_shm_heap.base + wisp_shm_heap.partition_size * (size_t)wisp_shm_heap.my_part;
    return wisp_shm_heap.base && (const char *)p >= mine &&
           (const char *)p < mine + wisp_shm_heap.partition_size;
}

#pragma GCC visibility pop

#endif
