/*
 * One case of the thread-level matrix (docs/ult.md, "Thread levels"):
 * thread_levels LEVEL, LEVEL one of init (MPI_Init), single, funneled,
 * serialized, multiple, ult (WISP_THREAD_ULT), run by tests/thread_levels.sh
 * under the WISP_* settings of the case. The application gets the level it
 * asked for; 8 ULTs call MPI_Sendrecv with the same ULT of the peer (issue
 * 26, item 4: with ULTs on two kernel threads at MPI_THREAD_FUNNELED the
 * MPI saw two threads at once); the main flow creates a window and
 * accumulates into it (item 5: Open MPI's osc pt2pt refuses
 * MPI_THREAD_MULTIPLE in MPI_Win_allocate). Two application ranks.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "../check.h"
#include "wisp.h"

enum { ULTS = 8, COUNT = 4096 }; /* 16 KiB: past the eager sizes */

static int rank, peer;

static void exchange(void *arg)
{
    int i = (int)(long)arg;
    static int out[ULTS][COUNT], in[ULTS][COUNT];
    for (int k = 0; k < COUNT; k++)
        out[i][k] = rank * 1000000 + i * COUNT + k;
    MPI_Status st;
    MPI_Sendrecv(out[i], COUNT, MPI_INT, peer, i, in[i], COUNT, MPI_INT, peer, i, MPI_COMM_WORLD,
                 &st);
    CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == i);
    for (int k = 0; k < COUNT; k++)
        CHECK(in[i][k] == peer * 1000000 + i * COUNT + k);
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        int level;
    } levels[] = {{"init", -1},
                  {"single", MPI_THREAD_SINGLE},
                  {"funneled", MPI_THREAD_FUNNELED},
                  {"serialized", MPI_THREAD_SERIALIZED},
                  {"multiple", MPI_THREAD_MULTIPLE},
                  {"ult", WISP_THREAD_ULT}};
    int required = -2, provided = -2, queried = -2;
    for (size_t i = 0; argc > 1 && i < sizeof levels / sizeof levels[0]; i++)
        if (!strcmp(argv[1], levels[i].name))
            required = levels[i].level;
    if (required == -2) {
        fprintf(stderr, "usage: thread_levels init|single|funneled|serialized|multiple|ult\n");
        return 2;
    }
    if (required < 0)
        MPI_Init(&argc, &argv);
    else
        MPI_Init_thread(&argc, &argv, required, &provided);
    MPI_Query_thread(&queried);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 2);
    peer = rank ^ 1;
    /* The level asked for, not one wisp raised the MPI to for itself. */
    CHECK(queried == (required < 0 ? MPI_THREAD_SINGLE : required));
    CHECK(required < 0 || provided == required);
    /* ULTs on several kernel threads call the MPI from each: the MPI under
     * wisp (its profiling interface) must be at MPI_THREAD_MULTIPLE. */
    int mpi_level = -1;
    PMPI_Query_thread(&mpi_level);
    CHECK(wisp_ult_threads() < 2 || mpi_level == MPI_THREAD_MULTIPLE);

    wisp_ult_t t[ULTS];
    for (long i = 0; i < ULTS; i++)
        CHECK(wisp_ult_fork(exchange, (void *)i, &t[i]) == 0);
    for (int i = 0; i < ULTS; i++)
        CHECK(wisp_ult_join(t[i]) == 0);

    long *base, one = 1, sum = -1;
    MPI_Win win;
    MPI_Win_allocate(sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    *base = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    MPI_Accumulate(&one, 1, MPI_LONG, 0, 0, 1, MPI_LONG, MPI_SUM, win);
    MPI_Win_flush(0, win);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
    sum = *base;
    MPI_Win_unlock(rank, win);
    CHECK(rank != 0 || sum == size);
    MPI_Win_free(&win);

    int bad = 0;
    MPI_Allreduce(&failures, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("thread_levels %s: %s (ULTs on %d kernel threads)\n", argv[1], bad ? "FAILED" : "ok",
               wisp_ult_threads());
    MPI_Finalize();
    return bad != 0;
}
