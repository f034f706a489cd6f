/* The public queries of include/wisp.h, answered from the topology. */
#include "wisp.h"

#include "core/component.h"
#include "core/stats.h"
#include "core/topo.h"
#include <stddef.h>
#include <string.h>

const char *wisp_version(void)
{
    return WISP_VERSION;
}

int wisp_node_rank(void)
{
    return wisp_topo.node_rank;
}

static int initialized(void)
{
    return wisp_topo.node_rank >= 0;
}

int wisp_node_size(void)
{
    return initialized() ? wisp_topo.node_size : -1;
}

int wisp_node_id(void)
{
    return initialized() ? wisp_topo.node_id : -1;
}

int wisp_node_count(void)
{
    return initialized() ? wisp_topo.node_count : -1;
}

int wisp_node_peer(int node_rank)
{
    if (!initialized() || node_rank < 0 || node_rank >= wisp_topo.node_size)
        return -1;
    return wisp_topo.node_peers[node_rank];
}

MPI_Comm wisp_node_comm(void)
{
    return wisp_topo.node_comm;
}

int wisp_machine_cores(void)
{
    return wisp_topo.machine_cores;
}

int wisp_machine_numa_nodes(void)
{
    return wisp_topo.machine_numa_nodes;
}

int wisp_bound_cores(void)
{
    return wisp_topo.bound_cores;
}

/* A counter of a struct by name, from a table of names and offsets. */
struct counter {
    const char *name;
    size_t offset;
};

static unsigned long long counter_of(const struct counter *table, size_t n, const void *counts,
                                     const char *name)
{
    for (size_t i = 0; name && i < n; i++)
        if (!strcmp(name, table[i].name))
            return *(const uint64_t *)((const char *)counts + table[i].offset);
    return 0;
}

unsigned long long wisp_shm_counter(const char *name)
{
    if (name && !strcmp(name, "mpi_allocations"))
        return atomic_load(&wisp_stats_heap_mpi);
    static const struct counter counters[] = {
#define COUNTER(f) {#f, offsetof(struct wisp_stats_shm, f)}
        COUNTER(immediate), COUNTER(staged), COUNTER(single_copy), COUNTER(synergistic),
        COUNTER(self),      COUNTER(copies), COUNTER(bytes),
#undef COUNTER
    };
    return counter_of(counters, sizeof counters / sizeof counters[0], &wisp_stats_shm, name);
}

unsigned long long wisp_dt_counter(const char *name)
{
    return wisp_core_component_counter("team", name);
}

unsigned long long wisp_coll_counter(const char *name)
{
    return wisp_core_component_counter("coll", name);
}
