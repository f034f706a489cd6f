/*
 * The MPI's own exit handlers. MPICH 5 sends its process manager PMI's
 * finalize message from an atexit handler registered inside PMPI_Init, not
 * from MPI_Finalize. A ghost leaves by _exit, so that none of the
 * application's handlers runs in it; Hydra then took the ghost's end for a
 * crash and killed the job (tests/mpi/quirk_exit_after_finalize.c shows
 * it natively). So libwisp defines __cxa_atexit, which glibc's atexit
 * calls through the PLT, passes every registration on, and remembers the
 * ones made while wisp is inside PMPI_Init: those the ghost runs before
 * its _exit, and only those. MPICH 4.0.2, Intel MPI and Open MPI finalize
 * in MPI_Finalize: their handlers are left alone.
 */
#include "core/mpi_exit.h"

#include <dlfcn.h>
#include <mpi.h>
#include <stdatomic.h>
#include <stdio.h>

#include "core/export.h"

enum { MAX_HANDLERS = 16 };

static struct handler {
    void (*fn)(void *);
    void *arg;
} handlers[MAX_HANDLERS];
static _Atomic int nhandlers;
static _Atomic bool recording;

void wisp_core_mpi_exit_recording(bool on)
{
    atomic_store(&recording, on);
}

/* Does the MPI finalize in an exit handler? MPICH 5 does: its version from
 * its mpi.h, or, built for the standard ABI, from its library. */
static bool finalizes_at_exit(void)
{
#if defined(MPICH_NUMVERSION)
    return MPICH_NUMVERSION >= 50000000;
#elif defined(MPI_ABI_VERSION)
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int len = 0, major = 0;
    return PMPI_Get_library_version(version, &len) == MPI_SUCCESS &&
           sscanf(version, "MPICH Version: %d", &major) == 1 && major >= 5;
#else
    return false;
#endif
}

void wisp_core_mpi_exit_run(void)
{
    if (!finalizes_at_exit())
        return;
    int n = atomic_load(&nhandlers);
    for (int i = (n < MAX_HANDLERS ? n : MAX_HANDLERS) - 1; i >= 0; i--)
        handlers[i].fn(handlers[i].arg);
}

WISP_EXPORT int __cxa_atexit(void (*fn)(void *), void *arg, void *dso)
{
    static int (*next)(void (*)(void *), void *, void *);
    if (!next)
        *(void **)&next = dlsym(RTLD_NEXT, "__cxa_atexit");
    if (atomic_load_explicit(&recording, memory_order_relaxed)) {
        int i = atomic_fetch_add(&nhandlers, 1);
        if (i < MAX_HANDLERS)
            handlers[i] = (struct handler){fn, arg};
    }
    return next ? next(fn, arg, dso) : -1;
}
