/*
 * The shared heap. One tmpfs file per node is mapped at one virtual address
 * in every process of the node; each process hands its own partition to a
 * private jemalloc arena through extent hooks, so allocation needs no
 * cross-process lock and jemalloc, not wisp, does the allocating.
 *
 * jemalloc is wisp's own copy, built from Debian's source package into
 * libwisp (cmake/WispJemalloc.cmake): every symbol prefixed (wispje_) and
 * hidden, so it never becomes the process's malloc or C++ operator new, and
 * without initial-exec TLS, so it works however libwisp was loaded
 * (LD_PRELOAD, -lwisp, wisprun) with nothing set in the environment.
 *
 * Memory is committed with fallocate(2) as jemalloc commits it: a full
 * /dev/shm then makes the allocation fail cleanly (and the caller falls back
 * to private memory) instead of a SIGBUS when a page is first touched;
 * ranges of 1 MiB and more are left to first touch within a budget that
 * /dev/shm holds whole (commit_later); should /dev/shm fill up anyway, a
 * page it cannot back becomes private to the process at its first touch
 * instead of a SIGBUS (fault.c, which also keeps the table of which chunks
 * other processes may reach). tmpfs
 * places a page when it commits it: on the committing thread's NUMA node,
 * or as the file range's policy says (WISP_HEAP_NUMA=interleave). The
 * file is unlinked as soon as every process has mapped it, so nothing is
 * left in /dev/shm however the job ends.
 */
#define JEMALLOC_NO_DEMANGLE
#include "shm/heap.h"

#include <errno.h>
#include <fcntl.h>
#include <jemalloc/jemalloc.h>
#include <linux/mempolicy.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "core/config.h"
#include "core/log.h"
#include "shm/callers.h"
#include "shm/fault.h"
#include "shm/segment.h"

enum {
    MAX_NUMA_NODES = 1024,   /* bits of the node masks given to the kernel */
    HEAP_ALIGN = 2 << 20,    /* partitions start on huge-page boundaries */
    MAX_PLACEMENT_TRIES = 4, /* candidate addresses before giving up */
    RETAIN_GROW_LIMIT = 64 << 20,
    LAZY_MIN = 1 << 20 /* smaller ranges are committed at once */
};
/* Far from the program, its heap and its libraries, and above
 * AddressSanitizer's shadow memory. */
#define PLACEMENT_HINT ((void *)0x200000000000ull)

static int heap_fd = -1;
static size_t used; /* bytes of this process's partition given to jemalloc */
static pthread_mutex_t used_lock = PTHREAD_MUTEX_INITIALIZER;
static int mallocx_flags; /* the arena, without a thread cache */
static pthread_key_t tcache_key;
/* This thread's jemalloc cache for the arena: glibc-like speed for the
 * small blocks programs allocate most. 0: none yet; -1: none (any more). */
static _Thread_local int tcache_plus_one __attribute__((tls_model("initial-exec")));
static bool full_reported;
static size_t shm_reserve; /* bytes of /dev/shm the heap leaves to others; 0: no limit */
/* Ranges committed by first touch, not by fallocate: a quarter of what
 * /dev/shm had free at MPI_Init (the pool, which eager commits leave
 * free too), in equal shares (the budget) for the processes of the node. */
static size_t lazy_pool, lazy_budget;
static _Atomic size_t lazy_promised;
static bool forked; /* in a child of fork(): the partition is the parent's */
/* WISP_HEAP_NUMA=interleave: the nodes this process may use; else empty. */
static unsigned long interleave_nodes[MAX_NUMA_NODES / (8 * sizeof(unsigned long))];
static bool interleave;

/* jemalloc's options are compiled in (cmake/WispJemalloc.cmake,
 * --with-malloc-conf): its thread caches also keep blocks up to 128 KiB
 * (32 KiB by default), which made a malloc-heavy program with blocks up to
 * 64 KiB 1.4-1.9x faster than glibc instead of 0.85x
 * (bench/malloc_heavy.c), and it never uses sbrk (the brk heap is glibc's).
 * It reads WISPJE_MALLOC_CONF, not the process allocator's MALLOC_CONF. */

static void report_full(const char *why)
{
    if (!__atomic_exchange_n(&full_reported, true, __ATOMIC_RELAXED))
        wisp_log(1, "shared heap partition %s: further allocations are private", why);
}

/* Does /dev/shm keep its reserve when `size` more bytes are committed? The
 * MPI's own segments (sparse, some created mid-run) and windows need the
 * room: a full /dev/shm would make them, not the heap, fail. */
static bool leaves_reserve(size_t size)
{
    struct statvfs st;
    if (!shm_reserve || fstatvfs(heap_fd, &st))
        return true;
    return (size_t)st.f_bavail * st.f_frsize >= size + shm_reserve + lazy_pool;
}

/* Sets the policy of the file's pages behind [start, start + size) before
 * they are committed: tmpfs keeps it with the file (a shared policy), so it
 * holds whichever process commits or touches them. Page-aligned, as every
 * extent is. A refusal leaves the pages local, said once. */
static void place_pages(void *start, size_t size)
{
    static bool refused;
    if (interleave &&
        syscall(SYS_mbind, start, size, MPOL_INTERLEAVE, interleave_nodes,
                (unsigned long)MAX_NUMA_NODES + 1, 0UL) &&
        !__atomic_exchange_n(&refused, true, __ATOMIC_RELAXED))
        wisp_log(1, "WISP_HEAP_NUMA=interleave: mbind refused (%m): heap pages stay local");
}

/* Commits [start, start + size) of the heap: 0, or an errno. */
static int commit_pages(char *start, size_t size)
{
    return fallocate(heap_fd, 0, (off_t)(start - wisp_shm_heap.base), (off_t)size) ? errno : 0;
}

/* The NUMA nodes to interleave over: those this process may allocate from. */
static void interleave_init(void)
{
    if (wisp_config.HEAP_NUMA != WISP_HEAP_NUMA_INTERLEAVE)
        return;
    if (syscall(SYS_get_mempolicy, NULL, interleave_nodes, (unsigned long)MAX_NUMA_NODES, NULL,
                MPOL_F_MEMS_ALLOWED)) {
        wisp_log(1, "WISP_HEAP_NUMA=interleave: cannot read the allowed NUMA nodes (%m): "
                    "heap pages stay local");
        return;
    }
    interleave = true;
    int nodes = 0;
    for (size_t i = 0; i < sizeof interleave_nodes / sizeof *interleave_nodes; i++)
        nodes += __builtin_popcountl(interleave_nodes[i]);
    wisp_log(2, "shared heap: pages interleaved over %d NUMA node%s", nodes, nodes == 1 ? "" : "s");
}

/* May a range of `size` bytes be left to first touch? A large block is
 * often a pool that the program allocates whole and uses in part (NWChem's
 * 235 MiB of 400): committed at once, every page of it costs tmpfs an
 * allocation that anonymous memory never pays (docs/results/
 * 2026-11-28-heap-cost.md). Within the budget, /dev/shm has room for every
 * page promised this way even if all are touched, unless something outside
 * the job takes the reserve left to others. */
static bool commit_later(size_t size)
{
    if (size < LAZY_MIN)
        return false;
    if (atomic_fetch_add(&lazy_promised, size) + size <= lazy_budget)
        return true;
    atomic_fetch_sub(&lazy_promised, size);
    return false;
}

/* Commits [start, start + size) of the heap, placed, keeping /dev/shm's
 * reserve: false on success, as jemalloc's hooks answer. */
static bool commit_range(char *start, size_t size)
{
    int err = 0;
    place_pages(start, size);
    if (commit_later(size))
        return false;
    if (!leaves_reserve(size))
        report_full("cannot grow: the rest of /dev/shm is left to the MPI");
    else if ((err = commit_pages(start, size)))
        report_full(err == ENOSPC ? "cannot grow: /dev/shm is full" : "cannot grow");
    else {
        wisp_shm_fault_committed(start, size);
        return false;
    }
    return true;
}

/* jemalloc asks for a new extent: carve it from this process's partition.
 * It grows its extents geometrically and uses the front of each: the
 * address range is reserved here, and only what jemalloc asks to commit
 * (here, or later through extent_commit) takes pages of /dev/shm. */
static void *extent_alloc(extent_hooks_t *hooks, void *new_addr, size_t size, size_t alignment,
                          bool *zero, bool *commit, unsigned arena)
{
    (void)hooks, (void)arena;
    if (new_addr) /* a given address cannot be promised */
        return NULL;
    char *part = wisp_shm_heap.base + wisp_shm_heap.partition_size * (size_t)wisp_shm_heap.my_part;
    pthread_mutex_lock(&used_lock);
    uintptr_t start = ((uintptr_t)part + used + alignment - 1) & ~(uintptr_t)(alignment - 1);
    size_t offset = start - (uintptr_t)part;
    char *p = NULL;
    if (offset + size > wisp_shm_heap.partition_size)
        report_full("full (WISP_HEAP_SIZE)");
    else if (!*commit || !commit_range((char *)start, size))
        p = (char *)start;
    if (p)
        used = offset + size;
    pthread_mutex_unlock(&used_lock);
    *zero = true; /* fresh file pages; a range is never handed out twice */
    return p;
}

/* Extents stay with jemalloc for reuse: returning true declines to unmap. */
static bool extent_dalloc(extent_hooks_t *h, void *addr, size_t size, bool committed, unsigned a)
{
    (void)h, (void)addr, (void)size, (void)committed, (void)a;
    return true;
}

static void extent_destroy(extent_hooks_t *h, void *addr, size_t size, bool committed, unsigned a)
{
    (void)h, (void)addr, (void)size, (void)committed, (void)a;
}

static bool extent_commit(extent_hooks_t *h, void *addr, size_t size, size_t off, size_t len,
                          unsigned a)
{
    (void)h, (void)size, (void)a;
    return commit_range((char *)addr + off, len);
}

static bool extent_decommit(extent_hooks_t *h, void *addr, size_t size, size_t off, size_t len,
                            unsigned a)
{
    (void)h, (void)addr, (void)size, (void)off, (void)len, (void)a;
    return true; /* not supported: pages stay committed */
}

/* One mapping, so any two adjacent extents may be split and merged. */
static bool extent_split(extent_hooks_t *h, void *addr, size_t size, size_t size_a, size_t size_b,
                         bool committed, unsigned a)
{
    (void)h, (void)addr, (void)size, (void)size_a, (void)size_b, (void)committed, (void)a;
    return false;
}

static bool extent_merge(extent_hooks_t *h, void *addr_a, size_t size_a, void *addr_b,
                         size_t size_b, bool committed, unsigned a)
{
    (void)h, (void)addr_a, (void)size_a, (void)addr_b, (void)size_b, (void)committed, (void)a;
    return false;
}

/* No decommit and no purging: punching holes would give pages back to
 * tmpfs, and touching them again could then SIGBUS on a full /dev/shm. */
static extent_hooks_t partition_hooks = {
    .alloc = extent_alloc,
    .dalloc = extent_dalloc,
    .destroy = extent_destroy,
    .commit = extent_commit,
    .decommit = extent_decommit,
    .split = extent_split,
    .merge = extent_merge,
};

/* Every process maps the file at the address one of them proposes; the
 * first proposal that is free everywhere wins. */
static char *map_everywhere(MPI_Comm node, int node_rank, int node_size, size_t total)
{
    for (int proposer = 0; proposer < node_size && proposer < MAX_PLACEMENT_TRIES; proposer++) {
        void *candidate = NULL;
        if (node_rank == proposer) {
            candidate = mmap(PLACEMENT_HINT, total, PROT_NONE,
                             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
            if (candidate != MAP_FAILED)
                munmap(candidate, total);
            else
                candidate = NULL;
        }
        PMPI_Bcast(&candidate, sizeof candidate, MPI_BYTE, proposer, node);
        if (!candidate)
            continue;
        void *p = mmap(candidate, total, PROT_READ | PROT_WRITE,
                       MAP_SHARED | MAP_FIXED_NOREPLACE | MAP_NORESERVE, heap_fd, 0);
        bool here = p == candidate;
        if (p != MAP_FAILED && !here)
            munmap(p, total); /* a kernel without MAP_FIXED_NOREPLACE */
        if (wisp_shm_all_agree(here, node))
            return candidate;
        if (here)
            munmap(p, total);
    }
    return NULL;
}

static void heap_off(int node_rank, const char *why)
{
    if (node_rank == 0)
        wisp_log(1, "shared heap off on this node: %s", why);
    if (heap_fd >= 0)
        close(heap_fd);
    heap_fd = -1;
}

static void tcache_destroy(void *value)
{
    unsigned id = (unsigned)(uintptr_t)value - 1;
    tcache_plus_one = -1; /* frees by later destructors go to the arena */
    je_mallctl("tcache.destroy", NULL, NULL, &id, sizeof id);
}

/* The flags for this thread: the arena and, when it can have one, its cache. */
static int thread_flags(void)
{
    if (__builtin_expect(tcache_plus_one > 0, 1))
        return mallocx_flags ^ MALLOCX_TCACHE_NONE ^ MALLOCX_TCACHE(tcache_plus_one - 1);
    unsigned id;
    size_t size = sizeof id;
    if (tcache_plus_one < 0 || je_mallctl("tcache.create", &id, &size, NULL, 0)) {
        tcache_plus_one = -1;
        return mallocx_flags;
    }
    tcache_plus_one = (int)id + 1;
    pthread_setspecific(tcache_key, (void *)(uintptr_t)tcache_plus_one);
    return thread_flags();
}

/* ---- fork() -------------------------------------------------------------
 *
 * A child of fork() must get the heap as it gets any memory: a private copy
 * as of the fork. The shared mapping would instead let the child write into
 * its parent's blocks (and jemalloc's own fork handler, which re-initializes
 * the arena's locks in the child, into the parent's allocator). So:
 *
 * - before the fork, in the parent, after jemalloc's handler has taken its
 *   locks (ours is registered before jemalloc's: pthread_atfork runs
 *   prepare handlers in reverse order of registration and the others in
 *   order, so ours runs after jemalloc's before a fork and before
 *   jemalloc's in the child, whose re-initialized locks then land in the
 *   child's private copy; see register_fork_handlers), the pages
 *   of this process's partition that hold data are copied into private
 *   anonymous memory: only the range given to jemalloc, and within it only
 *   the pages lseek(SEEK_DATA) finds, read with pread (which, unlike a read
 *   through the mapping, never allocates a tmpfs page for a hole);
 * - in the child, the whole heap becomes a MAP_PRIVATE mapping of the file
 *   (peers' partitions: private, no copy; the child sees a peer's page as
 *   the parent would until it writes it) and the copy is moved (mremap) over
 *   its own partition; the child then never allocates from or frees into the
 *   heap and never commits into the file, which it closes;
 * - in the parent, the copy is unmapped.
 *
 * A fork costs one copy of the process's used heap (into huge pages: a
 * third of the time of small pages, measured). glibc's system(),
 * popen() and posix_spawn() do not run fork handlers and copy nothing. */

static struct {
    bool active; /* the heap was mapped when fork() started */
    char *copy;  /* this process's partition, [0, len) of it */
    size_t len;
} at_fork;

/* The handlers map and unmap with the system calls themselves. The MPI's
 * memory hooks replace mmap, munmap, mremap and madvise in the process (UCX's
 * ucm, Open MPI's patcher): they may allocate, and jemalloc's locks are held
 * between its fork handlers, so an allocation from the heap in ours would
 * deadlock; and UCX 1.13's mremap drops the new address (the copy landed at
 * address 0). The hooks need not see these ranges: no MPI ever registered
 * the copy, and the child is no MPI process. */
static void *sys_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t offset)
{
    return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, offset);
}

static void sys_munmap(void *addr, size_t len)
{
    syscall(SYS_munmap, addr, len);
}

/* Moves the mapping at `from` to `to`; nonzero on failure. */
static int sys_move(void *from, size_t len, void *to)
{
    return (void *)syscall(SYS_mremap, from, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, to) != to;
}

/* Copies [offset, offset + len) of the file into `to`, data pages only. */
static bool copy_data(char *to, off_t offset, size_t len)
{
    off_t end = offset + (off_t)len, at = offset;
    while (at < end) {
        off_t data = lseek(heap_fd, at, SEEK_DATA);
        if (data < 0 && errno == ENXIO)
            return true; /* nothing but holes up to the end of the file */
        off_t hole = data < 0 ? end : lseek(heap_fd, data, SEEK_HOLE);
        if (data < 0) /* no SEEK_DATA here: copy all of it (pread reads holes as zeros) */
            data = at;
        if (data >= end)
            return true;
        if (hole < 0 || hole > end)
            hole = end;
        for (off_t o = data; o < hole;) {
            ssize_t n = pread(heap_fd, to + (o - offset), (size_t)(hole - o), o);
            if (n <= 0)
                return false;
            o += n;
        }
        at = hole;
    }
    return true;
}

static void fork_prepare(void)
{
    at_fork.active = heap_fd >= 0 && wisp_shm_heap.base;
    if (!at_fork.active)
        return;
    pthread_mutex_lock(&used_lock);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    at_fork.len = (used + page - 1) & ~(page - 1);
    at_fork.copy = NULL;
    if (!at_fork.len)
        return;
    void *copy = sys_mmap(NULL, at_fork.len, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (copy != MAP_FAILED)
        syscall(SYS_madvise, copy, at_fork.len, MADV_HUGEPAGE);
    off_t mine = (off_t)(wisp_shm_heap.partition_size * (size_t)wisp_shm_heap.my_part);
    if (copy != MAP_FAILED && copy_data(copy, mine, at_fork.len)) {
        wisp_shm_fault_overlay(copy, wisp_shm_heap.base + mine, at_fork.len);
        at_fork.copy = copy;
        return;
    }
    if (copy != MAP_FAILED)
        sys_munmap(copy, at_fork.len);
    wisp_log(1, "fork: no copy of the shared heap (%m): the child's view of it is private "
                "but follows this process's later writes to pages the child has not written");
}

static void fork_parent(void)
{
    if (!at_fork.active)
        return;
    if (at_fork.copy)
        sys_munmap(at_fork.copy, at_fork.len);
    at_fork.copy = NULL;
    pthread_mutex_unlock(&used_lock);
}

static void fork_child(void)
{
    wisp_shm_heap.serving = false;
    forked = true;
    wisp_shm_fault_forked();
    if (!at_fork.active)
        return;
    pthread_mutex_unlock(&used_lock);
    char *base = wisp_shm_heap.base;
    size_t total = wisp_shm_heap_span();
    char *mine = base + wisp_shm_heap.partition_size * (size_t)wisp_shm_heap.my_part;
    if (sys_mmap(base, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED | MAP_NORESERVE,
                 heap_fd, 0) != base) {
        /* Never leave the child writing into the node's memory: it faults instead. */
        sys_munmap(base, total);
        wisp_log_error("fork: the child cannot have a private copy of the shared heap (%m): "
                       "it is unmapped in the child");
    } else if (at_fork.copy && sys_move(at_fork.copy, at_fork.len, mine)) {
        wisp_log(1, "fork: cannot move the copy of the shared heap into place (%m)");
        sys_munmap(at_fork.copy, at_fork.len);
    }
    at_fork.copy = NULL;
    close(heap_fd);
    heap_fd = -1;
}

/* jemalloc registers its fork handlers when it initializes, in its own
 * constructor (default priority), as libwisp is loaded. This one has a
 * priority, and the linker puts constructors with one first (in libwisp.so
 * and in a program linked with libwisp.a alike), so ours are registered
 * before. */
__attribute__((constructor(101))) static void register_fork_handlers(void)
{
    if (pthread_atfork(fork_prepare, fork_parent, fork_child))
        wisp_fatal("cannot register the shared heap's fork handlers");
}

void wisp_shm_heap_init(MPI_Comm node, int node_rank, int node_size, bool serves_malloc)
{
    size_t partition = ((size_t)wisp_config.HEAP_SIZE + HEAP_ALIGN - 1) & ~(size_t)(HEAP_ALIGN - 1);
    size_t total = partition * (size_t)node_size;

    /* The chunk table (fault.c) follows the partitions in the file. */
    if ((heap_fd = wisp_shm_segment_open(node, "heap", total + wisp_shm_fault_table_bytes(total))) <
        0)
        return heap_off(node_rank, "cannot create the shared file in /dev/shm");
    /* The heap takes at most half of what /dev/shm has free now, a quarter
     * of it committed at once and a quarter left to first touch (a tmpfs
     * without a size limit reports no blocks: no limit then). */
    struct statvfs st;
    lazy_budget = SIZE_MAX;
    if (!fstatvfs(heap_fd, &st) && st.f_blocks) {
        shm_reserve = (size_t)st.f_bavail * st.f_frsize / 2;
        lazy_pool = shm_reserve / 2;
        lazy_budget = lazy_pool / (size_t)node_size;
    }
    wisp_log(2, "shared heap: /dev/shm keeps %zu MiB free for others", shm_reserve >> 20);
    interleave_init();
    char *base = map_everywhere(node, node_rank, node_size, total);
    if (!base)
        return heap_off(node_rank, "no address range is free in every process");

    unsigned arena;
    size_t arena_size = sizeof arena;
    extent_hooks_t *hooks = &partition_hooks;
    wisp_shm_heap = (struct wisp_shm_heap){
        .base = base, .partition_size = partition, .nparts = node_size, .my_part = node_rank};
    /* The arena's own metadata is its first extent: no room for it in
     * /dev/shm (or in its reserve), or for the chunk table, turns the heap
     * off, not the job. */
    bool made = wisp_shm_fault_table_map(heap_fd, total) &&
                !je_mallctl("arenas.create", &arena, &arena_size, &hooks, sizeof hooks);
    if (!wisp_shm_all_agree(made, node)) {
        if (made) { /* jemalloc would still visit it (at a fork), its metadata unmapped */
            char ctl[64];
            snprintf(ctl, sizeof ctl, "arena.%u.destroy", arena);
            if (je_mallctl(ctl, NULL, NULL, NULL, 0))
                wisp_fatal("jemalloc could not destroy the shared-heap arena");
        }
        munmap(base, total);
        wisp_shm_fault_table_unmap(total);
        wisp_shm_heap = (struct wisp_shm_heap){0};
        used = 0;
        full_reported = false;
        return heap_off(node_rank, "no room in /dev/shm for the first extent of every partition");
    }
    mallocx_flags = MALLOCX_ARENA(arena) | MALLOCX_TCACHE_NONE;
    /* Freed pages can never be returned (no purge hooks): skip the decay
     * bookkeeping that would try. */
    ssize_t never = -1;
    char ctl[64];
    snprintf(ctl, sizeof ctl, "arena.%u.dirty_decay_ms", arena);
    je_mallctl(ctl, NULL, NULL, &never, sizeof never);
    snprintf(ctl, sizeof ctl, "arena.%u.muzzy_decay_ms", arena);
    je_mallctl(ctl, NULL, NULL, &never, sizeof never);
    /* Extents grow geometrically; past this, by what is asked: the
     * partition's address space is not spent on ranges never used. */
    size_t grow_limit = RETAIN_GROW_LIMIT;
    snprintf(ctl, sizeof ctl, "arena.%u.retain_grow_limit", arena);
    je_mallctl(ctl, NULL, NULL, &grow_limit, sizeof grow_limit);
    if (pthread_key_create(&tcache_key, tcache_destroy))
        wisp_fatal("no pthread key left for the shared heap's thread caches");
    wisp_shm_callers_init();
    wisp_shm_fault_start(heap_fd);
    wisp_shm_heap.serving = true;
    if (node_rank == 0)
        wisp_log(1, "shared heap at %p: %d partition%s of %zu MiB; %s", (void *)base, node_size,
                 wisp_plural(node_size), partition >> 20,
                 serves_malloc ? "malloc and MPI_Alloc_mem served from it"
                               : "only MPI_Alloc_mem served from it (another malloc was loaded "
                                 "before wisp)");
}

void wisp_shm_heap_stop(void)
{
    wisp_shm_heap.serving = false;
    size_t pages = wisp_shm_fault_private_pages();
    if (pages)
        wisp_log(1,
                 "shared heap: %zu page%s that /dev/shm could not back became private to this "
                 "process",
                 pages, wisp_plural((long long)pages));
}

void *wisp_shm_heap_alloc(size_t size, size_t alignment, bool zero)
{
    if (!wisp_shm_heap.serving)
        return NULL;
    int flags =
        thread_flags() | (zero ? MALLOCX_ZERO : 0) | (alignment ? MALLOCX_ALIGN(alignment) : 0);
    return je_mallocx(size ? size : 1, flags);
}

void *wisp_shm_heap_realloc(void *p, size_t size)
{
    if (!wisp_shm_heap.serving)
        return NULL;
    return je_rallocx(p, size ? size : 1, thread_flags());
}

void wisp_shm_heap_free(void *p)
{
    /* Only the allocating process frees (also after MPI_Finalize); a forked
     * child leaves the parent's partition alone. */
    if (wisp_shm_heap_owns(p) && !forked)
        je_dallocx(p, wisp_shm_heap.serving ? thread_flags() : mallocx_flags);
}

size_t wisp_shm_heap_usable_size(const void *p)
{
    return je_sallocx(p, 0);
}
