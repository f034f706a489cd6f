/*
 * A communicator's neighbours, from its topology, for the neighbour
 * collectives (topo.h).
 */
#include "coll/topo.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "p2p/p2p.h"

void wisp_coll_neighbors_free(struct wisp_coll_neighbors *n)
{
    if (!n)
        return;
    if (n->dup != MPI_COMM_NULL)
        wisp_p2p_comm_release(&n->dup, PMPI_Comm_free);
    free(n->sources);
    free(n);
}

/* Lists of `in` + `out` ranks; false without memory. */
static bool lists(struct wisp_coll_neighbors *n)
{
    n->sources = calloc((size_t)(n->in + n->out) + 1, sizeof(int));
    n->dests = n->sources ? n->sources + n->in : NULL;
    return n->sources;
}

/* Does a process appear twice among the sources, or among the
 * destinations? */
static bool repeats(const int *ranks, int n)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++)
            if (ranks[i] == ranks[j] && ranks[i] != MPI_PROC_NULL)
                return true;
    return false;
}

/* The neighbours, in the MPI's order; false without memory. */
static bool find(struct wisp_coll_neighbors *n, MPI_Comm comm, int topo)
{
    int rank, weighted;
    PMPI_Comm_rank(comm, &rank);
    if (topo == MPI_CART) {
        int dims;
        PMPI_Cartdim_get(comm, &dims);
        n->in = n->out = 2 * dims;
        if (!lists(n))
            return false;
        for (int d = 0; d < dims; d++)
            PMPI_Cart_shift(comm, d, 1, &n->sources[2 * d], &n->sources[2 * d + 1]);
        memcpy(n->dests, n->sources, sizeof(int) * (size_t)n->in);
        return true;
    }
    if (topo == MPI_GRAPH) {
        PMPI_Graph_neighbors_count(comm, rank, &n->in);
        n->out = n->in;
        if (!lists(n) || PMPI_Graph_neighbors(comm, rank, n->in, n->sources) != MPI_SUCCESS)
            return false;
        memcpy(n->dests, n->sources, sizeof(int) * (size_t)n->in);
        return true;
    }
    PMPI_Dist_graph_neighbors_count(comm, &n->in, &n->out, &weighted);
    int *weights = malloc(sizeof(int) * (size_t)(n->in + n->out + 1));
    bool ok = weights && lists(n) &&
              PMPI_Dist_graph_neighbors(comm, n->in, n->sources, weights, n->out, n->dests,
                                        weights + n->in) == MPI_SUCCESS;
    free(weights);
    n->symmetric = false;
    return ok;
}

struct wisp_coll_neighbors *wisp_coll_neighbors_make(MPI_Comm comm)
{
    int topo = MPI_UNDEFINED;
    if (PMPI_Topo_test(comm, &topo) != MPI_SUCCESS || topo == MPI_UNDEFINED)
        return NULL;
    /* Made here, kept on the heap only once every member agreed. */
    struct wisp_coll_neighbors here = {.dup = MPI_COMM_NULL, .symmetric = true};
    bool lent = wisp_p2p_lend();
    int rc = wisp_p2p_comm_made(PMPI_Comm_dup(comm, &here.dup), &here.dup);
    struct wisp_coll_neighbors *kept = malloc(sizeof *kept);
    /* Every member's engine must serve the duplicate: one that does not (a
     * process alone on its node: WISP_VNODE_SIZE=2 on 3 processes) would
     * call the MPI's collective while the others wait in the engine. */
    int bad = rc != MPI_SUCCESS || !kept || !wisp_p2p_serves(here.dup) ||
              !find(&here, comm, topo) || repeats(here.sources, here.in) ||
              repeats(here.dests, here.out);
    PMPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, comm);
    if (lent)
        wisp_p2p_reclaim();
    if (bad) {
        if (here.dup != MPI_COMM_NULL)
            wisp_p2p_comm_release(&here.dup, PMPI_Comm_free);
        free(here.sources);
        free(kept);
        return NULL;
    }
    *kept = here;
    return kept;
}
