/*
 * dt_pack.c - MPI_Pack and MPI_Unpack of the faces of a 3-D grid of
 * doubles (seed 000, Fig. 3.12), from an OpenMP program whose threads are
 * idle while its main thread packs outside a parallel region: under wisp
 * (WISP_DT_THREADS unset) they share the work, natively the MPI packs
 * alone.
 *
 *   dt_pack [N] [REPS]     an N^3 grid (default 256), REPS packs a chunk
 *
 * Faces of the grid [z][y][x] (C order): x (one double at a stride of N: N^2
 * blocks of 8 B), y (N blocks of N doubles at a stride of N^2), z (one run of
 * N^2 doubles), and a vector of vectors (N/2 planes of every other row's
 * first half: 3.12c). Metrics: pack_us_<face> and unpack_us_<face>, medians
 * of 9 chunks. The last packed bytes are checked against a gather by hand,
 * and the unpacked grid (the face's cells, zeros elsewhere) against the grid.
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_check.h" /* bench_median */

enum { CHUNKS = 9, FACES = 4 };

static const char *const names[FACES] = {"x", "y", "z", "vecvec"};

static MPI_Datatype face_type(int face, int n)
{
    MPI_Datatype t, row;
    int sizes[3] = {n, n, n}, sub[3] = {n, n, n}, start[3] = {0, 0, 0};
    switch (face) {
    case 0:
        sub[2] = 1, start[2] = n / 2;
        break;
    case 1:
        sub[1] = 1, start[1] = n / 2;
        break;
    case 2:
        sub[0] = 1, start[0] = n / 2;
        break;
    default: /* n/2 planes, each n/2 rows (every other one) of n/2 doubles */
        MPI_Type_vector(n / 2, n / 2, 2 * n, MPI_DOUBLE, &row);
        MPI_Type_create_hvector(n / 2, 1, (MPI_Aint)n * n * sizeof(double), row, &t);
        MPI_Type_free(&row);
        MPI_Type_commit(&t);
        return t;
    }
    MPI_Type_create_subarray(3, sizes, sub, start, MPI_ORDER_C, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    return t;
}

/* Whether grid element (z, y, x) is in the face; the faces' packed order is
 * the grid's order, so a scan in that order gathers them. */
static int in_face(int face, int n, int z, int y, int x)
{
    switch (face) {
    case 0:
        return x == n / 2;
    case 1:
        return y == n / 2;
    case 2:
        return z == n / 2;
    default:
        return z < n / 2 && y < n && y % 2 == 0 && x < n / 2;
    }
}

static int gather_check(int face, int n, const double *grid, const double *packed, size_t count)
{
    size_t k = 0;
    for (int z = 0; z < n; z++)
        for (int y = 0; y < n; y++)
            for (int x = 0; x < n; x++)
                if (in_face(face, n, z, y, x)) {
                    size_t at = ((size_t)z * n + y) * n + x;
                    if (k >= count || packed[k] != grid[at])
                        return 1;
                    k++;
                }
    return k != count;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int n = argc > 1 ? atoi(argv[1]) : 256, reps = argc > 2 ? atoi(argv[2]) : 20;
    if (n < 4 || n > 1024 || n % 2 || reps < 1) {
        fprintf(stderr, "usage: dt_pack [N: even, 4-1024] [REPS]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    size_t cells = (size_t)n * n * n;
    double *grid = malloc(cells * sizeof *grid), *back = malloc(cells * sizeof *back);
    size_t most = cells / 8 > (size_t)n * n ? cells / 8 : (size_t)n * n; /* the largest face */
    double *packed = malloc(most * sizeof *packed);
    if (!grid || !back || !packed) {
        fprintf(stderr, "dt_pack: cannot allocate a %d^3 grid\n", n);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
#pragma omp parallel for /* the pool exists, then idles */
    for (size_t i = 0; i < cells; i++)
        grid[i] = (double)i * 0.5 + 1.0;
    int bad = 0, rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        printf("# dt_pack: %d^3 grid of doubles, %d packs a chunk, %d OpenMP threads\n", n, reps,
               omp_get_max_threads());
    for (int face = 0; face < FACES; face++) {
        MPI_Datatype t = face_type(face, n);
        int size;
        MPI_Type_size(t, &size);
        double pack[CHUNKS], unpack[CHUNKS];
        memset(back, 0, cells * sizeof *back);
        for (int c = -1; c < CHUNKS; c++) { /* chunk -1: warm-up */
            double t0 = MPI_Wtime();
            for (int r = 0; r < reps; r++) {
                int at = 0;
                MPI_Pack(grid, 1, t, packed, size, &at, MPI_COMM_WORLD);
                bad |= at != size;
            }
            double t1 = MPI_Wtime();
            double t2 = MPI_Wtime();
            for (int r = 0; r < reps; r++) {
                int at = 0;
                MPI_Unpack(packed, size, &at, back, 1, t, MPI_COMM_WORLD);
                bad |= at != size;
            }
            double t3 = MPI_Wtime();
            if (c >= 0) {
                pack[c] = (t1 - t0) / reps * 1e6;
                unpack[c] = (t3 - t2) / reps * 1e6;
            }
        }
        bad |= gather_check(face, n, grid, packed, (size_t)size / sizeof(double));
        for (size_t i = 0; i < cells && !bad; i++) {
            int z = (int)(i / ((size_t)n * n)), y = (int)(i / n % n), x = (int)(i % n);
            bad = back[i] != (in_face(face, n, z, y, x) ? grid[i] : 0.0);
        }
        if (bad) {
            fprintf(stderr, "dt_pack: face %s packed or unpacked wrong\n", names[face]);
            break;
        }
        if (rank == 0) {
            printf("metric pack_us_%s %.2f us lower\n", names[face], bench_median(pack, CHUNKS));
            printf("metric unpack_us_%s %.2f us lower\n", names[face],
                   bench_median(unpack, CHUNKS));
        }
        MPI_Type_free(&t);
    }
    free(grid);
    free(back);
    free(packed);
    MPI_Finalize();
    return bad;
}
