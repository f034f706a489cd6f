/*
 * Mutual exclusion and a shared task counter on ghost-served windows.
 *
 * - Exclusive locks: every rank increments a counter on every rank
 *   INCREMENTS times with get, flush, put under MPI_LOCK_EXCLUSIVE (a
 *   read-modify-write that only mutual exclusion makes exact), interleaved
 *   with shared-lock reads; each counter must end at size * INCREMENTS. The
 *   counters of one node's processes share a ghost, so this also checks
 *   that locks on one process exclude each other (Casper 4.5.1).
 * - Task counter (the NWChem pattern): ranks take tasks from a counter on
 *   the last rank with MPI_Fetch_and_op until TASKS are handed out; every
 *   task is taken exactly once.
 * - Self lock then load/store: a rank increments its own counter directly
 *   under an exclusive lock on itself while the others use RMA on it.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h" /* tests/check.h */

/* Windows of whole pages: MPICH 4.0.2 (ch4/ucx) targets the start of the page
 * that holds a smaller MPI_Win_allocate window (fixed by pmodels/mpich PR 6140). */
enum { PAGE = 4096 };

enum { INCREMENTS = 8, TASKS = 60 };

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *mem; /* [0] counter, [1] task counter, [2] self-incremented counter */
    MPI_Win win;
    MPI_Win_allocate(PAGE, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
    mem[0] = mem[1] = mem[2] = 0;
    MPI_Win_unlock(rank, win);
    MPI_Barrier(MPI_COMM_WORLD);

    for (int i = 0; i < INCREMENTS; i++) {
        for (int k = 0; k < size; k++) {
            int t = (rank + k) % size, v = -1;
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win);
            MPI_Get(&v, 1, MPI_INT, t, 0, 1, MPI_INT, win);
            MPI_Win_flush(t, win);
            v++;
            MPI_Put(&v, 1, MPI_INT, t, 0, 1, MPI_INT, win);
            MPI_Win_unlock(t, win);
            MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win);
            MPI_Get(&v, 1, MPI_INT, t, 0, 1, MPI_INT, win);
            MPI_Win_unlock(t, win);
            CHECK(v >= 1 && v <= size * INCREMENTS);
        }
        /* Own counter [2]: load/store under a self lock; the right neighbour adds by RMA. */
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
        mem[2]++;
        MPI_Win_unlock(rank, win);
        int right = (rank + 1) % size, one = 1;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win);
        MPI_Accumulate(&one, 1, MPI_INT, right, 2, 1, MPI_INT, MPI_SUM, win);
        MPI_Win_unlock(right, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
    CHECK(mem[0] == size * INCREMENTS);
    CHECK(mem[2] == 2 * INCREMENTS);
    MPI_Win_unlock(rank, win);

    /* Task counter on the last rank. */
    int counter = size - 1, one = 1, mine = 0;
    char *taken = calloc(TASKS, 1);
    MPI_Win_lock_all(0, win);
    for (;;) {
        int task = -1;
        MPI_Fetch_and_op(&one, &task, MPI_INT, counter, 1, MPI_SUM, win);
        MPI_Win_flush(counter, win);
        if (task >= TASKS)
            break;
        CHECK(task >= 0);
        if (task >= 0)
            taken[task]++;
        mine++;
    }
    MPI_Win_unlock_all(win);
    char *all = calloc(TASKS, 1);
    MPI_Allreduce(taken, all, TASKS, MPI_CHAR, MPI_SUM, MPI_COMM_WORLD);
    for (int t = 0; t < TASKS; t++)
        CHECK(all[t] == 1);
    int total = 0;
    MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(total == TASKS);
    free(taken);
    free(all);
    MPI_Win_free(&win);

    int all_failures = 0;
    MPI_Allreduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("rma_counter: %d ranks: %s\n", size, all_failures ? "FAILED" : "ok");
    MPI_Finalize();
    return all_failures != 0;
}
