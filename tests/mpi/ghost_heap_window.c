/*
 * MPI_Win_create on memory of wisp's shared heap (malloc under wisp, or
 * MPI_Alloc_mem where another malloc comes first, as with AddressSanitizer)
 * is served by the ghosts (docs/ghosts.md). Run with ghosts only: rank 0
 * computes outside MPI until the others' accumulates have all reached its
 * memory, which with MPICH only a ghost can apply meanwhile (natively the
 * test would wait until its deadline and fail). Then exact results: puts of
 * vectors and gets over the whole windows, and the window's attributes.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "check.h" /* tests/check.h */
#include "wisp.h"

enum { N = 1000, REPS = 20, DEADLINE_S = 30 };

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* Ints: [0] the counter, then N values. */
    int *mem = malloc(sizeof *mem * (N + 1));
    int from_malloc = wisp_heap_contains(mem);
    if (!from_malloc) {
        free(mem);
        MPI_Alloc_mem(sizeof *mem * (N + 1), MPI_INFO_NULL, &mem);
    }
    CHECK(wisp_heap_contains(mem));
    for (int e = 0; e <= N; e++)
        mem[e] = -1;
    mem[0] = 0;
    MPI_Win win;
    MPI_Win_create(mem, sizeof *mem * (N + 1), sizeof *mem, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    int *flavor, flag = 0;
    void *base = NULL;
    MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
    CHECK(flag && *flavor == MPI_WIN_FLAVOR_CREATE);
    MPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag);
    CHECK(flag && base == mem);
    MPI_Barrier(MPI_COMM_WORLD);

    /* A busy target: rank 0 makes no MPI call until every accumulate arrived. */
    int want = (size - 1) * REPS;
    if (rank == 0) {
        double deadline = now() + DEADLINE_S;
        while (__atomic_load_n(&mem[0], __ATOMIC_ACQUIRE) < want && now() < deadline)
            ;
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        int got = mem[0];
        MPI_Win_unlock(0, win);
        if (got != want)
            fprintf(stderr,
                    "rank 0: counter %d of %d after %d s outside MPI: the window is not "
                    "served by ghosts\n",
                    got, want, DEADLINE_S);
        CHECK(got == want);
    } else {
        int one = 1;
        for (int i = 0; i < REPS; i++) {
            MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
            MPI_Accumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win);
            MPI_Win_flush(0, win);
            MPI_Win_unlock(0, win);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* Every origin puts r * 100000 + target * 1000 + e into elements e = r mod size of every
     * target, with a vector type, then reads whole windows back. */
    int count = (N - rank + size - 1) / size;
    MPI_Datatype every;
    MPI_Type_vector(count, 1, size, MPI_INT, &every);
    MPI_Type_commit(&every);
    int *src = malloc(sizeof *src * N), *got = malloc(sizeof *got * N);
    MPI_Win_lock_all(0, win);
    for (int t = 0; t < size; t++) {
        for (int k = 0; k < count; k++)
            src[k] = rank * 100000 + t * 1000 + rank + k * size;
        MPI_Put(src, count, MPI_INT, t, 1 + rank, 1, every, win);
        MPI_Win_flush(t, win);
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    int bad = 0;
    MPI_Win_lock_all(0, win);
    for (int t = 0; t < size; t++) {
        MPI_Get(got, N, MPI_INT, t, 1, N, MPI_INT, win);
        MPI_Win_flush(t, win);
        for (int e = 0; e < N; e++)
            bad += got[e] != (e % size) * 100000 + t * 1000 + e;
    }
    MPI_Win_unlock_all(win);
    CHECK(bad == 0);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Type_free(&every);
    free(src);
    free(got);
    if (from_malloc)
        free(mem);
    else
        MPI_Free_mem(mem);

    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("ghost_heap_window: %d ranks, memory from %s: %s\n", size,
               from_malloc ? "malloc" : "MPI_Alloc_mem", all ? "FAILED" : "ok");
    MPI_Finalize();
    return all != 0;
}
