/*
 * Simultaneous epochs of different kinds on disjoint groups, and several
 * windows at once (Casper 4.5.4): the ghosts of a node serve all of them,
 * so none of their synchronizations may block a ghost. With the even ranks
 * in PSCW epochs among themselves while the odd ranks hold exclusive locks
 * among themselves on the same window, a second window in a lock_all epoch
 * of everyone, a third window that is the MPI's own (over the even ranks
 * only, so not served) in fence epochs, each round's results are checked.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h" /* tests/check.h */

/* Windows of whole pages: MPICH 4.0.2 (ch4/ucx) targets the start of the page
 * that holds a smaller MPI_Win_allocate window (fixed by pmodels/mpich PR 6140). */
enum { PAGE = 4096 };

enum { ROUNDS = 6 };

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *a, *b;
    MPI_Win wa, wb, wc = MPI_WIN_NULL;
    MPI_Win_allocate(PAGE, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &a, &wa);
    MPI_Win_allocate(PAGE, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &b, &wb);
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    int hrank, hsize, *cmem = NULL;
    MPI_Comm_rank(half, &hrank);
    MPI_Comm_size(half, &hsize);
    if (posix_memalign((void **)&cmem, PAGE, PAGE))
        MPI_Abort(MPI_COMM_WORLD, 1);
    cmem[0] = 0;
    /* (Open MPI 4.1.4 cannot create a window over one process of a split communicator.) */
    if (rank % 2 == 0 && hsize > 1)
        MPI_Win_create(cmem, PAGE, sizeof(int), MPI_INFO_NULL, half, &wc);
    for (int i = 0; i < 4; i++)
        a[i] = b[i] = 0;
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Group world;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    /* Even ranks: a PSCW ring among the even ranks. */
    int evens = (size + 1) / 2, epos = rank / 2;
    int next = 2 * ((epos + 1) % evens), prev = 2 * ((epos + evens - 1) % evens);
    MPI_Group to_next, from_prev;
    MPI_Group_incl(world, 1, &next, &to_next);
    MPI_Group_incl(world, 1, &prev, &from_prev);

    MPI_Win_lock_all(0, wb);
    for (int round = 1; round <= ROUNDS; round++) {
        if (rank % 2 == 0) {
            MPI_Win_post(from_prev, 0, wa);
            MPI_Win_start(to_next, 0, wa);
            MPI_Put(&round, 1, MPI_INT, next, 0, 1, MPI_INT, wa);
            MPI_Accumulate(&round, 1, MPI_INT, next, 1, 1, MPI_INT, MPI_SUM, wa);
            MPI_Win_complete(wa);
            MPI_Win_wait(wa);
            CHECK(a[0] == round && a[1] == round * (round + 1) / 2);
            /* The MPI's own window, fence epochs among the even ranks. */
            if (wc != MPI_WIN_NULL) {
                MPI_Win_fence(0, wc);
                MPI_Accumulate(&round, 1, MPI_INT, (hrank + 1) % hsize, 0, 1, MPI_INT, MPI_SUM, wc);
                MPI_Win_fence(0, wc);
                CHECK(cmem[0] == round * (round + 1) / 2);
            }
        } else {
            /* Odd ranks: exclusive read-modify-write of slot 2 of every odd rank. */
            for (int t = 1; t < size; t += 2) {
                int v = -1;
                MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, wa);
                MPI_Get(&v, 1, MPI_INT, t, 2, 1, MPI_INT, wa);
                MPI_Win_flush(t, wa);
                v++;
                MPI_Put(&v, 1, MPI_INT, t, 2, 1, MPI_INT, wa);
                MPI_Win_unlock(t, wa);
            }
        }
        /* Everyone, on the other window: one accumulate into every rank. */
        int one = 1;
        for (int t = 0; t < size; t++)
            MPI_Accumulate(&one, 1, MPI_INT, t, 0, 1, MPI_INT, MPI_SUM, wb);
        MPI_Win_flush_all(wb);
    }
    MPI_Win_unlock_all(wb);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, wb);
    CHECK(b[0] == size * ROUNDS);
    MPI_Win_unlock(rank, wb);
    if (rank % 2) {
        MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, wa);
        CHECK(a[2] == (size / 2) * ROUNDS);
        MPI_Win_unlock(rank, wa);
    }

    MPI_Group_free(&to_next);
    MPI_Group_free(&from_prev);
    MPI_Group_free(&world);
    if (wc != MPI_WIN_NULL)
        MPI_Win_free(&wc);
    MPI_Comm_free(&half);
    free(cmem);
    MPI_Win_free(&wb);
    MPI_Win_free(&wa);

    int all_failures = 0;
    MPI_Allreduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("rma_epochs: %d ranks: %s\n", size, all_failures ? "FAILED" : "ok");
    MPI_Finalize();
    return all_failures != 0;
}
