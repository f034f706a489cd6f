/*
 * The node's collectives' start and stop (core/component.h): the settings
 * read, the limits of WISP_COLL=auto, the attribute key that carries a
 * communicator's view; at the stop every area let go of.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "coll/area.h"
#include "coll/coll.h"
#include "coll/nb.h"
#include "coll/op.h"
#include "coll/persist.h"
#include "coll/view.h"
#include "core/config.h"
#include "core/topo.h"

/*
 * WISP_COLL=auto: the sizes (bytes) each collective takes through the heap,
 * from the figures of docs/coll.md ("The decision under WISP_COLL=auto"):
 * bench/coll, 2 processes on this machine's 2 cores, both MPIs. Where
 * wisp's was below 0.97x the MPI's the MPI keeps the call, up to the
 * smallest size measured on a quiet machine where wisp's won (64 KiB: the
 * sizes between are not measured quiet yet). WISP_COLL=on differs only
 * where a limit is set here.
 */
#define AUTO_BCAST_MIN     0
#define AUTO_REDUCE_MIN    0
#define AUTO_ALLREDUCE_MIN 0
#define AUTO_BCAST_MAX     UINT64_MAX
#define AUTO_REDUCE_MAX    UINT64_MAX
#define AUTO_ALLREDUCE_MAX UINT64_MAX
/* MPI_Gather and MPI_Scatter (a block's bytes), MPI_Allgather(v) (the
 * largest block's), MPI_Gatherv and MPI_Scatterv (on or off: only the root
 * knows the sizes). A small gather's root waits for every block, which the
 * MPIs' members send and leave; a small MPI_Gatherv or MPI_Scatterv costs a
 * member a wait for the root's first phase (the rounds that follow): the v
 * forms are off. Open MPI's own small scatter beat wisp's. */
#define AUTO_GATHER_MIN 65536
#define AUTO_GATHER_MAX UINT64_MAX
#ifdef OPEN_MPI
#define AUTO_SCATTER_MIN 65536
#else
#define AUTO_SCATTER_MIN 0
#endif
#define AUTO_SCATTER_MAX   UINT64_MAX
#define AUTO_ALLGATHER_MIN 0
#define AUTO_ALLGATHER_MAX UINT64_MAX
#define AUTO_GATHERV       false
#define AUTO_SCATTERV      false
/* MPI_Alltoall (a block's bytes), MPI_Alltoallv and MPI_Alltoallw (on or
 * off: no size is alike in every member), MPI_Reduce_scatter(_block) (the
 * whole vector's bytes), MPI_Scan and MPI_Exscan. The small v and w forms
 * lost to the MPIs': off. Open MPI's own small MPI_Alltoall beat wisp's. */
#ifdef OPEN_MPI
#define AUTO_ALLTOALL_MIN 65536
#else
#define AUTO_ALLTOALL_MIN 0
#endif
#define AUTO_ALLTOALL_MAX       UINT64_MAX
#define AUTO_ALLTOALLV          false
#define AUTO_REDUCE_SCATTER_MIN 0
#define AUTO_REDUCE_SCATTER_MAX UINT64_MAX
#define AUTO_SCAN_MIN           0
#define AUTO_SCAN_MAX           UINT64_MAX

/* A child of fork() has the parent's areas as a private copy: it leaves
 * every collective to the MPI (if it calls one at all). */
static void forked(void)
{
    wisp_coll.on = false;
}

void wisp_coll_start(int thread_level)
{
    (void)thread_level; /* every thread works on its own communicators' areas */
    static bool handler;
    if (!handler)
        handler = pthread_atfork(NULL, NULL, forked) == 0;
    if (wisp_config.COLL == WISP_COLL_OFF || !wisp_config.SHM)
        return;
    wisp_coll.all = wisp_config.COLL == WISP_COLL_ON;
    wisp_coll.after = (unsigned)wisp_config.COLL_AFTER;
    wisp_coll.stage = (uint64_t)wisp_config.COLL_STAGE;
    wisp_coll.single_copy_min = (uint64_t)wisp_config.COLL_SINGLE_COPY;
    wisp_coll.neighbor_min = (uint64_t)wisp_config.COLL_NEIGHBOR;
    wisp_coll.sleepy = wisp_topo_oversubscribed();
    wisp_coll.bcast_max = wisp_coll.all ? UINT64_MAX : AUTO_BCAST_MAX;
    wisp_coll.reduce_max = wisp_coll.all ? UINT64_MAX : AUTO_REDUCE_MAX;
    wisp_coll.allreduce_max = wisp_coll.all ? UINT64_MAX : AUTO_ALLREDUCE_MAX;
    wisp_coll.bcast_min = wisp_coll.all ? 0 : AUTO_BCAST_MIN;
    wisp_coll.reduce_min = wisp_coll.all ? 0 : AUTO_REDUCE_MIN;
    wisp_coll.allreduce_min = wisp_coll.all ? 0 : AUTO_ALLREDUCE_MIN;
    wisp_coll.gather_min = wisp_coll.all ? 0 : AUTO_GATHER_MIN;
    wisp_coll.gather_max = wisp_coll.all ? UINT64_MAX : AUTO_GATHER_MAX;
    wisp_coll.scatter_min = wisp_coll.all ? 0 : AUTO_SCATTER_MIN;
    wisp_coll.scatter_max = wisp_coll.all ? UINT64_MAX : AUTO_SCATTER_MAX;
    wisp_coll.allgather_min = wisp_coll.all ? 0 : AUTO_ALLGATHER_MIN;
    wisp_coll.allgather_max = wisp_coll.all ? UINT64_MAX : AUTO_ALLGATHER_MAX;
    wisp_coll.gatherv = wisp_coll.all || AUTO_GATHERV;
    wisp_coll.scatterv = wisp_coll.all || AUTO_SCATTERV;
    wisp_coll.alltoall_min = wisp_coll.all ? 0 : AUTO_ALLTOALL_MIN;
    wisp_coll.alltoall_max = wisp_coll.all ? UINT64_MAX : AUTO_ALLTOALL_MAX;
    wisp_coll.alltoallv = wisp_coll.all || AUTO_ALLTOALLV;
    wisp_coll.reduce_scatter_min = wisp_coll.all ? 0 : AUTO_REDUCE_SCATTER_MIN;
    wisp_coll.reduce_scatter_max = wisp_coll.all ? UINT64_MAX : AUTO_REDUCE_SCATTER_MAX;
    wisp_coll.scan_min = wisp_coll.all ? 0 : AUTO_SCAN_MIN;
    wisp_coll.scan_max = wisp_coll.all ? UINT64_MAX : AUTO_SCAN_MAX;
    wisp_coll_op_init();
    wisp_coll_views_init();
    wisp_coll_nb_start();
    wisp_coll_persist_start();
    wisp_coll.on = true;
}

uint64_t wisp_coll_counter_of(const char *name)
{
    if (!strcmp(name, "served"))
        return atomic_load_explicit(&wisp_coll.served, memory_order_relaxed);
    if (!strcmp(name, "passed"))
        return atomic_load_explicit(&wisp_coll.passed, memory_order_relaxed);
    if (!strcmp(name, "no_room"))
        return atomic_load_explicit(&wisp_coll.no_room, memory_order_relaxed);
    return 0;
}

void wisp_coll_stop(void)
{
    if (!wisp_coll.on)
        return;
    wisp_coll.on = false;
    wisp_coll_persist_stop();
    wisp_coll_views_fini();
    wisp_coll_nb_stop();
}
