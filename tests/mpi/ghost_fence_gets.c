/*
 * Gets of single ints in a fence epoch on MPI_Win_create windows of
 * MPI_Alloc_mem memory, as MPICH's rma/test5_am makes them, many rounds:
 * after the closing fence every get must have landed. Under WISP_GHOSTS=1
 * (MPICH 4.0.2, UCX 1.13) some of rank 1's gets had not, in about a tenth
 * of the rounds (the rest of the buffer still -1) after MPI_Win_flush_all
 * of the internal window had returned; never natively, never with
 * WISP_ASYNC=off. wisp now flushes internal windows target by target
 * (src/ghost/issue.c, wisp_ghost_flush_each).
 *
 * usage: ghost_fence_gets [rounds]   (default 50)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h" /* tests/check.h */

enum { SIZE = 2000 };

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, *mine, *got, rounds = argc > 1 ? atoi(argv[1]) : 50;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Alloc_mem(SIZE * sizeof(int), MPI_INFO_NULL, &mine);
    MPI_Alloc_mem(SIZE * sizeof(int), MPI_INFO_NULL, &got);
    int from = (rank + 1) % size, bad = 0;
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < SIZE; i++)
            mine[i] = 1000 * (rank + 1) + i + r;
        MPI_Win win;
        MPI_Win_create(mine, SIZE * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        MPI_Win_fence(0, win);
        for (int i = 0; i < SIZE; i++) {
            got[i] = -1;
            MPI_Get(&got[i], 1, MPI_INT, from, i, 1, MPI_INT, win);
        }
        MPI_Win_fence(0, win);
        int wrong = 0, first = -1;
        for (int i = 0; i < SIZE; i++)
            if (got[i] != 1000 * (from + 1) + i + r && wrong++ == 0)
                first = i;
        if (wrong) {
            printf("rank %d round %d: %d gets not landed, from element %d (%d there)\n", rank, r,
                   wrong, first, got[first]);
            bad++;
        }
        MPI_Win_free(&win);
    }
    CHECK(bad == 0);
    MPI_Free_mem(mine);
    MPI_Free_mem(got);
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("ghost_fence_gets: %d rounds: %s\n", rounds, all ? "FAILED" : "OK");
    MPI_Finalize();
    return all ? 1 : 0;
}
