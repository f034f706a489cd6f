/*
 * Topology discovery at MPI_Init. Nodes come from MPI_COMM_TYPE_SHARED,
 * optionally cut into virtual nodes of WISP_VNODE_SIZE consecutive ranks so
 * that multi-node behaviour can be exercised on one machine; cores, NUMA
 * nodes and this process's binding come from hwloc.
 */
#include "core/topo.h"

#include <hwloc.h>
#include <stdlib.h>

#include "core/log.h"
#include "core/thread.h"

struct wisp_topo wisp_topo = {.node_comm = MPI_COMM_NULL, .node_rank = -1, .node_id = -1};

/* hwloc reads the machine from /sys for a few milliseconds, which a thread
 * does while the MPI starts (PMPI_Init mostly waits for the launcher); the
 * binding is read after PMPI_Init, where some MPIs bind the process. */
static struct {
    pthread_t thread;
    bool started;
    hwloc_topology_t topology; /* NULL: not loaded */
} loading;

static void *load_machine(void *unused)
{
    (void)unused;
    hwloc_topology_t topology;
    if (hwloc_topology_init(&topology))
        return NULL;
    if (hwloc_topology_load(topology))
        hwloc_topology_destroy(topology);
    else
        loading.topology = topology;
    return NULL;
}

/* Not over Open MPI: its init sets environment variables (PMIx) while
 * hwloc reads others, and getenv beside setenv crashed the thread (Open
 * MPI 5.0.11). There the machine is read after PMPI_Init (2.5 ms here). */
void wisp_core_topo_prefetch(void)
{
#if !defined(OPEN_MPI)
    if (!loading.started && !loading.topology)
        loading.started =
            !wisp_core_thread_start(&loading.thread, load_machine, NULL, "wisp-topology");
#endif
}

static void discover_machine(void)
{
    if (loading.started) {
        pthread_join(loading.thread, NULL);
        loading.started = false;
    }
    if (!loading.topology)
        load_machine(NULL);
    hwloc_topology_t topology = loading.topology;
    loading.topology = NULL;
    if (!topology)
        wisp_fatal("hwloc could not read this machine's topology");
    wisp_topo.machine_cores = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_CORE);
    wisp_topo.machine_numa_nodes = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_NUMANODE);
    hwloc_bitmap_t bound = hwloc_bitmap_alloc();
    if (!bound || hwloc_get_cpubind(topology, bound, HWLOC_CPUBIND_PROCESS))
        hwloc_bitmap_copy(bound, hwloc_topology_get_allowed_cpuset(topology));
    wisp_topo.bound_cores = 0;
    for (int i = 0; i < wisp_topo.machine_cores; i++) {
        hwloc_obj_t core = hwloc_get_obj_by_type(topology, HWLOC_OBJ_CORE, (unsigned)i);
        wisp_topo.bound_cores += hwloc_bitmap_intersects(core->cpuset, bound);
    }
    hwloc_bitmap_free(bound);
    hwloc_topology_destroy(topology);
}

/* Nodes of `world`: its processes that share a machine, cut into virtual
 * nodes of `vnode_size` consecutive ranks when it is not 0. Sets everything
 * in wisp_topo but the machine's description; returns the number of
 * processes of `world` on this machine. */
static int find_nodes(MPI_Comm world, int vnode_size)
{
    struct wisp_topo *t = &wisp_topo;
    MPI_Comm machine;
    int machine_procs;
    PMPI_Comm_rank(world, &t->world_rank);
    PMPI_Comm_size(world, &t->world_size);
    PMPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &machine);
    PMPI_Comm_size(machine, &machine_procs);
    if (vnode_size > 0) {
        int machine_rank;
        PMPI_Comm_rank(machine, &machine_rank);
        PMPI_Comm_split(machine, machine_rank / vnode_size, machine_rank, &t->node_comm);
        PMPI_Comm_free(&machine);
    } else {
        t->node_comm = machine;
    }
    PMPI_Comm_rank(t->node_comm, &t->node_rank);
    PMPI_Comm_size(t->node_comm, &t->node_size);

    int leader = t->node_rank == 0, leaders_below = 0;
    PMPI_Exscan(&leader, &leaders_below, 1, MPI_INT, MPI_SUM, world);
    t->node_id = t->world_rank == 0 ? 0 : leaders_below; /* Exscan leaves rank 0 undefined */
    PMPI_Bcast(&t->node_id, 1, MPI_INT, 0, t->node_comm);
    PMPI_Allreduce(&leader, &t->node_count, 1, MPI_INT, MPI_SUM, world);

    t->node_peers = malloc(sizeof *t->node_peers * (size_t)t->node_size);
    if (!t->node_peers)
        wisp_fatal("out of memory for the list of %d node peers", t->node_size);
    PMPI_Allgather(&t->world_rank, 1, MPI_INT, t->node_peers, 1, MPI_INT, t->node_comm);
    return machine_procs;
}

static void free_nodes(void)
{
    if (wisp_topo.node_comm != MPI_COMM_NULL)
        PMPI_Comm_free(&wisp_topo.node_comm);
    free(wisp_topo.node_peers);
    wisp_topo.node_peers = NULL;
}

void wisp_core_topo_init(MPI_Comm world, int vnode_size)
{
    wisp_topo.machine_procs = find_nodes(world, vnode_size);
    discover_machine();
}

void wisp_core_topo_narrow(MPI_Comm world, int vnode_size)
{
    free_nodes();
    find_nodes(world, vnode_size);
}

void wisp_core_topo_log(void)
{
    const struct wisp_topo *t = &wisp_topo;
    wisp_log(2,
             "node %d of %d, node rank %d of %d; machine: %d process%s, %d core%s, %d NUMA "
             "node%s; bound to %d core%s",
             t->node_id, t->node_count, t->node_rank, t->node_size, t->machine_procs,
             t->machine_procs == 1 ? "" : "es", t->machine_cores, wisp_plural(t->machine_cores),
             t->machine_numa_nodes, wisp_plural(t->machine_numa_nodes), t->bound_cores,
             wisp_plural(t->bound_cores));
}

void wisp_core_topo_fini(void)
{
    free_nodes();
    wisp_topo = (struct wisp_topo){.node_comm = MPI_COMM_NULL, .node_rank = -1, .node_id = -1};
}
