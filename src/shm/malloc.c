/*
 * The malloc family, served from this process's partition of the shared
 * heap between MPI_Init and MPI_Finalize, so that application buffers can be
 * read by the other processes of the node (single-copy messages). Outside
 * that interval, when WISP_SHM=off, when the partition is full, and for the
 * MPI's own allocations (its code is the caller: callers.c), glibc's
 * allocator serves as before; free() and realloc() tell the two apart by
 * address. glibc documents this set of functions as the one to replace
 * together.
 */
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "core/config.h"
#include "core/export.h"
#include "core/log.h"
#include "core/stats.h"
#include "core/topo.h"
#include "shm/callers.h"
#include "shm/heap.h"

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);

static size_t (*libc_usable_size)(void *);

/* glibc's own, asked of libc itself: RTLD_NEXT could find another
 * allocator's when wisp is linked into the program. */
__attribute__((constructor)) static void find_libc_usable_size(void)
{
    void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
    if (libc)
        *(void **)&libc_usable_size = dlsym(libc, "malloc_usable_size");
}

/* Is `name` of the object that holds this file (libwisp, or the program
 * linked with libwisp.a)? The address of malloc taken here would be the
 * one the dynamic linker resolved, whichever object defines it. */
static bool defined_here(const char *name)
{
    struct dl_find_object found, here;
    void *f = dlsym(RTLD_DEFAULT, name);
    return f && !_dl_find_object(f, &found) && !_dl_find_object((void *)defined_here, &here) &&
           found.dlfo_link_map == here.dlfo_link_map;
}

/* Do the process's malloc and free resolve to wisp's? Not when another
 * allocator was preloaded before wisp. */
static bool malloc_is_ours(void)
{
    return defined_here("malloc") && defined_here("free");
}

/* The component's start, here above the heap, which serves this file's
 * functions: whether malloc is wisp's is this file's to say. Before the
 * ghosts are carved out: the heap spans them too, so that they see the
 * windows the application creates on it (docs/ghosts.md); their partitions
 * stay unused. */
void wisp_shm_start(int thread_level)
{
    (void)thread_level;
    if (wisp_config.SHM)
        wisp_shm_heap_init(wisp_topo.node_comm, wisp_topo.node_rank, wisp_topo.node_size,
                           wisp_topo.node_rank == 0 && malloc_is_ours());
    else if (wisp_topo.node_rank == 0)
        wisp_log(1, "shared heap off on this node: WISP_SHM=off");
}

/* The heap's block for code at `caller`, or NULL: glibc serves. */
static inline void *from_heap(const void *caller, size_t size, size_t alignment, bool zero)
{
    if (!wisp_shm_heap.serving)
        return NULL;
    if (wisp_shm_caller_is_mpi(caller)) {
        if (wisp_config.STATS)
            atomic_fetch_add_explicit(&wisp_stats_heap_mpi, 1, memory_order_relaxed);
        return NULL;
    }
    return wisp_shm_heap_alloc(size, alignment, zero);
}

#define CALLER __builtin_return_address(0)

static void *allocate(const void *caller, size_t size)
{
    void *p = from_heap(caller, size, 0, false);
    return p ? p : __libc_malloc(size);
}

static void *aligned(const void *caller, size_t alignment, size_t size)
{
    void *p = from_heap(caller, size, alignment, false);
    return p ? p : __libc_memalign(alignment, size);
}

/* aligned_alloc and memalign: `alignment` a power of two. */
static void *aligned_checked(const void *caller, size_t alignment, size_t size)
{
    if (alignment == 0 || (alignment & (alignment - 1))) {
        errno = EINVAL;
        return NULL;
    }
    return aligned(caller, alignment, size);
}

static void *reallocate(const void *caller, void *p, size_t size)
{
    if (!p)
        return allocate(caller, size);
    if (!wisp_shm_heap_contains(p))
        return __libc_realloc(p, size);
    if (size == 0) { /* as glibc: free and return NULL */
        free(p);
        return NULL;
    }
    void *q = wisp_shm_heap_realloc(p, size);
    if (q)
        return q;
    /* The partition is full (or MPI_Finalize has passed): move to private memory. */
    size_t old = wisp_shm_heap_usable_size(p);
    if (!(q = __libc_malloc(size)))
        return NULL;
    memcpy(q, p, old < size ? old : size);
    wisp_shm_heap_free(p);
    return q;
}

WISP_EXPORT void *malloc(size_t size)
{
    return allocate(CALLER, size);
}

WISP_EXPORT void free(void *p)
{
    if (wisp_shm_heap_contains(p))
        wisp_shm_heap_free(p);
    else
        __libc_free(p);
}

WISP_EXPORT void *calloc(size_t n, size_t size)
{
    size_t bytes;
    if (__builtin_mul_overflow(n, size, &bytes)) {
        errno = ENOMEM;
        return NULL;
    }
    void *p = from_heap(CALLER, bytes, 0, true);
    return p ? p : __libc_calloc(n, size);
}

WISP_EXPORT void *realloc(void *p, size_t size)
{
    return reallocate(CALLER, p, size);
}

WISP_EXPORT void *reallocarray(void *p, size_t n, size_t size)
{
    size_t bytes;
    if (__builtin_mul_overflow(n, size, &bytes)) {
        errno = ENOMEM;
        return NULL;
    }
    return reallocate(CALLER, p, bytes);
}

WISP_EXPORT int posix_memalign(void **out, size_t alignment, size_t size)
{
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)))
        return EINVAL;
    void *p = aligned(CALLER, alignment, size);
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
}

WISP_EXPORT void *aligned_alloc(size_t alignment, size_t size)
{
    return aligned_checked(CALLER, alignment, size);
}

WISP_EXPORT void *memalign(size_t alignment, size_t size)
{
    return aligned_checked(CALLER, alignment, size);
}

WISP_EXPORT void *valloc(size_t size)
{
    return aligned(CALLER, (size_t)sysconf(_SC_PAGESIZE), size);
}

WISP_EXPORT void *pvalloc(size_t size)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return aligned(CALLER, page, (size + page - 1) & ~(page - 1));
}

WISP_EXPORT size_t malloc_usable_size(void *p)
{
    if (wisp_shm_heap_contains(p))
        return wisp_shm_heap_usable_size(p);
    return p && libc_usable_size ? libc_usable_size(p) : 0;
}
