/*
 * The wrapper layer (src/wrap) as core and the components reach it: it sits
 * above them all, so they know it only through this table, which
 * src/components.c fills in beside the components' own (component.h). core
 * enables the hooks at MPI_Init and MPI_Finalize; a component begins a group
 * of functions, or calls what serves an MPI function, through it.
 */
#ifndef WISP_CORE_WRAPPER_H
#define WISP_CORE_WRAPPER_H

#include <mpi.h>

#pragma GCC visibility push(hidden)

/* One slot per MPI function that the underlying MPI declares and defines
 * (present.def, generated at configure time): the type of the dispatch
 * tables (src/wrap/wrap.h). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations" /* MPI-1 functions have slots too */
struct wisp_dispatch {
#define WISP_FN(f) __typeof__(P##f) *f;
#include "present.def"
#undef WISP_FN
};
#pragma GCC diagnostic pop

/* Route no call through hooks, only the calls with an event through the
 * watched path, or every call through its hooks (translation, accounting,
 * events). */
enum wisp_core_hooks { WISP_CORE_DIRECT, WISP_CORE_WATCH, WISP_CORE_HOOK_ALL };
/* Groups of functions that are the MPI's own until wisp has something to do
 * in them (src/wrap/dispatch.c): its first request, its first served
 * communicator, its first served window. */
enum wisp_core_group { WISP_CORE_REQUESTS, WISP_CORE_SERVED, WISP_CORE_WINDOWS, WISP_CORE_GROUPS };

struct wisp_core_wrapper {
    /* Called only while no other thread can be inside MPI (MPI_Init,
     * MPI_Finalize). */
    void (*hooks_enable)(enum wisp_core_hooks hooks);
    /* Before the first handle of wisp's (a request, a served communicator or
     * window) exists anywhere. */
    void (*begin)(enum wisp_core_group group);
    /* At MPI_Init, from world rank 0: at WISP_VERBOSE=1, the other
     * profiling-interface tools found. */
    void (*tools_report)(void);
    /* What serves each MPI function (wisp_impl: PMPI_X or wisp's own
     * implementation), which the application's calls reach after the hooks. */
    const struct wisp_dispatch *impl;
};
extern const struct wisp_core_wrapper wisp_core_wrapper;

static inline void wisp_core_begin(enum wisp_core_group group)
{
    wisp_core_wrapper.begin(group);
}

#pragma GCC visibility pop

#endif
