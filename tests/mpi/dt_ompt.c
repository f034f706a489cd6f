/*
 * Idle OpenMP threads inside a parallel region (src/team/ompt.c): compiled
 * with -fopenmp, linked against LLVM's libomp (OMPT), 2 threads. Thread 0
 * packs and unpacks a Y face of a 128^3 grid (128 KiB, 128 runs) while
 * thread 1 waits at a barrier, every byte checked against a plain loop;
 * then what must stay correct around parking: explicit tasks that only a
 * thread at the barrier can run (thread 0 spins for them), a serialized
 * and an active nested region, a region of one thread, packing threads
 * that change from round to round (two at once), a thread OpenMP does not
 * know, many barriers.
 *
 * t_dt_ompt help: threads parked at barriers must have done part of the
 * packs (wisp_dt_counter); t_dt_ompt alone (WISP_DT_THREADS=1, or another
 * OMPT tool in the process): none.
 */
#include <mpi.h>
#include <omp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "wisp.h"

enum { N = 128, Y = 37 };

static MPI_Datatype yface; /* the plane y = Y of an N^3 grid [z][y][x] */
static double *grid;       /* grid[i] = i */
static int face_bytes;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Pack the face, check it; unpack it into a grid of -1, check that only the
 * face changed. Returns whether every byte was right. */
static bool pack_unpack(char *packed, double *into)
{
    int at = 0;
    CHECK(MPI_Pack(grid, 1, yface, packed, face_bytes, &at, MPI_COMM_SELF) == MPI_SUCCESS);
    CHECK(at == face_bytes);
    const double *p = (const double *)packed;
    bool ok = true;
    for (int z = 0; z < N; z++)
        for (int x = 0; x < N; x++)
            ok &= p[z * N + x] == (double)(((size_t)z * N + Y) * N + x);
    for (size_t i = 0; i < (size_t)N * N * N; i++)
        into[i] = -1;
    at = 0;
    CHECK(MPI_Unpack(packed, face_bytes, &at, into, 1, yface, MPI_COMM_SELF) == MPI_SUCCESS);
    for (size_t i = 0; i < (size_t)N * N * N; i++)
        ok &= into[i] == ((i / N) % N == Y ? (double)i : -1.0);
    CHECK(ok);
    return ok;
}

static unsigned long long ranges(void)
{
    return wisp_dt_counter("parked_ranges");
}

/* Thread 0 packs while thread 1 waits at the barrier: until parked threads
 * did some ranges (at least 20 rounds; at most 300 or 0.5 s, well below
 * the second a thread parks at most). */
static void parked(bool help)
{
    unsigned long long before = ranges(), shared = wisp_dt_counter("shared_inside");
    int rounds = 0;
#pragma omp parallel num_threads(2)
    {
        char *packed = malloc((size_t)face_bytes);
        double *into = malloc(sizeof(double) * N * N * N);
        if (omp_get_thread_num() == 0) {
            usleep(50000); /* thread 1 reaches the barrier and parks */
            double start = now();
            while (rounds < 300 &&
                   (rounds < 20 || (help && ranges() == before && now() - start < 0.5))) {
                pack_unpack(packed, into);
                rounds++;
            }
        }
        free(packed);
        free(into);
#pragma omp barrier
    }
    unsigned long long got = ranges() - before;
    printf("parked: %d rounds, %llu ranges by the parked thread, %llu packs offered\n", rounds, got,
           wisp_dt_counter("shared_inside") - shared);
    CHECK(help ? got > 0 : got == 0);
    CHECK(help ? wisp_dt_counter("shared_inside") > shared : wisp_dt_counter("shared_inside") == 0);
}

/* A task that only thread 1 can run, from inside the barrier: thread 0
 * spins on its flag (not a scheduling point). Thread 1 is parked first
 * (late), or arrives after the task exists (early). No hang. */
static void tasks(bool late)
{
    atomic_int flag = 0;
    bool ran = false;
    char *packed = malloc((size_t)face_bytes);
    double *into = malloc(sizeof(double) * N * N * N);
#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 0) {
            if (late)
                usleep(30000);
#pragma omp task shared(flag)
            atomic_store(&flag, 1);
            pack_unpack(packed, into); /* alone or helped: right either way */
            double start = now();
            while (!atomic_load(&flag) && now() - start < 20)
                ;
            ran = atomic_load(&flag);
        } else if (!late) {
            usleep(30000);
        }
#pragma omp barrier
    }
    CHECK(ran);
    free(packed);
    free(into);
}

/* A serialized nested region (its own region of one thread: nobody to
 * help), a region of one thread, and active nested regions where the
 * thread 0 of each inner team packs while its thread 1 waits (threads of
 * other regions parked meanwhile). */
static void nested(bool multiple)
{
    char *packed = malloc((size_t)face_bytes);
    double *into = malloc(sizeof(double) * N * N * N);
#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 0) {
            usleep(20000);
#pragma omp parallel num_threads(2)
            {
                pack_unpack(packed, into);
#pragma omp barrier
            }
            pack_unpack(packed, into);
        }
#pragma omp barrier
    }
#pragma omp parallel num_threads(1)
    {
        pack_unpack(packed, into);
#pragma omp barrier
        pack_unpack(packed, into);
    }
    free(packed);
    free(into);
    printf("nested: active nested regions %s\n",
           multiple ? "run" : "skipped (no MPI_THREAD_MULTIPLE)");
    if (!multiple)
        return;
    omp_set_max_active_levels(2);
#pragma omp parallel num_threads(2)
    {
#pragma omp parallel num_threads(2)
        {
            char *mine = malloc((size_t)face_bytes);
            double *back = malloc(sizeof(double) * N * N * N);
            if (omp_get_thread_num() == 0) {
                usleep(20000);
                for (int i = 0; i < 5; i++)
                    pack_unpack(mine, back);
            }
            free(mine);
            free(back);
#pragma omp barrier
        }
    }
    omp_set_max_active_levels(1);
}

/* Rounds where the packing threads change: in round r, thread r % n
 * packs (and, with `two`, thread r + 1 too, at the same time: one of them
 * finds the region's job taken and packs alone) while the others wait at
 * the barrier. More threads than cores with n = 3. */
static void rotating(int n, bool two)
{
#pragma omp parallel num_threads(n)
    {
        char *packed = malloc((size_t)face_bytes);
        double *into = malloc(sizeof(double) * N * N * N);
        int me = omp_get_thread_num(), team = omp_get_num_threads();
        for (int r = 0; r < 40; r++) {
            if (me == r % team || (two && me == (r + 1) % team))
                pack_unpack(packed, into);
#pragma omp barrier
        }
        free(packed);
        free(into);
    }
}

/* A thread that OpenMP does not know packs (as a progress thread or the
 * application's own would), while a region's thread waits at a barrier:
 * alone, right, and the runtime left alone. */
static void *foreign_pack(void *arg)
{
    (void)arg;
    char *packed = malloc((size_t)face_bytes);
    double *into = malloc(sizeof(double) * N * N * N);
    for (int i = 0; i < 5; i++)
        pack_unpack(packed, into);
    free(packed);
    free(into);
    return NULL;
}

static void foreign(void)
{
#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 0) {
            pthread_t thread;
            CHECK(pthread_create(&thread, NULL, foreign_pack, NULL) == 0);
            pthread_join(thread, NULL);
        }
#pragma omp barrier
    }
}

/* Barriers of every kind, many times: the sums must come out. */
static void barriers(void)
{
    enum { ROUNDS = 3000, M = 64 };
    long sum = 0, singles = 0, criticals = 0;
    static long a[M];
#pragma omp parallel num_threads(2)
    {
        for (int r = 0; r < ROUNDS; r++) {
#pragma omp for
            for (int i = 0; i < M; i++)
                a[i] = r + i;
#pragma omp for reduction(+ : sum)
            for (int i = 0; i < M; i++)
                sum += a[i];
#pragma omp single
            singles++;
#pragma omp critical
            criticals++;
#pragma omp barrier
        }
    }
    long want = 0;
    for (int r = 0; r < ROUNDS; r++)
        for (int i = 0; i < M; i++)
            want += r + i;
    CHECK(sum == want);
    CHECK(singles == ROUNDS);
    CHECK(criticals == 2 * ROUNDS);
}

int main(int argc, char **argv)
{
    /* Regions before MPI_Init: wisp's team is not on yet, nothing parks. */
#pragma omp parallel num_threads(2)
    {
#pragma omp barrier
    }
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    bool help = argc > 1 && !strcmp(argv[1], "help");
    int sizes[3] = {N, N, N}, sub[3] = {N, 1, N}, starts[3] = {0, Y, 0};
    MPI_Type_create_subarray(3, sizes, sub, starts, MPI_ORDER_C, MPI_DOUBLE, &yface);
    MPI_Type_commit(&yface);
    MPI_Pack_size(1, yface, MPI_COMM_SELF, &face_bytes);
    grid = malloc(sizeof(double) * N * N * N);
    for (size_t i = 0; i < (size_t)N * N * N; i++)
        grid[i] = (double)i;

    parked(help);
    tasks(true);
    tasks(false);
    nested(provided == MPI_THREAD_MULTIPLE);
    rotating(2, false);
    if (provided == MPI_THREAD_MULTIPLE) {
        rotating(3, true);
        foreign();
    }
    barriers();
    parked(help); /* still helping after all that */
    if (!help)
        CHECK(ranges() == 0);

    MPI_Type_free(&yface);
    free(grid);
    MPI_Finalize();
    if (failures)
        fprintf(stderr, "dt_ompt: %d checks failed\n", failures);
    return failures != 0;
}
