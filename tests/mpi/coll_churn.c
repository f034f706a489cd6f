/*
 * Communicators made and freed by the thousand, each with a few
 * collectives: every result right, and (argument `served`) every
 * communicator served by wisp to the last, which holds only if each one's
 * area went back to the heap (and, across virtual nodes, its node's and
 * leaders' communicators back to the MPI) when it was freed; a leak fills
 * the heap or runs the MPI out of communicators long before the end.
 * Argument `quick`: fewer rounds. Plain MPI: it passes natively too.
 */
#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mpi/watchdog.h"
#include "wisp.h"

enum { ROUNDS = 3000, QUICK_ROUNDS = 600, STAGED = 40000 };

int main(int argc, char **argv)
{
    bool served = false, quick = false;
    for (int i = 1; i < argc; i++) {
        served |= !strcmp(argv[i], "served");
        quick |= !strcmp(argv[i], "quick");
    }
    watchdog_start("coll_churn", 200);
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int rounds = quick ? QUICK_ROUNDS : ROUNDS;
    long *data = malloc(STAGED * sizeof(long));
    unsigned long long before = wisp_coll_counter("served");
    for (int r = 0; r < rounds; r++) {
        MPI_Comm c;
        if (r % 2)
            MPI_Comm_dup(MPI_COMM_WORLD, &c);
        else
            MPI_Comm_split(MPI_COMM_WORLD, 0, np - me, &c); /* reversed */
        int rank, sum = -1;
        MPI_Comm_rank(c, &rank);
        MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c); /* the MPI's (WISP_COLL_AFTER) */
        CHECK(sum == np * (np - 1) / 2);
        sum = -1;
        MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c); /* sets up, then wisp's */
        CHECK(sum == np * (np - 1) / 2);
        if (r % 16 == 0) { /* staged: the area's halves in use */
            int root = r % np;
            for (int i = 0; i < STAGED; i++)
                data[i] = rank == root ? (long)i * r : -1;
            MPI_Bcast(data, STAGED, MPI_LONG, root, c);
            for (int i = 0; i < STAGED; i += 997)
                CHECK(data[i] == (long)i * r);
        }
        MPI_Comm_free(&c);
    }
    unsigned long long by_wisp = wisp_coll_counter("served") - before;
    unsigned long long want = (unsigned long long)rounds + (unsigned long long)(rounds + 15) / 16;
    if (served && by_wisp != want) {
        fprintf(stderr, "coll_churn: rank %d: %llu calls through the heap, %llu wanted\n", me,
                by_wisp, want);
        failures++;
    }
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0)
        printf("coll_churn: %d processes, %d communicators, %llu calls through the heap: %s\n", np,
               rounds, by_wisp, all ? "FAILED" : "ok");
    free(data);
    MPI_Finalize();
    return all ? 1 : 0;
}
