/*
 * MPI_Win_allocate's windows that no ghost serves, which wisp makes with
 * MPI_Win_create over its shared heap where WISP_WIN_ALLOCATE says so
 * (ghost/heap_win.c), must look and work as the MPI's own: the predefined
 * attributes (MPI_WIN_CREATE_FLAVOR still MPI_WIN_FLAVOR_ALLOCATE), a user
 * attribute's delete callback at MPI_Win_free, puts, gets and accumulates
 * in lock_all and fence epochs, a process with no bytes, a communicator of
 * some processes. The memory goes back to the heap at MPI_Win_free (80
 * windows of 1 MiB in a 32 MiB heap, the last in it), and a window larger than
 * one process's heap sends every process to the MPI's MPI_Win_allocate
 * (decided together: never a mix, which would hang).
 *
 * Argument: heap or mpi, where the windows are expected to be made.
 */
#include <mpi.h>
#include <stdint.h>
#include <string.h>

#include "check.h" /* tests/check.h */
#include "wisp.h"

enum { N = 512, MANY = 80, MIB = 1 << 20 };

static int deleted;

static int on_delete(MPI_Win win, int keyval, void *value, void *extra)
{
    (void)win, (void)keyval, (void)extra;
    deleted += *(int *)value;
    return MPI_SUCCESS;
}

static void check_attributes(MPI_Win win, void *base, MPI_Aint size, int disp_unit)
{
    void *value;
    int flag = 0;
    MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &value, &flag);
    CHECK(flag && *(int *)value == MPI_WIN_FLAVOR_ALLOCATE);
    MPI_Win_get_attr(win, MPI_WIN_BASE, &value, &flag);
    CHECK(flag && (size == 0 || value == base));
    MPI_Win_get_attr(win, MPI_WIN_SIZE, &value, &flag);
    CHECK(flag && *(MPI_Aint *)value == size);
    MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &value, &flag);
    CHECK(flag && *(int *)value == disp_unit);
    MPI_Win_get_attr(win, MPI_WIN_MODEL, &value, &flag);
    CHECK(flag && (*(int *)value == MPI_WIN_UNIFIED || *(int *)value == MPI_WIN_SEPARATE));
}

/* Puts, accumulates and gets among the processes of comm, on windows of N
 * longs (none at `empty`, which only originates). */
static void exercise(MPI_Comm comm, int empty, int expect_heap)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Aint bytes = rank == empty ? 0 : N * (MPI_Aint)sizeof(long);
    long *base = NULL;
    MPI_Win win;
    CHECK(MPI_Win_allocate(bytes, sizeof(long), MPI_INFO_NULL, comm, &base, &win) == MPI_SUCCESS);
    if (bytes)
        CHECK(wisp_heap_contains(base) == expect_heap);
#if !defined(OPEN_MPI)
    else
        CHECK(base == NULL); /* MPICH's base of no bytes */
#endif
    check_attributes(win, base, bytes, sizeof(long));
    int keyval, one = 1;
    MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, on_delete, &keyval, NULL);
    MPI_Win_set_attr(win, keyval, &one);
    for (int i = 0; i < bytes / (MPI_Aint)sizeof(long); i++)
        base[i] = 0;

    /* lock_all: every process puts its rank into element `rank` of every
     * other window and adds rank + 1 to element N - 1; then reads them. */
    MPI_Barrier(comm);
    MPI_Win_lock_all(0, win);
    long mine = rank, add = rank + 1;
    for (int t = 0; t < size; t++) {
        if (t == empty)
            continue;
        MPI_Put(&mine, 1, MPI_LONG, t, rank, 1, MPI_LONG, win);
        MPI_Accumulate(&add, 1, MPI_LONG, t, N - 1, 1, MPI_LONG, MPI_SUM, win);
        MPI_Win_flush(t, win);
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(comm);
    long sum = (long)size * (size + 1) / 2;
    if (bytes) {
        for (int r = 0; r < size; r++)
            CHECK(base[r] == r);
        CHECK(base[N - 1] == sum);
    }

    /* fence: each reads its right neighbour's element N - 1, and puts a
     * vector into the left one's middle. */
    long got = -1, vec[16];
    for (int i = 0; i < 16; i++)
        vec[i] = 1000 * rank + i;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Win_fence(0, win);
    if (right != empty)
        MPI_Get(&got, 1, MPI_LONG, right, N - 1, 1, MPI_LONG, win);
    if (left != empty)
        MPI_Put(vec, 16, MPI_LONG, left, N / 2, 16, MPI_LONG, win);
    MPI_Win_fence(0, win);
    if (right != empty)
        CHECK(got == sum);
    if (bytes)
        for (int i = 0; i < 16; i++)
            CHECK(base[N / 2 + i] == 1000 * right + i);

    deleted = 0;
    CHECK(MPI_Win_free(&win) == MPI_SUCCESS && win == MPI_WIN_NULL);
    CHECK(deleted == 1);
    MPI_Win_free_keyval(&keyval);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int expect_heap = argc > 1 && !strcmp(argv[1], "heap");
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    exercise(MPI_COMM_WORLD, -1, expect_heap);
    exercise(MPI_COMM_WORLD, 0, expect_heap);
    MPI_Comm some; /* the processes but the last */
    MPI_Comm_split(MPI_COMM_WORLD, rank < size - 1 ? 0 : MPI_UNDEFINED, rank, &some);
    if (some != MPI_COMM_NULL) {
        exercise(some, -1, expect_heap);
        MPI_Comm_free(&some);
    }

    /* Freed windows give their memory back: 80 MiB through a 32 MiB heap. */
    for (int w = 0; w < MANY; w++) {
        char *base;
        MPI_Win win;
        MPI_Win_allocate(MIB, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
        if (w == MANY - 1) {
            CHECK(wisp_heap_contains(base) == expect_heap);
            CHECK(wisp_heap_contains(base + MIB - 1) == expect_heap);
        }
        base[0] = base[MIB - 1] = (char)w;
        MPI_Win_free(&win);
    }

    /* Larger than rank 0's heap: every process gets the MPI's window. */
    MPI_Aint big = rank == 0 ? (MPI_Aint)128 * MIB : 4096;
    char *base;
    MPI_Win win;
    CHECK(MPI_Win_allocate(big, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win) == MPI_SUCCESS);
    CHECK(!wisp_heap_contains(base));
    check_attributes(win, base, big, 1);
    char byte = (char)(rank + 1), seen = 0;
    MPI_Win_fence(0, win);
    MPI_Put(&byte, 1, MPI_CHAR, (rank + 1) % size, 100, 1, MPI_CHAR, win);
    MPI_Win_fence(0, win);
    seen = base[100];
    CHECK(seen == (char)((rank + size - 1) % size + 1));
    MPI_Win_free(&win);

    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(all ? "FAILED (%d checks)\n" : "ok\n", all);
    MPI_Finalize();
    return all != 0;
}
