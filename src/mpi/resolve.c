/*
 * Finding the MPI's own PMPI_X: the next definition after libwisp
 * (RTLD_NEXT), which is the MPI's whether or not a profiling tool defines
 * MPI_X too (tools define MPI_X and call PMPI_X; the wrapper layer finds
 * them, src/wrap/tools.c). Also the range of the MPI's library in memory,
 * for telling the MPI's calls of its own PMPI_X from a tool's.
 */
#include "mpi/calls.h"

#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct wisp_mpi_functions wisp_mpi;

static uintptr_t mpi_lo, mpi_hi; /* the MPI library's mapped range */

#ifndef MPI_ABI_VERSION
/* A name the linker must find in the MPI's library: wisp reaches the MPI's
 * functions through dlsym, and with libwisp.a linked into a program nothing
 * else names the library, which --as-needed would then leave out. */
__attribute__((used)) static void *const names_the_mpi = (void *)MPI_COMM_DUP_FN;

static void *mpi_library(void)
{
    return NULL;
}
#else
/* The MPI-5 standard ABI names nothing that libwisp does not define too
 * (its predefined functions are constants), so --as-needed drops the MPI's
 * library from libwisp's and from a program's NEEDED: where the program's
 * own libraries did not load it, wisp loads it by the ABI's name. */
static void *mpi_library(void)
{
    static void *handle;
    if (!handle && !(handle = dlopen("libmpi_abi.so.1", RTLD_NOW | RTLD_GLOBAL))) {
        fprintf(stderr, "wisp: cannot load the MPI-5 ABI's library: %s\n", dlerror());
        abort();
    }
    return handle;
}
#endif

static void *find(const char *pname)
{
    void *f = dlsym(RTLD_NEXT, pname);
    if (!f && mpi_library())
        f = dlsym(mpi_library(), pname);
    if (!f) { /* the MPI defines what its mpi.h declared at build time */
        fprintf(stderr, "wisp: the MPI has no %s (libwisp was built for another MPI?)\n", pname);
        abort();
    }
    return f;
}

/* The mapped range of the object that holds `f` (_dl_find_object, not
 * dladdr: see src/wrap/tools.c); false when none does. */
static bool range_of(const void *f, uintptr_t *lo, uintptr_t *hi)
{
    struct dl_find_object found;
    if (!f || _dl_find_object((void *)f, &found))
        return false;
    *lo = (uintptr_t)found.dlfo_map_start;
    *hi = (uintptr_t)found.dlfo_map_end;
    return true;
}

bool wisp_mpi_in_library(const void *address)
{
    return (uintptr_t)address >= mpi_lo && (uintptr_t)address < mpi_hi;
}

void wisp_mpi_resolve_once(void)
{
    static bool done;
    if (done)
        return;
    done = true;
#define WISP_FN(f) wisp_mpi.P##f = (__typeof__(wisp_mpi.P##f))find("P" #f);
#include "present.def"
#undef WISP_FN
    range_of((const void *)wisp_mpi.PMPI_Init, &mpi_lo, &mpi_hi);
}
