/*
 * A 3-D grid cut into one block per process (bench/apps/jacobi3d.c, cg.c):
 * which block a process gets (the mapping), its extents and its six face
 * neighbours, and the packing of one face of a field with one ghost layer.
 *
 * Mappings (seed 001, section 3.1):
 *   cart     MPI_Cart_create without reordering: ranks fill the process grid
 *            in row-major order, whatever the nodes;
 *   blocked  node-aware: each node gets a box of a x b x c neighbouring
 *            blocks (a b c = processes per node, chosen for the smallest
 *            surface), so fewer faces cross between nodes. It needs nodes of
 *            equal size that tile the process grid; otherwise the mapping
 *            falls back to cart (and `mapping` says so).
 * A field holds (n0+2)(n1+2)(n2+2) doubles, index (i (n1+2) + j)(n2+2) + k.
 */
#ifndef WISP_APP_GRID3D_H
#define WISP_APP_GRID3D_H

#include "app_common.h"

struct grid3d {
    MPI_Comm comm; /* the processes of the grid (a duplicate: free with grid3d_free) */
    int rank, size;
    int dims[3];         /* process grid */
    int coords[3];       /* this block's position */
    int n[3], off[3];    /* local interior extents, global offset of the first point */
    int nb[3][2];        /* neighbour ranks in comm (MPI_PROC_NULL at the domain's edge) */
    int node, nodes;     /* this process's node, the number of nodes */
    int nb_remote[3][2]; /* 1 if that neighbour is on another node */
    const char *mapping; /* "cart", "blocked" or "cart (blocked not possible: ...)" */
};

static inline size_t grid3d_idx(const struct grid3d *g, int i, int j, int k)
{
    return ((size_t)i * (size_t)(g->n[1] + 2) + (size_t)j) * (size_t)(g->n[2] + 2) + (size_t)k;
}

static inline size_t grid3d_points(const struct grid3d *g)
{
    return (size_t)(g->n[0] + 2) * (size_t)(g->n[1] + 2) * (size_t)(g->n[2] + 2);
}

/* Extent and offset of block `c` of `p` along a dimension of `n` points. */
static inline void grid3d_split(int n, int p, int c, int *len, int *off)
{
    *len = n / p + (c < n % p);
    *off = c * (n / p) + (c < n % p ? c : n % p);
}

/* The blocked mapping's box per node: a[0] a[1] a[2] = k, each dividing dims,
 * the smallest surface of the box's points; 0 when there is none. */
static inline int grid3d_node_box(const int dims[3], const int global[3], int k, int a[3])
{
    double best = -1.0;
    for (int x = 1; x <= k; x++)
        for (int y = 1; x * y <= k; y++) {
            if (k % (x * y))
                continue;
            int z = k / (x * y);
            if (dims[0] % x || dims[1] % y || dims[2] % z)
                continue;
            double e0 = (double)global[0] / dims[0] * x, e1 = (double)global[1] / dims[1] * y,
                   e2 = (double)global[2] / dims[2] * z;
            double surface = e0 * e1 + e1 * e2 + e0 * e2;
            if (best < 0 || surface < best) {
                best = surface;
                a[0] = x, a[1] = y, a[2] = z;
            }
        }
    return best >= 0;
}

/* Sets up the grid of `global` points over the processes of `world`. */
static inline void grid3d_setup(struct grid3d *g, MPI_Comm world, const int global[3], int blocked)
{
    memset(g, 0, sizeof *g);
    MPI_Comm_rank(world, &g->rank);
    MPI_Comm_size(world, &g->size);
    MPI_Dims_create(g->size, 3, g->dims);
    g->node = app_node_id(world, &g->nodes);
    g->mapping = "cart";

    /* Node rank and size: the blocked mapping needs equal nodes. */
    MPI_Comm node_comm;
    MPI_Comm_split(world, g->node, g->rank, &node_comm);
    int node_rank, node_size, min_size, max_size, box[3];
    MPI_Comm_rank(node_comm, &node_rank);
    MPI_Comm_size(node_comm, &node_size);
    MPI_Comm_free(&node_comm);
    MPI_Allreduce(&node_size, &min_size, 1, MPI_INT, MPI_MIN, world);
    MPI_Allreduce(&node_size, &max_size, 1, MPI_INT, MPI_MAX, world);
    if (blocked && min_size != max_size)
        g->mapping = "cart (blocked not possible: nodes of different sizes)";
    else if (blocked && !grid3d_node_box(g->dims, global, node_size, box))
        g->mapping = "cart (blocked not possible: no box of a node's processes tiles the grid)";
    else if (blocked)
        g->mapping = "blocked";

    if (strcmp(g->mapping, "blocked") == 0) {
        int q[3] = {g->dims[0] / box[0], g->dims[1] / box[1], g->dims[2] / box[2]};
        int nc[3] = {g->node / (q[1] * q[2]), g->node / q[2] % q[1], g->node % q[2]};
        int lc[3] = {node_rank / (box[1] * box[2]), node_rank / box[2] % box[1],
                     node_rank % box[2]};
        for (int d = 0; d < 3; d++)
            g->coords[d] = nc[d] * box[d] + lc[d];
        MPI_Comm_dup(world, &g->comm);
        /* Who holds which block: every rank's coordinates. */
        int *all = malloc(sizeof(int) * 3 * (size_t)g->size);
        MPI_Allgather(g->coords, 3, MPI_INT, all, 3, MPI_INT, g->comm);
        for (int d = 0; d < 3; d++)
            for (int s = 0; s < 2; s++) {
                int want[3] = {g->coords[0], g->coords[1], g->coords[2]};
                want[d] += s ? 1 : -1;
                g->nb[d][s] = MPI_PROC_NULL;
                for (int r = 0; r < g->size; r++)
                    if (all[3 * r] == want[0] && all[3 * r + 1] == want[1] &&
                        all[3 * r + 2] == want[2])
                        g->nb[d][s] = r;
            }
        free(all);
    } else {
        int periods[3] = {0, 0, 0};
        MPI_Cart_create(world, 3, g->dims, periods, 0, &g->comm);
        MPI_Cart_coords(g->comm, g->rank, 3, g->coords);
        for (int d = 0; d < 3; d++)
            MPI_Cart_shift(g->comm, d, 1, &g->nb[d][0], &g->nb[d][1]);
    }
    for (int d = 0; d < 3; d++)
        grid3d_split(global[d], g->dims[d], g->coords[d], &g->n[d], &g->off[d]);

    int *nodes = malloc(sizeof(int) * (size_t)g->size);
    MPI_Allgather(&g->node, 1, MPI_INT, nodes, 1, MPI_INT, g->comm);
    for (int d = 0; d < 3; d++)
        for (int s = 0; s < 2; s++)
            g->nb_remote[d][s] = g->nb[d][s] != MPI_PROC_NULL && nodes[g->nb[d][s]] != g->node;
    free(nodes);
}

static inline void grid3d_free(struct grid3d *g)
{
    MPI_Comm_free(&g->comm);
}

/* The index ranges of face (d, side): the layer `layer` along d, the
 * interior along the others, widened by the ghost layers along the
 * dimensions below d when `wide` (exchanging d = 0, 1, 2 in turn so then
 * fills the edges and corners too). */
static inline void grid3d_face_range(const struct grid3d *g, int d, int layer, int wide, int lo[3],
                                     int hi[3])
{
    for (int e = 0; e < 3; e++) {
        lo[e] = wide && e < d ? 0 : 1;
        hi[e] = wide && e < d ? g->n[e] + 1 : g->n[e];
    }
    lo[d] = hi[d] = layer;
}

static inline size_t grid3d_face_count(const struct grid3d *g, int d, int wide)
{
    int lo[3], hi[3];
    grid3d_face_range(g, d, 1, wide, lo, hi);
    return (size_t)(hi[0] - lo[0] + 1) * (size_t)(hi[1] - lo[1] + 1) * (size_t)(hi[2] - lo[2] + 1);
}

/* Copies the face (d, side) of the interior into buf (unpack 0) or buf into
 * the ghost layer on that side (unpack 1). */
static inline void grid3d_face_copy(const struct grid3d *g, double *u, int d, int side, int wide,
                                    double *buf, int unpack)
{
    int layer = unpack ? (side ? g->n[d] + 1 : 0) : (side ? g->n[d] : 1);
    int lo[3], hi[3];
    grid3d_face_range(g, d, layer, wide, lo, hi);
    size_t m = 0;
    for (int i = lo[0]; i <= hi[0]; i++)
        for (int j = lo[1]; j <= hi[1]; j++) {
            double *row = u + grid3d_idx(g, i, j, 0);
            if (unpack)
                memcpy(row + lo[2], buf + m, sizeof(double) * (size_t)(hi[2] - lo[2] + 1));
            else
                memcpy(buf + m, row + lo[2], sizeof(double) * (size_t)(hi[2] - lo[2] + 1));
            m += (size_t)(hi[2] - lo[2] + 1);
        }
}

/* Bytes this process sends per exchange of all faces, and those of them
 * that go to another node. */
static inline void grid3d_halo_bytes(const struct grid3d *g, int wide, double *all, double *remote)
{
    *all = *remote = 0.0;
    for (int d = 0; d < 3; d++)
        for (int s = 0; s < 2; s++) {
            if (g->nb[d][s] == MPI_PROC_NULL)
                continue;
            double bytes = (double)grid3d_face_count(g, d, wide) * sizeof(double);
            *all += bytes;
            if (g->nb_remote[d][s])
                *remote += bytes;
        }
}

/* Prints, from rank 0, a comment line that describes the grid. */
static inline void grid3d_describe(const struct grid3d *g, const char *prog, const int global[3])
{
    if (g->rank == 0)
        printf("# %s: grid %dx%dx%d on %d processes (%dx%dx%d), %d node(s), mapping %s\n", prog,
               global[0], global[1], global[2], g->size, g->dims[0], g->dims[1], g->dims[2],
               g->nodes, g->mapping);
}

#endif
