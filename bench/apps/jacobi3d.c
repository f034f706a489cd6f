/*
 * jacobi3d.c - 3-D Jacobi with halo exchange (seed 001: the Jacobi benchmark
 * of ch. 1.3, the performance model of ch. 2, the mappings of ch. 3.1, the
 * hybrid modes of ch. 4).
 *
 * A 7-point Jacobi sweep, u'(i,j,k) = (sum of the 6 neighbours) / 6, on a
 * global grid of n^3 interior points (or nx x ny x nz) with fixed boundary
 * values, `sweeps` times, each process sweeping its block and exchanging
 * one-point faces with its neighbours between sweeps. Variants:
 *
 *   blocking     pure MPI; per dimension two MPI_Sendrecv, then the sweep
 *   nonblocking  pure MPI; 6 MPI_Irecv + 6 MPI_Isend + MPI_Waitall, then the sweep
 *   vector       hybrid vector mode: the exchange as `nonblocking` by the
 *                master thread between parallel regions, the sweep by all
 *                OpenMP threads (MPI_THREAD_FUNNELED)
 *   task         hybrid task mode: in one parallel region the master thread
 *                exchanges the faces while the other threads sweep the
 *                interior (the points that need no ghost), then all threads
 *                sweep the outer shell (MPI_THREAD_FUNNELED)
 *   tasks        hybrid with OpenMP tasks: one task exchanges the faces (as
 *                `nonblocking`), tasks of a few planes each sweep the
 *                interior meanwhile, and the tasks of the outer shell depend
 *                on the exchange task (any thread may run the exchange:
 *                MPI_THREAD_SERIALIZED)
 *
 * faces=pack|subarray: how a face travels. pack (the default) copies each
 * face into a contiguous buffer of doubles and the received one out of
 * another (grid3d_face_copy); subarray sends and receives it straight
 * from and into the field, as one element of an MPI_Type_create_subarray
 * type (the 12 types, a send and a receive face per side, committed once
 * at setup), with no copy of the program's own: the MPI (or wisp's
 * datatype engine) moves the strided layout. The same bytes either way.
 *
 * map=cart|blocked: the mapping of ranks to blocks (grid3d.h). The bytes of
 * halo sent per sweep, and those crossing nodes (virtual nodes under
 * WISP_VNODE_SIZE; the native run honours the same variable), are printed.
 *
 * The model (seed 001, eqs. 2.1, 2.4, 2.5): at start the program measures
 * a PingPing latency l and bandwidth b (pingping.h) and t_sweep, the time of
 * a sweep of the same variant with the exchange left out; the slowest
 * process's t_comm = (its halo bytes) / b + (its dimensions with a
 * neighbour) x l. Predicted: n^3 / (t_sweep + t_comm), or for task mode
 * and OpenMP tasks n^3 / max(t_sweep, t_comm).
 *
 * The check: after the timed sweeps every process computes the whole grid
 * serially, with the same update in the same order, and compares its block:
 * the largest difference must be at most 1e-12 (the update is the same
 * floating-point expression, so it is 0 unless the compiler contracts
 * differently).
 *
 * Usage: jacobi3d [variant=blocking|nonblocking|vector|task|tasks]
 *                 [faces=pack|subarray] [map=cart|blocked] [n=N | nx= ny= nz= | local=L] [sweeps=S]
 * [check=0|1] local=L: weak scaling, L^3 points per process (the global grid is L times the process
 * grid of MPI_Dims_create along each dimension). Metrics (rank 0): mlups, model_mlups, sweep_ms,
 * t_sweep_ms, t_comm_ms, latency_us, bandwidth_MBps, halo_kB, halo_cross_node_kB.
 */
#include <omp.h>

#include "app_common.h"
#include "grid3d.h"
#include "pingping.h"

#define USAGE                                                                                      \
    "[variant=blocking|nonblocking|vector|task|tasks] [faces=pack|subarray] "                      \
    "[map=cart|blocked] [n=N | nx=X ny=Y nz=Z | local=L] [sweeps=S] [check=0|1]"

enum variant { BLOCKING, NONBLOCKING, VECTOR, TASK, TASKS };

static const char *prog = "jacobi3d";
static struct grid3d g;
static int subarray;                          /* faces=subarray */
static double *sendbuf[3][2], *recvbuf[3][2]; /* faces=pack */
static MPI_Datatype face_type[2][3][2];       /* faces=subarray: [ghost][d][side] */

/* The value of global point (x, y, z), 0 .. n+1 along each dimension: the
 * boundary keeps it, the interior starts from it. */
static double initial(int x, int y, int z)
{
    return (double)((x * 7 + y * 3 + z * 5) % 13) / 13.0;
}

/* One update: the same expression in the parallel and the serial sweep. */
static inline double update(const double *u, size_t c, size_t sj, size_t si)
{
    return (u[c - si] + u[c + si] + u[c - sj] + u[c + sj] + u[c - 1] + u[c + 1]) * (1.0 / 6.0);
}

/* Sweeps the box lo..hi (inclusive) of a field of extents n (+2 ghosts). */
static void sweep_box(const int n[3], const double *u, double *v, int i0, int i1, int j0, int j1,
                      int k0, int k1)
{
    size_t sj = (size_t)n[2] + 2, si = sj * ((size_t)n[1] + 2);
    for (int i = i0; i <= i1; i++)
        for (int j = j0; j <= j1; j++) {
            size_t c = (size_t)i * si + (size_t)j * sj;
            for (int k = k0; k <= k1; k++)
                v[c + (size_t)k] = update(u, c + (size_t)k, sj, si);
        }
}

/* Sweeps plane i's points that touch a ghost (the whole plane for the
 * first and last i). */
static void sweep_shell_plane(const int n[3], const double *u, double *v, int i)
{
    if (i == 1 || i == n[0]) {
        sweep_box(n, u, v, i, i, 1, n[1], 1, n[2]);
        return;
    }
    sweep_box(n, u, v, i, i, 1, 1, 1, n[2]);
    if (n[1] > 1)
        sweep_box(n, u, v, i, i, n[1], n[1], 1, n[2]);
    for (int j = 2; j < n[1]; j++) {
        sweep_box(n, u, v, i, i, j, j, 1, 1);
        if (n[2] > 1)
            sweep_box(n, u, v, i, i, j, j, n[2], n[2]);
    }
}

/* Fills the block (interior and ghosts) of a field with the initial values. */
static void fill(const int n[3], const int off[3], double *u)
{
    size_t m = 0;
    for (int i = 0; i < n[0] + 2; i++)
        for (int j = 0; j < n[1] + 2; j++)
            for (int k = 0; k < n[2] + 2; k++)
                u[m++] = initial(off[0] + i, off[1] + j, off[2] + k);
}

/* The faces of a field as subarray types: for each dimension d and side
 * s, the interior layer next to that side (ghost 0, sent) and the ghost
 * layer beyond it (ghost 1, received), over the interior of the other
 * dimensions -- grid3d_face_range's faces, which faces=pack copies. */
static void face_types_create(void)
{
    int sizes[3] = {g.n[0] + 2, g.n[1] + 2, g.n[2] + 2};
    for (int ghost = 0; ghost < 2; ghost++)
        for (int d = 0; d < 3; d++)
            for (int s = 0; s < 2; s++) {
                int layer = ghost ? (s ? g.n[d] + 1 : 0) : (s ? g.n[d] : 1);
                int lo[3], hi[3], subsizes[3];
                grid3d_face_range(&g, d, layer, 0, lo, hi);
                for (int e = 0; e < 3; e++)
                    subsizes[e] = hi[e] - lo[e] + 1;
                MPI_Type_create_subarray(3, sizes, subsizes, lo, MPI_ORDER_C, MPI_DOUBLE,
                                         &face_type[ghost][d][s]);
                MPI_Type_commit(&face_type[ghost][d][s]);
            }
}

static void face_types_free(void)
{
    for (int ghost = 0; ghost < 2; ghost++)
        for (int d = 0; d < 3; d++)
            for (int s = 0; s < 2; s++)
                MPI_Type_free(&face_type[ghost][d][s]);
}

/* Face (d, s) of field u as a message, to send (ghost 0) or to receive into
 * the ghost layer (ghost 1): with faces=pack a buffer of doubles, which the
 * caller fills or empties; with faces=subarray the field itself. */
struct face_msg {
    void *buf;
    int count;
    MPI_Datatype type;
};

static struct face_msg face_msg(double *u, int d, int s, int ghost)
{
    if (subarray)
        return (struct face_msg){u, 1, face_type[ghost][d][s]};
    return (struct face_msg){ghost ? recvbuf[d][s] : sendbuf[d][s],
                             (int)grid3d_face_count(&g, d, 0), MPI_DOUBLE};
}

/* faces=pack: copies the faces to send into their buffers (unpack 0) or the
 * received ones into the ghost layers (unpack 1) of dimension d. */
static void face_copies(double *u, int d, int unpack)
{
    if (subarray)
        return;
    for (int s = 0; s < 2; s++)
        if (!unpack || g.nb[d][s] != MPI_PROC_NULL)
            grid3d_face_copy(&g, u, d, s, 0, unpack ? recvbuf[d][s] : sendbuf[d][s], unpack);
}

static void exchange_blocking(double *u)
{
    for (int d = 0; d < 3; d++) {
        face_copies(u, d, 0);
        /* Up, then down: receive from the opposite side. */
        struct face_msg up = face_msg(u, d, 1, 0), from_below = face_msg(u, d, 0, 1);
        struct face_msg down = face_msg(u, d, 0, 0), from_above = face_msg(u, d, 1, 1);
        MPI_Sendrecv(up.buf, up.count, up.type, g.nb[d][1], d, from_below.buf, from_below.count,
                     from_below.type, g.nb[d][0], d, g.comm, MPI_STATUS_IGNORE);
        MPI_Sendrecv(down.buf, down.count, down.type, g.nb[d][0], 3 + d, from_above.buf,
                     from_above.count, from_above.type, g.nb[d][1], 3 + d, g.comm,
                     MPI_STATUS_IGNORE);
        face_copies(u, d, 1);
    }
}

static void exchange_nonblocking(double *u)
{
    MPI_Request req[12];
    MPI_Status st[12];
    int r = 0;
    for (int d = 0; d < 3; d++)
        for (int s = 0; s < 2; s++) { /* the message from side s was sent towards 1 - s */
            struct face_msg m = face_msg(u, d, s, 1);
            MPI_Irecv(m.buf, m.count, m.type, g.nb[d][s], 2 * d + (1 - s), g.comm, &req[r++]);
        }
    for (int d = 0; d < 3; d++) {
        face_copies(u, d, 0);
        for (int s = 0; s < 2; s++) {
            struct face_msg m = face_msg(u, d, s, 0);
            MPI_Isend(m.buf, m.count, m.type, g.nb[d][s], 2 * d + s, g.comm, &req[r++]);
        }
    }
    MPI_Waitall(r, req, st);
    for (int d = 0; d < 3; d++)
        face_copies(u, d, 1);
}

/* The OpenMP-tasks step: the exchange task, interior tasks that need no
 * ghost, and shell tasks that wait for the exchange (depend on halo_ready).
 * Called by one thread of a parallel region; waits for all the tasks
 * (halo_ready lives on this stack). */
static void step_tasks(const int n[3], double *u, double *v, int dry)
{
    char halo_ready = 0; /* a dependency token only */
    (void)halo_ready;
    int nt = omp_get_num_threads();
    if (!dry) {
#pragma omp task depend(out : halo_ready)
        exchange_nonblocking(u);
    }
    /* A few tasks per thread, so that a thread back from the exchange finds work. */
    int planes = n[0] - 2 > 0 ? n[0] - 2 : 0, chunks = planes < 4 * nt ? planes : 4 * nt;
    if (n[1] > 2 && n[2] > 2)
        for (int c = 0; c < chunks; c++) {
            int first = 2 + planes * c / chunks, last = 1 + planes * (c + 1) / chunks;
#pragma omp task
            sweep_box(n, u, v, first, last, 2, n[1] - 1, 2, n[2] - 1);
        }
    int shells = n[0] < nt ? n[0] : nt;
    for (int c = 0; c < shells; c++) {
        int first = 1 + n[0] * c / shells, last = n[0] * (c + 1) / shells;
#pragma omp task depend(in : halo_ready)
        for (int i = first; i <= last; i++)
            sweep_shell_plane(n, u, v, i);
    }
#pragma omp taskwait
}

/* One time step of a variant: exchange (unless `dry`) and sweep u into v. */
static void step(enum variant var, double *u, double *v, int dry)
{
    const int *n = g.n;
    switch (var) {
    case BLOCKING:
    case NONBLOCKING:
        if (!dry)
            (var == BLOCKING ? exchange_blocking : exchange_nonblocking)(u);
        sweep_box(n, u, v, 1, n[0], 1, n[1], 1, n[2]);
        break;
    case VECTOR:
        if (!dry)
            exchange_nonblocking(u);
#pragma omp parallel for schedule(static)
        for (int i = 1; i <= n[0]; i++)
            sweep_box(n, u, v, i, i, 1, n[1], 1, n[2]);
        break;
    case TASKS:
#pragma omp parallel
#pragma omp single
        step_tasks(n, u, v, dry);
        break;
    case TASK:
#pragma omp parallel
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        if (t == 0 && !dry)
            exchange_nonblocking(u);
        /* The interior, 2 .. n-1 along every dimension, by the threads that
         * do not communicate (by all when there is only one). */
        int workers = nt > 1 ? nt - 1 : 1, w = nt > 1 ? t - 1 : 0;
        if (w >= 0) {
            int planes = n[0] - 2 > 0 ? n[0] - 2 : 0;
            int first = 2 + planes * w / workers, last = 1 + planes * (w + 1) / workers;
            if (n[1] > 2 && n[2] > 2)
                sweep_box(n, u, v, first, last, 2, n[1] - 1, 2, n[2] - 1);
        }
#pragma omp barrier
        /* The shell, which needs the ghosts, by every thread. */
#pragma omp for schedule(static)
        for (int i = 1; i <= n[0]; i++)
            sweep_shell_plane(n, u, v, i);
    } break;
    }
}

/* Runs `count` steps from the initial values; returns the seconds the
 * slowest process took; leaves the result in *result. */
static double run(enum variant var, double *a, double *b, int count, int dry, double **result)
{
    fill(g.n, g.off, a);
    fill(g.n, g.off, b);
    MPI_Barrier(g.comm);
    double t0 = bench_now();
    for (int s = 0; s < count; s++) {
        step(var, a, b, dry);
        double *tmp = a;
        a = b;
        b = tmp;
    }
    double t = bench_now() - t0;
    *result = a;
    return app_max(g.comm, t);
}

/* t_sweep of the model: the median of 7 sweeps without the exchange, each
 * timed by its slowest process, after a warm-up sweep (pages, threads). */
static double dry_sweep_time(enum variant var, double *a, double *b)
{
    double times[7];
    fill(g.n, g.off, a);
    fill(g.n, g.off, b);
    step(var, a, b, 1);
    for (int s = 0; s < 7; s++) {
        MPI_Barrier(g.comm);
        double t0 = bench_now();
        step(var, s % 2 ? b : a, s % 2 ? a : b, 1);
        times[s] = app_max(g.comm, bench_now() - t0);
    }
    return bench_median(times, 7);
}

/* Serial reference of the whole grid; returns the largest difference from
 * this process's block. */
static double compare_serial(const int global[3], int sweeps, const double *mine)
{
    int zero[3] = {0, 0, 0};
    size_t points = (size_t)(global[0] + 2) * (size_t)(global[1] + 2) * (size_t)(global[2] + 2);
    double *a = malloc(sizeof(double) * points), *b = malloc(sizeof(double) * points);
    if (!a || !b) {
        fprintf(stderr, "%s: no memory for the serial reference\n", prog);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    fill(global, zero, a);
    fill(global, zero, b);
    for (int s = 0; s < sweeps; s++) {
        sweep_box(global, a, b, 1, global[0], 1, global[1], 1, global[2]);
        double *tmp = a;
        a = b;
        b = tmp;
    }
    double worst = 0.0;
    size_t sj = (size_t)global[2] + 2, si = sj * ((size_t)global[1] + 2);
    for (int i = 1; i <= g.n[0]; i++)
        for (int j = 1; j <= g.n[1]; j++)
            for (int k = 1; k <= g.n[2]; k++) {
                double want = a[(size_t)(g.off[0] + i) * si + (size_t)(g.off[1] + j) * sj +
                                (size_t)(g.off[2] + k)];
                double diff = fabs(mine[grid3d_idx(&g, i, j, k)] - want);
                if (!(diff <= worst)) /* NaN too */
                    worst = isnan(diff) ? INFINITY : diff;
            }
    free(a);
    free(b);
    return worst;
}

int main(int argc, char **argv)
{
    const char *vname = "nonblocking", *map = "cart", *faces = "pack";
    int n = 0, nx = 48, ny = 48, nz = 48, local = 0, sweeps = 20, check = 1;
    struct app_opt opts[] = {
        {"variant", APP_WORD, &vname, 0, 0, "blocking|nonblocking|vector|task|tasks"},
        {"faces", APP_WORD, &faces, 0, 0, "pack|subarray"},
        {"map", APP_WORD, &map, 0, 0, "cart|blocked"},
        {"n", APP_INT, &n, 1, 2000, NULL},
        {"nx", APP_INT, &nx, 1, 2000, NULL},
        {"ny", APP_INT, &ny, 1, 2000, NULL},
        {"nz", APP_INT, &nz, 1, 2000, NULL},
        {"local", APP_INT, &local, 1, 2000, NULL},
        {"sweeps", APP_INT, &sweeps, 1, 100000, NULL},
        {"check", APP_INT, &check, 0, 1, NULL},
    };
    /* The thread level the variant needs, asked before the arguments can be
     * parsed (that needs MPI): tasks may call MPI from any thread. */
    int required = MPI_THREAD_FUNNELED, provided;
    for (int a = 1; a < argc; a++)
        if (strcmp(argv[a], "variant=tasks") == 0)
            required = MPI_THREAD_SERIALIZED;
    MPI_Init_thread(&argc, &argv, required, &provided);
    app_parse(prog, USAGE, argc, argv, opts, (int)(sizeof opts / sizeof opts[0]));
    enum variant var = strcmp(vname, "blocking") == 0      ? BLOCKING
                       : strcmp(vname, "nonblocking") == 0 ? NONBLOCKING
                       : strcmp(vname, "vector") == 0      ? VECTOR
                       : strcmp(vname, "task") == 0        ? TASK
                                                           : TASKS;
    if (var >= VECTOR && provided < required)
        app_usage_exit(prog, USAGE,
                       var == TASKS ? "variant=tasks needs MPI_THREAD_SERIALIZED"
                                    : "the hybrid variants need MPI_THREAD_FUNNELED");
    int global[3] = {n ? n : nx, n ? n : ny, n ? n : nz};
    if (local && n)
        app_usage_exit(prog, USAGE,
                       "n= (the whole grid) and local= (per process) exclude each other");
    if (local) { /* grid3d_setup's process grid, the same call */
        int size, dims[3] = {0, 0, 0};
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        MPI_Dims_create(size, 3, dims);
        for (int d = 0; d < 3; d++)
            global[d] = local * dims[d];
    }
    grid3d_setup(&g, MPI_COMM_WORLD, global, strcmp(map, "blocked") == 0);
    int empty = g.n[0] < 1 || g.n[1] < 1 || g.n[2] < 1, any_empty = 0;
    MPI_Allreduce(&empty, &any_empty, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any_empty)
        app_usage_exit(prog, USAGE, "the grid is too small for this many processes");
    grid3d_describe(&g, prog, global);
    subarray = strcmp(faces, "subarray") == 0;
    if (g.rank == 0)
        printf("# variant %s, faces %s, %d sweeps, %d OpenMP thread(s) per process\n", vname, faces,
               sweeps, var >= VECTOR ? omp_get_max_threads() : 1);

    size_t face_max = 0;
    for (int d = 0; d < 3; d++) {
        size_t count = grid3d_face_count(&g, d, 0);
        face_max = count > face_max ? count : face_max;
        for (int s = 0; s < 2 && !subarray; s++) {
            sendbuf[d][s] = malloc(sizeof(double) * count);
            recvbuf[d][s] = malloc(sizeof(double) * count);
            if (!sendbuf[d][s] || !recvbuf[d][s]) {
                fprintf(stderr, "%s: no memory for the face buffers\n", prog);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
        }
    }
    if (subarray)
        face_types_create();
    double *a = malloc(sizeof(double) * grid3d_points(&g));
    double *b = malloc(sizeof(double) * grid3d_points(&g));
    if (!a || !b) {
        fprintf(stderr, "%s: no memory for a block of %zu points\n", prog, grid3d_points(&g));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    /* The model's inputs: latency, bandwidth (messages of the largest face
     * anywhere), and a sweep without the exchange. */
    double face_bytes = app_max(g.comm, (double)face_max * sizeof(double));
    double latency, bandwidth, *result;
    pingping_measure(g.comm, (size_t)face_bytes, &latency, &bandwidth);
    double t_sweep = dry_sweep_time(var, a, b);
    double halo, cross, dims_used = 0;
    grid3d_halo_bytes(&g, 0, &halo, &cross);
    for (int d = 0; d < 3; d++)
        dims_used += g.nb[d][0] != MPI_PROC_NULL || g.nb[d][1] != MPI_PROC_NULL;
    double t_comm = app_max(g.comm, halo / bandwidth + dims_used * latency);
    double lups = (double)global[0] * global[1] * global[2];
    double model = lups / (var >= TASK ? fmax(t_sweep, t_comm) : t_sweep + t_comm) / 1e6;

    double t = run(var, a, b, sweeps, 0, &result);
    double halo_all = 0.0, cross_all = 0.0;
    MPI_Reduce(&halo, &halo_all, 1, MPI_DOUBLE, MPI_SUM, 0, g.comm);
    MPI_Reduce(&cross, &cross_all, 1, MPI_DOUBLE, MPI_SUM, 0, g.comm);

    int bad = 0;
    if (check) {
        double worst = compare_serial(global, sweeps, result), all_worst = app_max(g.comm, worst);
        if (g.rank == 0)
            printf("# largest difference from the serial run: %g\n", all_worst);
        bad = app_check(g.comm, prog, "same result as a serial run (max |diff| <= 1e-12)",
                        !(worst <= 1e-12));
    }
    if (!bad) {
        double mlups = lups * sweeps / t / 1e6;
        if (g.rank == 0)
            printf("# measured %.1f MLUP/s, model %.1f MLUP/s (t_sweep %.3f ms, t_comm %.3f ms, "
                   "l %.2f us, b %.0f MB/s)\n",
                   mlups, model, t_sweep * 1e3, t_comm * 1e3, latency * 1e6, bandwidth / 1e6);
        app_metric("mlups", mlups, "MLUP/s", "higher");
        app_metric("model_mlups", model, "MLUP/s", "higher");
        app_metric("sweep_ms", t / sweeps * 1e3, "ms", "lower");
        app_metric("t_sweep_ms", t_sweep * 1e3, "ms", "lower");
        app_metric("t_comm_ms", t_comm * 1e3, "ms", "lower");
        app_metric("latency_us", latency * 1e6, "us", "lower");
        app_metric("bandwidth_MBps", isfinite(bandwidth) ? bandwidth / 1e6 : 0.0, "MB/s", "higher");
        app_metric("halo_kB", halo_all / 1e3, "kB/sweep", "lower");
        app_metric("halo_cross_node_kB", cross_all / 1e3, "kB/sweep", "lower");
    }
    for (int d = 0; d < 3; d++)
        for (int s = 0; s < 2; s++) {
            free(sendbuf[d][s]);
            free(recvbuf[d][s]);
        }
    if (subarray)
        face_types_free();
    free(a);
    free(b);
    grid3d_free(&g);
    return app_finish(bad);
}
