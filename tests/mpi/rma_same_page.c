/*
 * Windows made one after another at neighbouring addresses of one page, as
 * a program that creates a window over each new malloc'd buffer does (MPICH's
 * rma/accfence2): each window gets its own base, and a put in its fence
 * epoch lands in its own memory. MPICH over UCX took the base of the second
 * window from UCX's registration cache of the first, so every second
 * window's puts landed at the old address (natively too); wisp's heap hands
 * out such addresses where glibc reused one, so wisp turns that cache off
 * for MPICH (src/core/quirks.c). Both a malloc'd page (the shared heap
 * under wisp) and a static one (private memory).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h" /* tests/check.h */

enum { ROUNDS = 6, INTS = 1024 };

static int static_page[INTS] __attribute__((aligned(4096)));

static void windows_on(int *page, int rank)
{
    for (int round = 0; round < ROUNDS; round++) {
        int *base = page + 8 + 2 * (round % 3); /* 3 addresses of one page, in turn */
        base[0] = base[1] = -1;
        MPI_Win win;
        MPI_Win_create(base, 2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        void *attr = NULL;
        int flag = 0;
        MPI_Win_get_attr(win, MPI_WIN_BASE, &attr, &flag);
        CHECK(flag && attr == base);
        MPI_Win_fence(0, win);
        if (rank == 1) {
            int value[2] = {round, -round};
            MPI_Put(value, 2, MPI_INT, 0, 0, 2, MPI_INT, win);
        }
        MPI_Win_fence(0, win);
        if (rank == 0 && (base[0] != round || base[1] != -round)) {
            fprintf(stderr, "round %d: window at %p holds %d %d, not %d %d\n", round, (void *)base,
                    base[0], base[1], round, -round);
            failures++;
        }
        MPI_Win_free(&win);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int *heap_page = aligned_alloc(4096, INTS * sizeof(int));
    CHECK(heap_page != NULL);
    windows_on(heap_page, rank);
    windows_on(static_page, rank);
    free(heap_page);
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf("rma_same_page: ok\n");
    MPI_Finalize();
    return all != 0;
}
