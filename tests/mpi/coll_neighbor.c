/*
 * MPI_Neighbor_allgather and MPI_Neighbor_alltoall on a Cartesian grid
 * (non-periodic, and periodic where no process is a neighbour twice), a
 * graph (a ring) and a distributed graph with a repeated edge (its
 * messages between one pair match in the order they were posted), at 8 B
 * (the MPI's under WISP_COLL_NEIGHBOR's default), 64 KiB and 1 MiB + 8
 * (wisp's engine), into contiguous and strided receive blocks; every block
 * checked, the ones of MPI_PROC_NULL left untouched. Argument `served`:
 * wisp ran the large ones (wisp_coll_counter). Plain MPI: it passes
 * natively too.
 */
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mpi/watchdog.h"
#include "wisp.h"

enum { MAX_DEG = 8, UNTOUCHED = -7 };

static int me, np;

/* What process `from` puts in element i of the block it sends as its k-th. */
static int64_t value(int from, int k, size_t i)
{
    return (int64_t)from * 1000003 + (int64_t)k * 7919 + (int64_t)i;
}

/* The distributed graph: each process sends to the next and to the one
 * after that (where those differ from each other and from it); `repeat`:
 * to the next twice (the MPI's then: how the MPIs order one pair's
 * messages differs, so the blocks are checked in any order). */
static bool repeat;
static int dist_dests(int p, int *dests)
{
    int n = 0;
    dests[n++] = (p + 1) % np;
    if (np >= 3)
        dests[n++] = (p + 2) % np;
    if (repeat)
        dests[n++] = (p + 1) % np;
    return n;
}

/* For receive block j from `source`: the sender's block index whose message
 * lands there (the n-th message from `source` to me is its n-th send to
 * me), or -1 for MPI_PROC_NULL. */
static int sent_block(MPI_Comm comm, int topo, int j, const int *sources, int indeg)
{
    int source = sources[j];
    if (source == MPI_PROC_NULL)
        return -1;
    if (topo == MPI_CART) { /* block 2d from below: its block 2d + 1 (sent up), and back */
        (void)comm;
        return j % 2 == 0 ? j + 1 : j - 1;
    }
    int nth = 0;
    for (int i = 0; i < j; i++)
        nth += sources[i] == source;
    int dests[MAX_DEG], outdeg;
    if (topo == MPI_GRAPH) {
        MPI_Graph_neighbors_count(comm, source, &outdeg);
        MPI_Graph_neighbors(comm, source, outdeg, dests);
    } else {
        outdeg = dist_dests(source, dests);
    }
    for (int k = 0; k < outdeg; k++)
        if (dests[k] == me && nth-- == 0)
            return k;
    (void)indeg;
    return -2; /* cannot be */
}

static void neighbors(MPI_Comm comm, int topo, int *sources, int *indeg, int *dests, int *outdeg)
{
    if (topo == MPI_CART) {
        int dims;
        MPI_Cartdim_get(comm, &dims);
        *indeg = *outdeg = 2 * dims;
        for (int d = 0; d < dims; d++)
            MPI_Cart_shift(comm, d, 1, &sources[2 * d], &sources[2 * d + 1]);
        memcpy(dests, sources, sizeof(int) * (size_t)*indeg);
    } else if (topo == MPI_GRAPH) {
        MPI_Graph_neighbors_count(comm, me, indeg);
        MPI_Graph_neighbors(comm, me, *indeg, sources);
        *outdeg = *indeg;
        memcpy(dests, sources, sizeof(int) * (size_t)*indeg);
    } else {
        int weighted;
        MPI_Dist_graph_neighbors_count(comm, indeg, outdeg, &weighted);
        /* The degrees, not the arrays' room: MPICH 4.0.2 copies that many. */
        MPI_Dist_graph_neighbors(comm, *indeg, sources, MPI_UNWEIGHTED, *outdeg, dests,
                                 MPI_UNWEIGHTED);
    }
}

/* One call of each, `count` int64s a block; `strided`: every receive block
 * a vector of every other element (the gaps untouched). */
static void exchange(MPI_Comm comm, const char *name, size_t count, bool strided)
{
    int topo, sources[MAX_DEG], dests[MAX_DEG], indeg, outdeg;
    MPI_Topo_test(comm, &topo);
    neighbors(comm, topo, sources, &indeg, dests, &outdeg);
    size_t stride = strided ? 2 : 1, span = count * stride;
    int64_t *send = malloc(sizeof(int64_t) * count * (size_t)(outdeg + 1));
    int64_t *recv = malloc(sizeof(int64_t) * span * (size_t)(indeg + 1));
    MPI_Datatype block = MPI_INT64_T;
    if (strided) {
        MPI_Datatype vector;
        MPI_Type_vector((int)count, 1, 2, MPI_INT64_T, &vector);
        MPI_Type_create_resized(vector, 0, (MPI_Aint)(span * sizeof(int64_t)), &block);
        MPI_Type_free(&vector);
        MPI_Type_commit(&block);
    }
    int rcount = strided ? 1 : (int)count;
    for (int all = 0; all < 2; all++) {
        for (int k = 0; k < outdeg; k++)
            for (size_t i = 0; i < count; i++)
                send[(size_t)k * count + i] = value(me, all ? 0 : k, i);
        for (size_t i = 0; i < span * (size_t)indeg; i++)
            recv[i] = UNTOUCHED;
        if (all)
            CHECK(MPI_Neighbor_allgather(send, (int)count, MPI_INT64_T, recv, rcount, block,
                                         comm) == MPI_SUCCESS);
        else
            CHECK(MPI_Neighbor_alltoall(send, (int)count, MPI_INT64_T, recv, rcount, block, comm) ==
                  MPI_SUCCESS);
        for (int j = 0; j < indeg; j++) {
            int k = sent_block(comm, topo, j, sources, indeg);
            int64_t *got = recv + (size_t)j * span;
            if (repeat && !all && k >= 0) /* any of the source's blocks to me */
                for (int other = 0, d[MAX_DEG], n = dist_dests(sources[j], d); other < n; other++)
                    if (d[other] == me && got[0] == value(sources[j], other, 0))
                        k = other;
            for (size_t i = 0; i < span; i++) {
                bool data = i % stride == 0 && k >= 0;
                int64_t want = data ? value(sources[j], all ? 0 : k, i / stride) : UNTOUCHED;
                if (got[i] != want) {
                    fprintf(stderr,
                            "coll_neighbor: rank %d: %s %s of %zu%s: block %d (from %d) "
                            "element %zu is %lld, not %lld\n",
                            me, name, all ? "allgather" : "alltoall", count,
                            strided ? " strided" : "", j, sources[j], i, (long long)got[i],
                            (long long)want);
                    failures++;
                    break;
                }
            }
        }
    }
    if (strided)
        MPI_Type_free(&block);
    free(send);
    free(recv);
}

static void all_sizes(MPI_Comm comm, const char *name)
{
    size_t counts[] = {1, 8192, 131073};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
        for (int strided = 0; strided < 2; strided++)
            exchange(comm, name, counts[c], strided);
}

int main(int argc, char **argv)
{
    bool served = argc > 1 && !strcmp(argv[1], "served");
    watchdog_start("coll_neighbor", 120);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    unsigned long long before = wisp_coll_counter("served");
    MPI_Comm cart, ring, dist;
    /* 1-D: periodic from 3 processes (no process twice a neighbour); 2-D
     * (np even, from 4) non-periodic. */
    int dims[2] = {0, 0}, periods[2] = {np >= 3, 0}, ndims = np >= 4 && np % 2 == 0 ? 2 : 1;
    if (ndims == 2)
        periods[0] = 0;
    MPI_Dims_create(np, ndims, dims);
    MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, 0, &cart);
    all_sizes(cart, "cart");
    int *index = malloc(sizeof(int) * (size_t)np), *edges = malloc(sizeof(int) * 2 * (size_t)np);
    for (int p = 0, e = 0; p < np; p++) { /* a ring: previous and next (one of 2) */
        edges[e++] = (p + np - 1) % np;
        if (np > 2)
            edges[e++] = (p + 1) % np;
        index[p] = e;
    }
    MPI_Graph_create(MPI_COMM_WORLD, np, index, edges, 0, &ring);
    all_sizes(ring, "graph");
    int dests[MAX_DEG], outdeg = dist_dests(me, dests), sources[MAX_DEG], indeg = 0;
    for (int p = 0; p < np; p++) { /* every process's edges to me, in its order */
        int theirs[MAX_DEG], n = dist_dests(p, theirs);
        for (int k = 0; k < n; k++)
            if (theirs[k] == me)
                sources[indeg++] = p;
    }
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, indeg, sources, MPI_UNWEIGHTED, outdeg, dests,
                                   MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dist);
    all_sizes(dist, "dist_graph");
    MPI_Comm twice;
    repeat = true;
    for (int p = 0, theirs[MAX_DEG]; p < np; p++) /* the same sources, one more from before */
        if (dist_dests(p, theirs) && p == (me + np - 1) % np)
            sources[indeg++] = p;
    outdeg = dist_dests(me, dests);
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, indeg, sources, MPI_UNWEIGHTED, outdeg, dests,
                                   MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &twice);
    all_sizes(twice, "dist_graph_repeated");
    MPI_Comm_free(&twice);
    unsigned long long by_wisp = wisp_coll_counter("served") - before;
    if (served)
        CHECK(by_wisp >= 24); /* 3 topologies x 2 large sizes x 2 layouts x 2 calls */
    MPI_Comm_free(&cart);
    MPI_Comm_free(&ring);
    MPI_Comm_free(&dist);
    free(index);
    free(edges);
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0)
        printf("coll_neighbor: %d processes, %llu calls through wisp (rank 0): %s\n", np, by_wisp,
               all ? "FAILED" : "ok");
    MPI_Finalize();
    return all ? 1 : 0;
}
