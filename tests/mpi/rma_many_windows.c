/*
 * Many windows alive at once, as MPICH's rma/window_creation makes them:
 * a thousand windows over MPI_COMM_WORLD (MPI_Alloc_mem + MPI_Win_create:
 * the shared heap's memory, which the ghosts serve), each used once (a put
 * to the right neighbour in a passive-target epoch, read back with a get),
 * then all freed. (Not MPI_Win_allocate of one int: Debian's MPICH 4.0.2
 * itself gets the wrong int back there.) A window the ghosts
 * serve takes more of the MPI's communicator contexts than the MPI's own
 * (MPICH has 2048 per process); past WISP_GHOST_WINDOWS_MAX they are the
 * MPI's own, so that a program the MPI runs never runs out under wisp.
 * Before the limit, MPICH aborted after about 340 served windows ("Too
 * many communicators").
 *
 * usage: rma_many_windows [windows]   (default 1000)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h" /* tests/check.h */

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, nwin = argc > 1 ? atoi(argv[1]) : 1000;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Win *win = malloc(sizeof *win * (size_t)nwin);
    int **mem = malloc(sizeof *mem * (size_t)nwin);
    if (nwin < 1 || !win || !mem) {
        fprintf(stderr, "usage: rma_many_windows [windows, >= 1]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int i = 0; i < nwin; i++) {
        MPI_Alloc_mem(sizeof(int), MPI_INFO_NULL, &mem[i]);
        *mem[i] = -1;
        MPI_Win_create(mem[i], sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win[i]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    int right = (rank + 1) % size;
    for (int i = 0; i < nwin; i++) {
        int value = rank * 100000 + i;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win[i]);
        MPI_Put(&value, 1, MPI_INT, right, 0, 1, MPI_INT, win[i]);
        MPI_Win_unlock(right, win[i]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    int left = (rank + size - 1) % size, bad = 0;
    for (int i = 0; i < nwin; i++) { /* read back through the window: any memory model */
        int got = -2;
        MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win[i]);
        MPI_Get(&got, 1, MPI_INT, rank, 0, 1, MPI_INT, win[i]);
        MPI_Win_unlock(rank, win[i]);
        if (got != left * 100000 + i && bad++ < 3)
            fprintf(stderr, "rank %d, window %d: %d, not %d\n", rank, i, got, left * 100000 + i);
    }
    CHECK(bad == 0);
    for (int i = 0; i < nwin; i++) {
        MPI_Win_free(&win[i]);
        MPI_Free_mem(mem[i]);
    }
    free(win);
    free(mem);
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("rma_many_windows: %d processes, %d windows: %s\n", size, nwin,
               all ? "FAILED" : "OK");
    MPI_Finalize();
    return all ? 1 : 0;
}
