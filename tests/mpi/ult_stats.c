/*
 * ULTs in MPI for WISP_STATS (tests/ult_stats.sh): 8 ULTs per rank each
 * exchange with the other rank through MPI_Sendrecv, in an order that makes
 * ULTs of one kernel thread wait in MPI at the same time and leave it in
 * another order than they entered; MPI_Init_thread grants WISP_THREAD_ULT.
 * Prints "ult_stats: ok" on rank 0.
 */
#include <mpi.h>
#include <stdio.h>

#include "check.h" /* tests/check.h */
#include "wisp.h"

enum { ULTS = 8 };

static int rank, peer;

static void exchange(void *arg)
{
    int i = *(int *)arg, got = -1;
    /* Rank 1 answers in reverse order: rank 0's ULTs wait in MPI together. */
    int tag = rank == 0 ? i : ULTS - 1 - i;
    int mine = rank * 100 + tag;
    CHECK(MPI_Sendrecv(&mine, 1, MPI_INT, peer, tag, &got, 1, MPI_INT, peer, tag, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(got == peer * 100 + tag);
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, WISP_THREAD_ULT, &provided);
    /* The level granted is WISP_THREAD_ULT itself (wisp.h, docs/ult.md). */
    int queried = -1;
    MPI_Query_thread(&queried);
    CHECK(provided == WISP_THREAD_ULT && queried == WISP_THREAD_ULT);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    peer = 1 - rank;
    int ids[ULTS];
    wisp_ult_t t[ULTS];
    for (int i = 0; i < ULTS; i++) {
        ids[i] = i;
        CHECK(wisp_ult_fork(exchange, &ids[i], &t[i]) == 0);
    }
    for (int i = 0; i < ULTS; i++)
        CHECK(wisp_ult_join(t[i]) == 0);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0 && !failures)
        printf("ult_stats: ok\n");
    MPI_Finalize();
    return failures != 0;
}
