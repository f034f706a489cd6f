/*
 * Windows created and freed one after another, some alive together, as a
 * Global Arrays program makes them: under ghosts a window in the shared
 * heap takes the internal windows an earlier one left (src/ghost/pool.h),
 * which every member exposes the whole heap in. Each window must get its
 * own operations and no other's, whoever serves them (a ghost, or the
 * target itself with WISP_ASYNC=off), in every epoch kind:
 * - MPI_Win_allocate, MPI_Alloc_mem + MPI_Win_create, and MPI_Win_allocate
 *   with no_locks (no lock windows: another size of set), of varying sizes;
 * - two windows alive at once, the older freed first, then a third;
 * - in each: puts in a lock_all epoch, an accumulate under an exclusive
 *   lock, gets in a fence epoch, each checked in memory and by value.
 *
 * With "full", rank 0's MPI_Win_allocate windows are 4 MiB larger: run with
 * a heap too small for that (WISP_HEAP_SIZE=1M), the windows take new
 * segments, all processes alike, and must work the same.
 *
 * usage: ghost_window_reuse [rounds [full]]   (default 30)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h" /* tests/check.h */

enum { ALLOCATE, CREATE, NO_LOCKS, KINDS };

struct window {
    MPI_Win win;
    int *mem;
    int n; /* ints */
    int kind;
};

static int rank, size;
static MPI_Aint extra; /* bytes more in rank 0's MPI_Win_allocate windows ("full") */

static void open_window(struct window *w, int kind, int n)
{
    MPI_Info info = MPI_INFO_NULL;
    w->kind = kind;
    w->n = n;
    if (kind == NO_LOCKS) {
        MPI_Info_create(&info);
        MPI_Info_set(info, "no_locks", "true");
    }
    if (kind == CREATE) {
        MPI_Alloc_mem(n * (MPI_Aint)sizeof(int), MPI_INFO_NULL, &w->mem);
        MPI_Win_create(w->mem, n * (MPI_Aint)sizeof(int), sizeof(int), MPI_INFO_NULL,
                       MPI_COMM_WORLD, &w->win);
    } else {
        MPI_Win_allocate(n * (MPI_Aint)sizeof(int) + (rank == 0 ? extra : 0), sizeof(int), info,
                         MPI_COMM_WORLD, &w->mem, &w->win);
    }
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    for (int i = 0; i < n; i++)
        w->mem[i] = -1;
    MPI_Win_fence(0, w->win); /* everyone's memory is set before anyone's operation */
    MPI_Win_fence(0, w->win);
}

static void close_window(struct window *w)
{
    MPI_Win_free(&w->win);
    if (w->kind == CREATE)
        MPI_Free_mem(w->mem);
}

/* Stamp of `origin` for element i of window `tag`. */
static int stamp(int tag, int origin, int i)
{
    return tag * 100000 + origin * 1000 + i % 1000;
}

/* Every process puts its stamps into its right neighbour's window (in a
 * lock_all epoch; a fence epoch in a no_locks window), adds to element 0
 * of process 0 under an exclusive lock (not in a no_locks window), and
 * gets back what it put in a fence epoch. */
static void use_window(struct window *w, int tag)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size, n = w->n;
    int *buf = malloc(sizeof *buf * (size_t)n);
    for (int i = 0; i < n; i++)
        buf[i] = stamp(tag, rank, i);

    if (w->kind == NO_LOCKS) { /* passive target is ruled out: a fence epoch */
        MPI_Win_fence(0, w->win);
        MPI_Put(buf, n - 1, MPI_INT, right, 1, n - 1, MPI_INT, w->win);
        MPI_Win_fence(0, w->win);
        for (int i = 1; i < n; i++)
            CHECK(w->mem[i] == stamp(tag, left, i - 1));
    } else {
        MPI_Win_lock_all(0, w->win);
        MPI_Put(buf, n - 1, MPI_INT, right, 1, n - 1, MPI_INT, w->win); /* element 0 stays */
        MPI_Win_unlock_all(w->win);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, w->win);
        for (int i = 1; i < n; i++)
            CHECK(w->mem[i] == stamp(tag, left, i - 1));
        MPI_Win_unlock(rank, w->win);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    if (w->kind != NO_LOCKS) {
        if (rank == 0)
            w->mem[0] = 0;
        MPI_Barrier(MPI_COMM_WORLD);
        int one = 1;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w->win);
        MPI_Accumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, w->win);
        MPI_Win_unlock(0, w->win);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w->win);
            CHECK(w->mem[0] == size);
            MPI_Win_unlock(0, w->win);
        }
    }

    for (int i = 0; i < n; i++)
        buf[i] = -2;
    MPI_Win_fence(0, w->win);
    MPI_Get(buf + 1, n - 1, MPI_INT, right, 1, n - 1, MPI_INT, w->win);
    MPI_Win_fence(0, w->win);
    for (int i = 1; i < n; i++)
        CHECK(buf[i] == stamp(tag, rank, i - 1)); /* what this process put there */
    free(buf);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int rounds = argc > 1 ? atoi(argv[1]) : 30, tag = 0;
    if (argc > 2 && !strcmp(argv[2], "full"))
        extra = 4 << 20;
    for (int r = 0; r < rounds; r++) {
        struct window a, b, c;
        int kind = r % KINDS, n = 16 + 97 * (r % 7);
        open_window(&a, kind, n);
        use_window(&a, ++tag);
        if (r % 2) { /* two alive, the older freed first, then a third beside the younger */
            open_window(&b, (kind + 1) % KINDS, n + 5);
            use_window(&b, ++tag);
            use_window(&a, ++tag);
            close_window(&a);
            open_window(&c, kind, n + 11);
            use_window(&c, ++tag);
            use_window(&b, ++tag);
            close_window(&c);
            close_window(&b);
        } else {
            close_window(&a);
        }
    }
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf("ghost_window_reuse: %d rounds on %d processes: ok\n", rounds, size);
    MPI_Finalize();
    return all != 0;
}
