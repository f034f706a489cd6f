/*
 * cg.c - conjugate gradients on HPCG's 27-point operator (seed 003, section
 * V-A: HPCG's two communication patterns, the halo exchange before each
 * sparse matrix-vector product and the MPI_Allreduce of each dot product).
 *
 * A is the matrix of HPCG's synthetic problem: 26 on the diagonal, -1 for
 * each of the up to 26 neighbours of a point of the global grid (8 to 18 at
 * its faces, edges and corners), applied without storing it. The right-hand
 * side b = A (1, ..., 1), so the solution is all ones. Each process owns
 * n x n x n points (weak scaling, as HPCG: the global grid is the process
 * grid times n); the halo of the direction vector is exchanged in three
 * phases, one dimension after the other with the ghosts of the earlier ones
 * (6 messages also fill the edges and corners that the 27-point operator
 * reads). Unpreconditioned CG from x = 0 runs until ||r|| / ||b|| < tol or
 * `iters` iterations.
 *
 * The check: the residual is recomputed from scratch, ||b - A x|| / ||b||,
 * and must be below 10 tol; every x must be within 1e-4 of 1; and CG must
 * have converged within `iters`.
 *
 * halo_exchange() and dot() are separate functions, timed apart: the two
 * communication patterns the seed hides with user-level threads.
 *
 * variant=ult hides the MPI_Allreduce of r.r behind the next sparse
 * matrix-vector product (seed 003, Listing 4: "think between iterations").
 * Since p' = r + beta p, A p' = A r + beta A p: the product A r needs only r,
 * so a ULT sums r.r across the processes while this thread exchanges r's
 * halo and computes A r; after the join, beta gives p' and A p' by two
 * vector updates. The product is computed once per iteration as before
 * (A r instead of A p), speculatively in the last one, as the seed's extra
 * MG. Under wisp the ULT's allreduce runs as MPI_Iallreduce and yields
 * while it waits (the program asks for WISP_THREAD_ULT); natively the ULT
 * runs when forked (bench/ult_bench.h), so the allreduce does not overlap
 * and the arithmetic is the same.
 *
 * variant=nb does the same with MPI_Iallreduce, started before the halo
 * exchange and the product and waited for after them (under wisp, the
 * node's nonblocking collectives: src/coll/nb.h; natively, the MPI's).
 *
 * Usage: cg [n=N] [iters=I] [tol=T] [map=cart|blocked] [variant=plain|ult|nb]
 * Metrics (rank 0): gflops, iter_ms, halo_us, dot_us, iterations.
 */
#include "../ult_bench.h"
#include "app_common.h"
#include "grid3d.h"

#define USAGE "[n=N] [iters=I] [tol=T] [map=cart|blocked] [variant=plain|ult|nb]"

static const char *prog = "cg";
static struct grid3d g;
static double *sendbuf[3][2], *recvbuf[3][2];
static double halo_s, dot_s;
static long halos, dots;

/* Fills the ghosts of u, edges and corners included: dimension by
 * dimension, each face widened by the ghosts already received. */
static void halo_exchange(double *u)
{
    double t0 = bench_now();
    for (int d = 0; d < 3; d++) {
        MPI_Request req[4];
        MPI_Status st[4];
        int count = (int)grid3d_face_count(&g, d, 1);
        for (int s = 0; s < 2; s++)
            MPI_Irecv(recvbuf[d][s], count, MPI_DOUBLE, g.nb[d][s], 1 - s, g.comm, &req[s]);
        for (int s = 0; s < 2; s++) {
            grid3d_face_copy(&g, u, d, s, 1, sendbuf[d][s], 0);
            MPI_Isend(sendbuf[d][s], count, MPI_DOUBLE, g.nb[d][s], s, g.comm, &req[2 + s]);
        }
        MPI_Waitall(4, req, st);
        for (int s = 0; s < 2; s++)
            if (g.nb[d][s] != MPI_PROC_NULL)
                grid3d_face_copy(&g, u, d, s, 1, recvbuf[d][s], 1);
    }
    halo_s += bench_now() - t0;
    halos++;
}

/* The local part of the dot product of two vectors (interior points only). */
static double dot_local(const double *x, const double *y)
{
    double local = 0.0;
    for (int i = 1; i <= g.n[0]; i++)
        for (int j = 1; j <= g.n[1]; j++)
            for (int k = 1; k <= g.n[2]; k++) {
                size_t c = grid3d_idx(&g, i, j, k);
                local += x[c] * y[c];
            }
    return local;
}

/* The dot product of two distributed vectors. */
static double dot(const double *x, const double *y)
{
    double local = dot_local(x, y), sum = 0.0;
    double t0 = bench_now();
    MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, g.comm);
    dot_s += bench_now() - t0;
    dots++;
    return sum;
}

/* variant=ult: the allreduce of a dot product, in a ULT (Listing 4's
 * ult_fn_dotprod); its time, from the fork to the end of the allreduce, is
 * not counted in dot_us, as the seed counts it inside the overlapped work. */
struct dot_ult {
    double local, sum;
};

static void dot_allreduce(void *arg)
{
    struct dot_ult *d = arg;
    MPI_Allreduce(&d->local, &d->sum, 1, MPI_DOUBLE, MPI_SUM, g.comm);
}

/* y = A u on the interior; u's ghosts must be current (0 outside the domain). */
static void spmv(const double *u, double *y)
{
    ptrdiff_t sj = g.n[2] + 2, si = sj * (g.n[1] + 2), nbr[26];
    int m = 0;
    for (int a = -1; a <= 1; a++)
        for (int b = -1; b <= 1; b++)
            for (int c = -1; c <= 1; c++)
                if (a || b || c)
                    nbr[m++] = a * si + b * sj + c;
    for (int i = 1; i <= g.n[0]; i++)
        for (int j = 1; j <= g.n[1]; j++)
            for (int k = 1; k <= g.n[2]; k++) {
                size_t c = grid3d_idx(&g, i, j, k);
                double sum = 26.0 * u[c];
                for (int q = 0; q < 26; q++)
                    sum -= u[(ptrdiff_t)c + nbr[q]];
                y[c] = sum;
            }
}

/* y = a x + b y on the interior. */
static void axpby(double a, const double *x, double b, double *y)
{
    for (int i = 1; i <= g.n[0]; i++)
        for (int j = 1; j <= g.n[1]; j++)
            for (int k = 1; k <= g.n[2]; k++) {
                size_t c = grid3d_idx(&g, i, j, k);
                y[c] = a * x[c] + b * y[c];
            }
}

int main(int argc, char **argv)
{
    const char *map = "cart", *variant = "plain";
    int n = 24, iters = 500;
    double tol = 1e-8;
    struct app_opt opts[] = {
        {"n", APP_INT, &n, 2, 1000, NULL},
        {"iters", APP_INT, &iters, 1, 100000, NULL},
        {"tol", APP_DOUBLE, &tol, 1e-15, 0.1, NULL},
        {"map", APP_WORD, &map, 0, 0, "cart|blocked"},
        {"variant", APP_WORD, &variant, 0, 0, "plain|ult|nb"},
    };
    int ult = 0, nb = 0;
    for (int a = 1; a < argc; a++) {
        ult |= strcmp(argv[a], "variant=ult") == 0;
        nb |= strcmp(argv[a], "variant=nb") == 0;
    }
    if (ult)
        ult_bench_init(&argc, &argv, prog);
    else
        MPI_Init(&argc, &argv);
    app_parse(prog, USAGE, argc, argv, opts, (int)(sizeof opts / sizeof opts[0]));
    int size, dims[3] = {0, 0, 0};
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Dims_create(size, 3, dims); /* as grid3d_setup does */
    int global[3] = {dims[0] * n, dims[1] * n, dims[2] * n};
    grid3d_setup(&g, MPI_COMM_WORLD, global, strcmp(map, "blocked") == 0);
    grid3d_describe(&g, prog, global);

    for (int d = 0; d < 3; d++)
        for (int s = 0; s < 2; s++) {
            sendbuf[d][s] = malloc(sizeof(double) * grid3d_face_count(&g, d, 1));
            recvbuf[d][s] = malloc(sizeof(double) * grid3d_face_count(&g, d, 1));
        }
    size_t points = grid3d_points(&g);
    double *x = calloc(points, sizeof(double)), *r = calloc(points, sizeof(double));
    double *p = calloc(points, sizeof(double)), *ap = calloc(points, sizeof(double));
    double *b = calloc(points, sizeof(double)), *ar = calloc(points, sizeof(double));
    if (!x || !r || !p || !ap || !b || !ar) {
        fprintf(stderr, "%s: no memory for a block of %zu points\n", prog, points);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* b = A 1: a vector of ones (zero ghosts outside the domain), one product. */
    for (int i = 1; i <= g.n[0]; i++)
        for (int j = 1; j <= g.n[1]; j++)
            for (int k = 1; k <= g.n[2]; k++)
                p[grid3d_idx(&g, i, j, k)] = 1.0;
    halo_exchange(p);
    spmv(p, b);
    double norm_b = sqrt(dot(b, b));

    /* CG from x = 0: r = p = b. */
    memcpy(r, b, sizeof(double) * points);
    memcpy(p, b, sizeof(double) * points);
    halo_s = dot_s = 0.0;
    halos = dots = 0;
    MPI_Barrier(g.comm);
    double t0 = bench_now(), rr = dot(r, r), rel = sqrt(rr) / norm_b;
    int it = 0;
    int ahead = ult || nb;     /* A p' from A r (the dot product overlapped) */
    if (ahead && rel >= tol) { /* A p for the first iteration */
        halo_exchange(p);
        spmv(p, ap);
    }
    while (it < iters && rel >= tol) {
        if (!ahead) {
            halo_exchange(p);
            spmv(p, ap);
        }
        double alpha = rr / dot(p, ap);
        axpby(alpha, p, 1.0, x);
        axpby(-alpha, ap, 1.0, r);
        double rr_new;
        if (ult) { /* r.r summed in a ULT while this thread computes ar = A r */
            struct dot_ult d = {dot_local(r, r), 0.0};
            wisp_ult_t u;
            ult_bench_fork(dot_allreduce, &d, &u);
            ult_bench_yield(); /* it starts the allreduce */
            halo_exchange(r);
            spmv(r, ar);
            ult_bench_join(u);
            rr_new = d.sum;
            axpby(1.0, ar, rr_new / rr, ap); /* A p' = A r + beta A p */
        } else if (nb) {                     /* the same with MPI_Iallreduce */
            double local = dot_local(r, r);
            MPI_Request req;
            MPI_Iallreduce(&local, &rr_new, 1, MPI_DOUBLE, MPI_SUM, g.comm, &req);
            halo_exchange(r);
            spmv(r, ar);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
            axpby(1.0, ar, rr_new / rr, ap);
        } else {
            rr_new = dot(r, r);
        }
        axpby(1.0, r, rr_new / rr, p);
        rr = rr_new;
        rel = sqrt(rr) / norm_b;
        it++;
    }
    double t = app_max(g.comm, bench_now() - t0);
    double halo_t = app_max(g.comm, halo_s), dot_t = app_max(g.comm, dot_s);
    long halo_n = halos, dot_n = dots;

    /* The check: the true residual and the solution. */
    halo_exchange(x);
    spmv(x, ap);
    axpby(1.0, b, -1.0, ap); /* ap = b - A x */
    double true_rel = sqrt(dot(ap, ap)) / norm_b, worst = 0.0;
    for (int i = 1; i <= g.n[0]; i++)
        for (int j = 1; j <= g.n[1]; j++)
            for (int k = 1; k <= g.n[2]; k++) {
                double e = fabs(x[grid3d_idx(&g, i, j, k)] - 1.0);
                worst = e > worst || isnan(e) ? e : worst;
            }
    double worst_all = app_max(g.comm, worst);
    if (g.rank == 0)
        printf(
            "# variant %s: %d iterations, ||r||/||b|| %.3g (recomputed %.3g), max |x - 1| %.3g\n",
            variant, it, rel, true_rel, worst_all);
    int bad = app_check(g.comm, prog, "converged within iters", rel >= tol);
    bad += app_check(g.comm, prog, "recomputed residual below 10 tol", !(true_rel < 10.0 * tol));
    bad += app_check(g.comm, prog, "solution within 1e-4 of all ones", !(worst <= 1e-4));
    if (!bad) {
        double flops = 64.0 * global[0] * global[1] * global[2] * it; /* HPCG's count, less MG */
        app_metric("gflops", flops / t / 1e9, "GFLOP/s", "higher");
        app_metric("iter_ms", t / it * 1e3, "ms", "lower");
        app_metric("halo_us", halo_t / (double)halo_n * 1e6, "us", "lower");
        app_metric("dot_us", dot_t / (double)dot_n * 1e6, "us", "lower");
        app_metric("iterations", it, "iterations", "lower");
    }
    for (int d = 0; d < 3; d++)
        for (int s = 0; s < 2; s++) {
            free(sendbuf[d][s]);
            free(recvbuf[d][s]);
        }
    free(x);
    free(r);
    free(p);
    free(ap);
    free(b);
    free(ar);
    grid3d_free(&g);
    return app_finish(bad);
}
