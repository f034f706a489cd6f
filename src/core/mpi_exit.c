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

#include "core/export.h"
#include "core/mpi_impl.h"

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

void wisp_core_mpi_exit_run(void)
{
    if (!wisp_core_mpich_at_least(5)) /* from its library: also beneath the ABI, not Intel MPI */
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
