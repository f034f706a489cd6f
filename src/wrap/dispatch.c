/*
 * The dispatch tables. `wisp_impl` holds, per MPI function, PMPI_X or the
 * hand-written wisp_impl_MPI_X that tools/gen_wrappers.py found (listed in
 * gen/impls.def); `wisp_serve`, what serves a call, starts as a copy of it
 * and becomes `wisp_hooked` while hooks are on, or takes the slots of
 * `wisp_watched` while a watcher alone needs them; `wisp_entry`, what the
 * exported wrappers jump through, is `wisp_serve` but for the slots of a
 * profiling tool after libwisp (src/wrap/pmpi.h). This file moves their
 * slots; `wisp_impl` is defined with the routes (gen/routes.c) and
 * `wisp_entry` with the wrappers (gen/wrappers.c), the files that read them.
 */

#include "mpi/calls.h"
#include "wisp_have.h" /* WISP_HAVE_MPI_*: gen/groups.def */
#include "wrap/impls.h"
#include "wrap/wrap.h"

#pragma GCC diagnostic ignored "-Woverride-init" /* impls override defaults */

struct wisp_dispatch wisp_serve =
#include "wrap/implementations.inc"
    ;

struct wisp_dispatch wisp_next; /* src/wrap/pmpi.h */

/* A slot of `wisp_serve`, and of `wisp_entry` unless a tool's MPI_X after
 * libwisp takes the application's calls first. */
#define SET(f, value)                                                                              \
    do {                                                                                           \
        __typeof__(wisp_serve.f) v_ = (value);                                                     \
        __atomic_store_n(&wisp_serve.f, v_, __ATOMIC_RELAXED);                                     \
        __atomic_store_n(&wisp_entry.f, wisp_next.f ? wisp_next.f : v_, __ATOMIC_RELAXED);         \
    } while (0)

/* The MPI's function itself where a slot holds wisp's call into it
 * (wisp_mpi_PMPI_X, src/mpi/calls.h, which looks it up first): one jump per
 * call. */
#define MPI_OWN(f) (wisp_mpi.P##f)

void wisp_wrap_mpi_found(void)
{
#define WISP_FN(f)                                                                                 \
    if (wisp_impl.f == P##f)                                                                       \
        wisp_impl.f = MPI_OWN(f);                                                                  \
    SET(f, wisp_serve.f == P##f ? MPI_OWN(f) : wisp_serve.f);
#include "present.def"
#undef WISP_FN
}

/*
 * Functions that are the MPI's own until wisp has something to do in them:
 * their slots of `wisp_serve` hold PMPI_X until then, so the call costs one
 * jump, not even a look at each request handle, communicator or window.
 * The route tables mark them `until GROUP` (src/p2p/routes.def):
 * - WISP_CORE_REQUESTS, the polls and waits, until wisp makes its first
 *   request (a loop of MPI_Testany over the MPI's receives);
 * - WISP_CORE_SERVED, sends, receives and probes, until wisp serves its
 *   first communicator (one process, WISP_VNODE_SIZE=1, WISP_SHM=off);
 * - WISP_CORE_WINDOWS, the one-sided operations, until a ghost serves a
 *   window of this process or ULTs run (whose operations become requests):
 *   a get of one double costs the MPI 20-40 ns on a node.
 * Each begins before the first handle of wisp's, the served communicator or
 * the served window exists anywhere, so no call can hold one and the MPI's
 * function.
 */
static bool begun[WISP_CORE_GROUPS], hooked, watching;

/* What a slot holds once its group has begun, unless hooked: the watched
 * path where the watcher needs the function (before then too, or it would
 * miss the call), else the implementation. */
#define WATCHED(f) (watching && wisp_watched.f)
#define BEGUN(f)   (WATCHED(f) ? wisp_watched.f : wisp_impl.f)

/* The slots of `group`'s functions (gen/groups.def, from the lines marked
 * `until GROUP` in the route tables): the MPI's own, or as begun. */
static void point(enum wisp_core_group group, bool mpi)
{
#define WISP_GROUP(g, f)                                                                           \
    if (group == WISP_CORE_##g)                                                                    \
        SET(f, (mpi && !WATCHED(f)) ? MPI_OWN(f) : BEGUN(f));
#include "gen/groups.def"
#undef WISP_GROUP
}

void wisp_wrap_hooks_enable(enum wisp_core_hooks hooks)
{
    hooked = hooks == WISP_CORE_HOOK_ALL;
    watching = hooks == WISP_CORE_WATCH;
    if (hooked) {
#define WISP_FN(f) SET(f, wisp_hooked.f);
#include "present.def"
#undef WISP_FN
        return;
    }
#define WISP_FN(f) SET(f, BEGUN(f));
#include "present.def"
#undef WISP_FN
    for (int g = 0; g < WISP_CORE_GROUPS; g++)
        if (!__atomic_load_n(&begun[g], __ATOMIC_ACQUIRE))
            point((enum wisp_core_group)g, true);
}

void wisp_wrap_begin(enum wisp_core_group group)
{
    if (__atomic_exchange_n(&begun[group], true, __ATOMIC_ACQ_REL))
        return;
    if (!hooked) /* hooked: every slot calls wisp_impl already */
        point(group, false);
}
