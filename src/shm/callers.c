/*
 * The MPI's own code, whose allocations the shared heap leaves to glibc.
 *
 * The heap exists so that an application's buffers can be read by the other
 * processes of the node. Memory the MPI allocates for itself (MPICH and UCX
 * allocate per operation, Open MPI per fragment) never carries a user's
 * message through wisp: served from the heap it only costs more (jemalloc's
 * explicit-arena calls, tmpfs pages; docs/results/2026-11-28-heap-cost.md).
 * So malloc asks, by its return address, whether the caller's code is the
 * MPI's: the MPI library (the object of PMPI_Init) and every object that only
 * the MPI brought in, that is
 *   - its dependencies (DT_NEEDED, transitively) that nothing else loaded
 *     needs except through the MPI: UCX, libfabric, hwloc, Open MPI's
 *     open-pal and open-rte, ...;
 *   - objects loaded by dlopen that depend on one of those: UCX's transports,
 *     Open MPI's components.
 * A library the application also uses itself (libc, libgfortran, an hwloc
 * it calls) stays the application's, and so does the MPI's Fortran layer,
 * which the program links directly. The set is taken once, at MPI_Init,
 * after the MPI's own start has loaded its components; an object loaded
 * later counts as the application's. The answer never changes what a
 * program computes, only where its memory lives.
 */
#include "shm/callers.h"

#include <dlfcn.h>
#include <elf.h>
#include <stdatomic.h>
#include <link.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "core/log.h"

enum { MAX_OBJECTS = 512, MAX_EDGES = 8192, MAX_RANGES = 256 };

struct object {
    const char *name; /* its path as loaded ("" for the program) */
    uintptr_t base;
    const ElfW(Phdr) * phdr;
    int phnum;
};

static struct object objects[MAX_OBJECTS];
static int nobjects;
/* What each object names in DT_NEEDED, among the loaded ones: object i's
 * are edge[first_edge[i] .. first_edge[i + 1]). */
static int edge[MAX_EDGES], first_edge[MAX_OBJECTS + 1];
/* Per object: named in another's DT_NEEDED; the application's (the program
 * and what it needs, not through the MPI library); the MPI's. */
static bool needed[MAX_OBJECTS], app[MAX_OBJECTS], mpi[MAX_OBJECTS];

/* The executable ranges of the MPI's objects, sorted, not overlapping. */
static struct range {
    uintptr_t lo, hi;
} ranges[MAX_RANGES];
static int nranges;

/* Answers by call site, direct-mapped: the address with bit 63 set for
 * the MPI's (user addresses never have it). Shared by the threads, relaxed:
 * a slot holds one whole answer or another. */
enum { SEEN_SLOTS = 256 };
static _Atomic uint64_t seen[SEEN_SLOTS];
#define MPI_BIT ((uint64_t)1 << 63)

static int collect(struct dl_phdr_info *info, size_t size, void *unused)
{
    (void)size, (void)unused;
    if (nobjects == MAX_OBJECTS)
        return 1;
    objects[nobjects++] = (struct object){.name = info->dlpi_name ? info->dlpi_name : "",
                                          .base = info->dlpi_addr,
                                          .phdr = info->dlpi_phdr,
                                          .phnum = info->dlpi_phnum};
    return 0;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The loaded object whose file is named `soname`, or -1. */
static int object_named(const char *soname)
{
    for (int i = 0; i < nobjects; i++)
        if (*objects[i].name && !strcmp(base_name(objects[i].name), soname))
            return i;
    return -1;
}

/* Appends the loaded objects that object i names in DT_NEEDED to edge[],
 * from edge[n]; returns the new count. The dynamic linker relocated the
 * string table's address in the dynamic section on this platform; an
 * unrelocated one is offset here. */
static int add_edges(int i, int n)
{
    const struct object *o = &objects[i];
    const ElfW(Dyn) *dyn = NULL;
    for (int p = 0; p < o->phnum; p++)
        if (o->phdr[p].p_type == PT_DYNAMIC)
            dyn = (const ElfW(Dyn) *)(o->base + o->phdr[p].p_vaddr);
    if (!dyn || !strcmp(o->name, "linux-vdso.so.1"))
        return n;
    uintptr_t strtab = 0;
    for (const ElfW(Dyn) *d = dyn; d->d_tag != DT_NULL; d++)
        if (d->d_tag == DT_STRTAB)
            strtab = d->d_un.d_ptr < o->base ? d->d_un.d_ptr + o->base : d->d_un.d_ptr;
    for (const ElfW(Dyn) *d = dyn; strtab && d->d_tag != DT_NULL && n < MAX_EDGES; d++) {
        int j = d->d_tag == DT_NEEDED ? object_named((const char *)strtab + d->d_un.d_val) : -1;
        if (j >= 0 && j != i)
            edge[n++] = j;
    }
    return n;
}

/* Marks object i and what it needs, transitively, in set[]; never enters
 * `stop` or an object marked in block[] (NULL: none). */
static void spread(bool set[], int i, int stop, const bool block[])
{
    int todo[MAX_OBJECTS], n = 0; /* each object is pushed once: marked as it is */
    if (i == stop || set[i] || (block && block[i]))
        return;
    set[i] = true;
    todo[n++] = i;
    while (n > 0) {
        int at = todo[--n];
        for (int k = first_edge[at]; k < first_edge[at + 1]; k++) {
            int j = edge[k];
            if (j != stop && !set[j] && !(block && block[j])) {
                set[j] = true;
                todo[n++] = j;
            }
        }
    }
}

/* Does root i need an object of the MPI's other than the MPI library? */
static bool is_component(int i, int library)
{
    for (int k = first_edge[i]; k < first_edge[i + 1]; k++)
        if (edge[k] != library && mpi[edge[k]])
            return true;
    return false;
}

static int by_lo(const void *a, const void *b)
{
    const struct range *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static void add_ranges(const struct object *o)
{
    for (int p = 0; p < o->phnum && nranges < MAX_RANGES; p++)
        if (o->phdr[p].p_type == PT_LOAD && (o->phdr[p].p_flags & PF_X))
            ranges[nranges++] = (struct range){o->base + o->phdr[p].p_vaddr,
                                               o->base + o->phdr[p].p_vaddr + o->phdr[p].p_memsz};
}

/* The index of the loaded object that holds `code`, or -1. */
static int object_of(const void *code)
{
    struct dl_find_object found;
    if (!code || _dl_find_object((void *)code, &found))
        return -1;
    for (int i = 0; i < nobjects; i++)
        if (objects[i].base == found.dlfo_link_map->l_addr &&
            !strcmp(objects[i].name, found.dlfo_link_map->l_name))
            return i;
    return -1;
}

void wisp_shm_callers_init(void)
{
    nobjects = nranges = 0;
    if (wisp_config.HEAP_MPI == WISP_HEAP_MPI_SHARED)
        return;
    dl_iterate_phdr(collect, NULL);
    /* The MPI's PMPI_Init: the next after libwisp, which exports one too. */
    int library = object_of(dlsym(RTLD_NEXT, "PMPI_Init")), program = -1;
    int self = object_of((const void *)wisp_shm_callers_init);
    for (int i = 0; i < nobjects; i++) {
        needed[i] = app[i] = mpi[i] = false;
        if (!*objects[i].name && program < 0)
            program = i;
    }
    if (library < 0 || library == program)
        return; /* the MPI linked into the program: its code is the program's */
    for (int i = 0; i < nobjects; i++)
        first_edge[i + 1] = add_edges(i, first_edge[i]);
    for (int k = 0; k < first_edge[nobjects]; k++)
        needed[edge[k]] = true;
    if (program >= 0)
        spread(app, program, library, NULL);
    spread(mpi, library, -1, app);
    /* The roots other than the program (dlopened): the MPI's components,
     * then the application's modules, which keep what they need. */
    for (int i = 0; i < nobjects; i++)
        if (!needed[i] && i != program && i != library && i != self && !mpi[i] &&
            is_component(i, library))
            spread(mpi, i, -1, app);
    for (int i = 0; i < nobjects; i++)
        if (!needed[i] && i != program && i != self && !mpi[i])
            spread(app, i, library, NULL);
    int left = 0;
    for (int i = 0; i < nobjects; i++)
        /* wisp's own allocations (a copy set aside) stay in the heap */
        if (mpi[i] && i != self && (i == library || !app[i])) {
            add_ranges(&objects[i]);
            left++;
            wisp_log(3, "shared heap: allocations from %s are left to glibc", objects[i].name);
        }
    wisp_log(2,
             "shared heap: allocations from the MPI's own code (%s and %d more objects) are "
             "left to glibc (WISP_HEAP_MPI)",
             objects[library].name, left - 1);
    qsort(ranges, (size_t)nranges, sizeof *ranges, by_lo);
    for (int i = 0; i < SEEN_SLOTS; i++)
        atomic_store_explicit(&seen[i], 0, memory_order_relaxed);
}

static bool look_up(uintptr_t pc)
{
    int lo = 0, hi = nranges;
    while (lo < hi) { /* the first range that ends above pc */
        int mid = (lo + hi) / 2;
        if (ranges[mid].hi <= pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < nranges && ranges[lo].lo <= pc;
}

bool wisp_shm_caller_is_mpi(const void *caller)
{
    uintptr_t pc = (uintptr_t)caller;
    _Atomic uint64_t *slot = &seen[(pc ^ (pc >> 8)) % SEEN_SLOTS];
    uint64_t known = atomic_load_explicit(slot, memory_order_relaxed);
    if ((known & ~MPI_BIT) == pc)
        return known & MPI_BIT;
    bool by_mpi = look_up(pc);
    atomic_store_explicit(slot, pc | (by_mpi ? MPI_BIT : 0), memory_order_relaxed);
    return by_mpi;
}
