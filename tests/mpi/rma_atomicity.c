/*
 * Accumulate atomicity and ordering from several origins into the same
 * elements (issue 4, Casper 4.5.3): with several ghosts per node each
 * process must stay with one ghost, or two ghosts would update one element
 * at once, or reorder one origin's operations.
 *
 * - Every rank adds 1 to the same ELEMS elements of every rank, ROUNDS
 *   times, with MPI_Accumulate, MPI_Get_accumulate and MPI_Fetch_and_op
 *   mixed, inside one lock_all epoch: each element ends at 3 * size * ROUNDS.
 * - Ordering: each rank replaces its own slot of every rank with 1, 2, ...,
 *   ORDERED without flushing in between (MPI_REPLACE; default
 *   accumulate_ordering), then reads it back with MPI_Get_accumulate
 *   (MPI_NO_OP) before the flush: the read must see the last value.
 */
#include <mpi.h>
#include <stdio.h>

#include "check.h" /* tests/check.h */

/* Windows of whole pages: MPICH 4.0.2 (ch4/ucx) targets the start of the page
 * that holds a smaller MPI_Win_allocate window (fixed by pmodels/mpich PR 6140). */
enum { PAGE = 4096 };

enum { ELEMS = 4, ROUNDS = 10, ORDERED = 20, SLOTS = ELEMS + 16 };

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long *mem;
    MPI_Win win;
    MPI_Win_allocate(PAGE, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
    for (int i = 0; i < SLOTS; i++)
        mem[i] = 0;
    MPI_Win_unlock(rank, win);
    MPI_Barrier(MPI_COMM_WORLD);

    long one[ELEMS], old[ELEMS];
    for (int i = 0; i < ELEMS; i++)
        one[i] = 1;
    MPI_Win_lock_all(0, win);
    for (int round = 0; round < ROUNDS; round++) {
        for (int k = 0; k < size; k++) {
            int t = (rank + k) % size; /* everyone starts on a different target */
            MPI_Accumulate(one, ELEMS, MPI_LONG, t, 0, ELEMS, MPI_LONG, MPI_SUM, win);
            MPI_Get_accumulate(one, ELEMS, MPI_LONG, old, ELEMS, MPI_LONG, t, 0, ELEMS, MPI_LONG,
                               MPI_SUM, win);
            for (int i = 0; i < ELEMS; i++)
                MPI_Fetch_and_op(&one[i], &old[i], MPI_LONG, t, i, MPI_SUM, win);
            MPI_Win_flush(t, win);
        }
    }
    /* Ordering: rank r owns slot ELEMS + r of every target. Each value has
     * its own origin element: none may change before the flush. */
    long values[ORDERED];
    for (int v = 0; v < ORDERED; v++)
        values[v] = v + 1;
    for (int t = 0; t < size; t++) {
        for (int v = 0; v < ORDERED; v++)
            MPI_Accumulate(&values[v], 1, MPI_LONG, t, ELEMS + rank, 1, MPI_LONG, MPI_REPLACE, win);
        long seen = -1;
        MPI_Get_accumulate(NULL, 0, MPI_LONG, &seen, 1, MPI_LONG, t, ELEMS + rank, 1, MPI_LONG,
                           MPI_NO_OP, win);
        MPI_Win_flush(t, win);
        CHECK(seen == ORDERED);
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
    for (int i = 0; i < ELEMS; i++)
        CHECK(mem[i] == 3L * size * ROUNDS);
    for (int r = 0; r < size; r++)
        CHECK(mem[ELEMS + r] == ORDERED);
    MPI_Win_unlock(rank, win);
    MPI_Win_free(&win);

    int all_failures = 0;
    MPI_Allreduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("rma_atomicity: %d ranks: %s\n", size, all_failures ? "FAILED" : "ok");
    MPI_Finalize();
    return all_failures != 0;
}
