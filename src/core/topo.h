/*
 * What wisp knows about where each process runs: its (virtual) node, the
 * world ranks of the peers on it, and the machine's cores and NUMA nodes.
 */
#ifndef WISP_CORE_TOPO_H
#define WISP_CORE_TOPO_H

#include <mpi.h>
#include <stdbool.h>

#pragma GCC visibility push(hidden)

struct wisp_topo {
    int world_rank, world_size;
    MPI_Comm node_comm; /* the processes of this (virtual) node */
    int node_rank, node_size;
    int node_id, node_count; /* nodes numbered by their lowest world rank */
    int *node_peers;         /* world rank of each node rank */
    int machine_procs;       /* processes of the job on this machine, ghosts included */
    int machine_cores, machine_numa_nodes;
    int bound_cores; /* cores this process may run on */
};

/* Valid between wisp_core_topo_init and wisp_core_topo_fini; node_rank is -1
 * outside that interval. */
extern struct wisp_topo wisp_topo;

/* More processes of the job on this machine than cores: a process that
 * waits takes a core from one that works. */
static inline bool wisp_topo_oversubscribed(void)
{
    return wisp_topo.machine_procs > wisp_topo.machine_cores;
}

/* Starts reading the machine's topology in the background, before
 * PMPI_Init; wisp_core_topo_init takes it (or reads it itself). */
void wisp_core_topo_prefetch(void);

/* Collective over `world`. `vnode_size` 0 means one node per machine. */
void wisp_core_topo_init(MPI_Comm world, int vnode_size);

/* Collective over `world`, a part of the world of wisp_core_topo_init (the
 * processes that are not ghosts): its nodes replace the old ones; the
 * machine's description (processes, cores, binding) stays. */
void wisp_core_topo_narrow(MPI_Comm world, int vnode_size);

/* With WISP_VERBOSE >= 2: one line about this process's place. */
void wisp_core_topo_log(void);
void wisp_core_topo_fini(void);

#pragma GCC visibility pop

#endif
