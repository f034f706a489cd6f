/*
 * The idle-thread team as a component (core/component.h): sized at
 * MPI_Init from the configuration and the process's share of the machine,
 * said with WISP_VERBOSE, stopped at MPI_Finalize, its counters read by
 * core.
 */
#include "team/team.h"

#include <string.h>

#include "core/config.h"
#include "core/log.h"
#include "core/topo.h"

void wisp_team_start(int thread_level)
{
    (void)thread_level;
    const char *runtime;
    int share = 0; /* unknown */
    if (wisp_topo.machine_procs > 0)
        share = wisp_topo.machine_cores > wisp_topo.machine_procs
                    ? wisp_topo.machine_cores / wisp_topo.machine_procs
                    : 1;
    int team = wisp_team_init((int)wisp_config.DT_THREADS, share,
                              (uint64_t)wisp_config.DT_THREADS_MIN, &runtime);
    int level = wisp_topo.node_rank == 0 ? 1 : 2; /* level 1: the node's leader speaks */
    if (team > 1 && share > 0 && team > share)
        wisp_log(level,
                 "datatype engine: WISP_DT_THREADS=%d is more than this process's share of the "
                 "machine's cores (%d): its threads take turns with the other processes' (auto "
                 "would take %d)",
                 team, share, share);
    const char *inside = wisp_team_ompt_why_not();
    if (team > 1 && !inside)
        wisp_log(level,
                 "datatype engine: %d threads of %s's pool share packs, one per %lld bytes of "
                 "work, outside parallel regions, and inside them threads waiting at a "
                 "barrier (OMPT)",
                 team, runtime, (long long)wisp_config.DT_THREADS_MIN);
    else if (team > 1)
        wisp_log(level,
                 "datatype engine: %d threads of %s's pool share packs, one per %lld bytes of "
                 "work, outside parallel regions only (%s)",
                 team, runtime, (long long)wisp_config.DT_THREADS_MIN,
                 !strcmp(runtime, "libgomp") ? "libgomp has no OMPT to find idle threads inside"
                                             : inside);
    else if (wisp_config.DT_THREADS != 1)
        wisp_log(level, "datatype engine: %s: packs on the calling thread alone",
                 runtime ? "one OpenMP thread, or one core per process"
                         : "no OpenMP runtime in the process");
}

void wisp_team_stop(void)
{
    wisp_team_ompt_enable(1); /* no thread parks at barriers after MPI_Finalize */
}

uint64_t wisp_team_counter(const char *name)
{
    struct wisp_team_ompt_counts c;
    wisp_team_ompt_counts(&c);
    return !name                            ? 0
           : !strcmp(name, "shared_inside") ? c.shared
           : !strcmp(name, "parked_ranges") ? c.ranges
           : !strcmp(name, "parked_bytes")  ? c.bytes
                                            : 0;
}
