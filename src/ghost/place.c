/*
 * Where ghosts run (WISP_GHOST_BIND). A ghost works on the memory of the
 * application processes bound to it (local index modulo the ghosts), which
 * Linux places on the NUMA node where each of them first touches it, so the
 * ghost belongs on the NUMA node where most of them run. With =numa it is
 * bound to that NUMA node's cores; with =core to one of its cores, counted
 * from the last one (launchers fill cores from the first), one per ghost of
 * the node placed there; with =none (the default) it is left where it was
 * launched and only WISP_VERBOSE=2 tells where it would belong. The binding
 * is read back from the kernel (sched_getaffinity) for that message.
 */
#include <hwloc.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/config.h"
#include "core/log.h"
#include "ghost/board.h"
#include "ghost/place.h"

static hwloc_topology_t load(void)
{
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo))
        return NULL;
    if (hwloc_topology_load(topo)) {
        hwloc_topology_destroy(topo);
        return NULL;
    }
    return topo;
}

/* The NUMA node (logical index) of the cores this process is bound to, or
 * where it runs now when it may run anywhere. */
static int numa_of(hwloc_topology_t topo, hwloc_const_bitmap_t cpus)
{
    int n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
    for (int i = 0; i < n; i++) {
        hwloc_obj_t numa = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, (unsigned)i);
        if (numa->cpuset && hwloc_bitmap_intersects(numa->cpuset, cpus))
            return i;
    }
    return 0;
}

int wisp_ghost_numa_here(void)
{
    hwloc_topology_t topo = load();
    if (!topo)
        return 0;
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    int where = 0;
    if (set && !hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_PROCESS)) {
        if (hwloc_bitmap_isequal(set, hwloc_topology_get_allowed_cpuset(topo)))
            hwloc_get_last_cpu_location(topo, set, HWLOC_CPUBIND_THREAD);
        where = numa_of(topo, set);
    }
    hwloc_bitmap_free(set);
    hwloc_topology_destroy(topo);
    return where;
}

/* The CPUs the kernel lets this process run on, as a list "0-3,8". */
static void affinity(char *buf, size_t len)
{
    cpu_set_t set;
    buf[0] = '\0';
    if (sched_getaffinity(0, sizeof set, &set)) {
        snprintf(buf, len, "?");
        return;
    }
    size_t used = 0;
    for (int c = 0; c < CPU_SETSIZE && used < len; c++) {
        if (!CPU_ISSET(c, &set))
            continue;
        int last = c;
        while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set))
            last++;
        used += (size_t)snprintf(buf + used, len - used, "%s%d", used ? "," : "", c);
        if (last > c && used < len)
            used += (size_t)snprintf(buf + used, len - used, "-%d", last);
        c = last;
    }
}

/* The NUMA node where most of ghost g's processes run; ties go to the lowest. */
static int choose(int g, const int *numa, int users, int ghosts, int nnuma)
{
    int *votes = calloc((size_t)nnuma, sizeof *votes), best = 0;
    for (int u = g; votes && u < users; u += ghosts)
        if (numa[u] >= 0 && numa[u] < nnuma)
            votes[numa[u]]++;
    for (int i = 1; votes && i < nnuma; i++)
        if (votes[i] > votes[best])
            best = i;
    free(votes);
    return best;
}

void wisp_ghost_place(int ghost, const int *numa, int users, int ghosts)
{
    hwloc_topology_t topo = load();
    int nnuma = topo ? hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE) : 0;
    if (nnuma < 1)
        nnuma = 1;
    int best = choose(ghost, numa, users, ghosts, nnuma);
    const char *how = "not bound (WISP_GHOST_BIND=none)";
    hwloc_obj_t node =
        topo ? hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, (unsigned)best) : NULL;
    hwloc_bitmap_t target = node && node->cpuset ? hwloc_bitmap_dup(node->cpuset) : NULL;
    /* Never outside the CPUs the launcher gave this process (Slurm's
     * task/affinity, say): within them, or where it is when none is there. */
    hwloc_bitmap_t mine = topo ? hwloc_bitmap_alloc() : NULL;
    if (target && mine && !hwloc_get_cpubind(topo, mine, HWLOC_CPUBIND_PROCESS)) {
        hwloc_bitmap_and(target, target, mine);
        if (hwloc_bitmap_iszero(target))
            hwloc_bitmap_copy(target, mine);
    }
    hwloc_bitmap_free(mine);
    if (wisp_config.GHOST_BIND == WISP_GHOST_BIND_CORE && target) {
        /* Ghosts of this node placed on the same NUMA node before this one take the cores
         * before it. */
        int before = 0;
        for (int g = 0; g < ghost; g++)
            before += choose(g, numa, users, ghosts, nnuma) == best;
        int cores = hwloc_get_nbobjs_inside_cpuset_by_type(topo, target, HWLOC_OBJ_CORE);
        if (cores > 0) {
            int pick = cores - 1 - before % cores;
            hwloc_obj_t core =
                hwloc_get_obj_inside_cpuset_by_type(topo, target, HWLOC_OBJ_CORE, (unsigned)pick);
            hwloc_bitmap_copy(target, core->cpuset);
        }
    }
    if (wisp_config.GHOST_BIND != WISP_GHOST_BIND_NONE) {
        if (target && !hwloc_set_cpubind(topo, target, HWLOC_CPUBIND_PROCESS))
            how = wisp_config.GHOST_BIND == WISP_GHOST_BIND_CORE ? "bound to one of its cores"
                                                                 : "bound to its cores";
        else
            how = "not bound: hwloc could not bind it";
    }
    char cpus[256];
    affinity(cpus, sizeof cpus);
    wisp_log(2, "ghost %d: near NUMA node %d of the processes it serves, %s; runs on CPUs %s",
             ghost, best, how, cpus);
    hwloc_bitmap_free(target);
    if (topo)
        hwloc_topology_destroy(topo);
}
