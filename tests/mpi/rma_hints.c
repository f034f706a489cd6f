/*
 * The info hints epochs_used and no_locks of MPI_Win_allocate.
 *
 * - Every form of epochs_used that names `lock` (words separated by commas,
 *   '|', ';' or spaces, any case), and values wisp does not understand
 *   (served as if no hint were given): exclusive locks must exclude each
 *   other, so a get/flush/put counter that every process increments comes
 *   out exact.
 * - Hints that rule locks out (epochs_used without `lock`, no_locks=true):
 *   under ghosts ("served") MPI_Win_lock fails with MPI_ERR_RMA_SYNC through
 *   the window's error handler instead of running unprotected; natively
 *   MPICH ignores the hints and the lock works, Open MPI honours no_locks
 *   the same way. Fence epochs work in every case.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "check.h" /* tests/check.h */

/* Windows of whole pages: MPICH 4.0.2 (ch4/ucx) targets the start of the page
 * that holds a smaller MPI_Win_allocate window (fixed by pmodels/mpich PR 6140). */
enum { PAGE = 4096, INCREMENTS = 6 };

static int rank, size, handler_calls, handler_class;

static void on_error(MPI_Win *win, int *code, ...)
{
    (void)win;
    MPI_Error_class(*code, &handler_class);
    handler_calls++;
}

static MPI_Win allocate(const char *key, const char *value, int **mem)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, key, value);
    MPI_Win win;
    MPI_Win_allocate(PAGE, sizeof(int), info, MPI_COMM_WORLD, mem, &win);
    MPI_Info_free(&info);
    return win;
}

/* Every process adds INCREMENTS to rank 0's counter by get, flush, put under
 * an exclusive lock: exact only if the locks exclude each other. */
static void counter(const char *value)
{
    int *mem;
    MPI_Win win = allocate("epochs_used", value, &mem);
    MPI_Win_fence(0, win);
    mem[0] = 0;
    MPI_Win_fence(0, win);
    for (int i = 0; i < INCREMENTS; i++) {
        int v = -1;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Get(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        MPI_Win_flush(0, win);
        v++;
        MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
    }
    MPI_Win_fence(0, win);
    if (rank == 0 && mem[0] != size * INCREMENTS) {
        fprintf(stderr, "epochs_used='%s': counter %d, expected %d\n", value, mem[0],
                size * INCREMENTS);
        failures++;
    }
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
}

/* A window whose hint rules locks out: a lock fails when served. */
static void no_lock(const char *key, const char *value, int served)
{
    int *mem;
    MPI_Win win = allocate(key, value, &mem);
    MPI_Errhandler handler;
    MPI_Win_create_errhandler(on_error, &handler);
    MPI_Win_set_errhandler(win, handler);
    handler_calls = 0;
    int rc = MPI_Win_lock(MPI_LOCK_EXCLUSIVE, (rank + 1) % size, 0, win);
    int class = MPI_SUCCESS;
    MPI_Error_class(rc, &class);
    if (served || rc != MPI_SUCCESS) { /* natively, Open MPI honours no_locks too */
        CHECK(class == MPI_ERR_RMA_SYNC);
        CHECK(handler_calls == 1 && handler_class == MPI_ERR_RMA_SYNC);
    } else {
        CHECK(handler_calls == 0);
        MPI_Win_unlock((rank + 1) % size, win);
    }
    /* The epochs the hint allows still work. */
    int one = rank + 1;
    MPI_Win_fence(0, win);
    MPI_Put(&one, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    CHECK(mem[0] == (rank + size - 1) % size + 1);
    MPI_Win_free(&win);
    MPI_Errhandler_free(&handler);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int served = argc > 1 && strcmp(argv[1], "served") == 0;

    const char *with_lock[] = {"lock|lockall", "lock;lockall", "lockall lock", "fence, lock",
                               "LOCK",         "lock+fence",   "fence,lockk",  " ,"};
    for (size_t i = 0; i < sizeof with_lock / sizeof *with_lock; i++)
        counter(with_lock[i]);
    no_lock("epochs_used", "fence|pscw|lockall", served);
    no_lock("no_locks", "true", served);

    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(all ? "rma_hints: %d failures\n" : "rma_hints: ok\n", all);
    MPI_Finalize();
    return all != 0;
}
