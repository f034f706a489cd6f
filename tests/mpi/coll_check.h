/* What the programs of the node's collectives (coll_ops, coll_move,
 * coll_more) share: their arguments, their start, the communicators each
 * runs its checks on, the count of wrong results, and their verdict.
 *
 * Arguments: `served` (wisp ran the collectives: wisp_coll_counter),
 * `passed` (it ran none: the MPI's alone), `some` (it ran some), `across`
 * (served on communicators that span virtual nodes too, in stages), `quick`
 * (no 1 MiB sizes). A test program runs
 *
 *     coll_start("coll_x", &argc, &argv);
 *     coll_each_comm(all_of, COLL_HALF);
 *     return coll_finish("coll_x", least, 0);
 *
 * and reports a wrong result with COLL_WRONG(format, ...), which prints the
 * first ten. */
#ifndef WISP_TESTS_COLL_CHECK_H
#define WISP_TESTS_COLL_CHECK_H

#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "mpi/watchdog.h"
#include "wisp.h"

static int me, np;
static bool served, passed, some, across, quick;
static int coll_reported;

/* A wrong result: counted, and printed on stderr while there are few. */
#define COLL_WRONG(...)                                                                            \
    do {                                                                                           \
        if (coll_reported++ < 10)                                                                  \
            fprintf(stderr, __VA_ARGS__);                                                          \
        failures++;                                                                                \
    } while (0)

/* Reads the arguments, starts the watchdog (280 s: ctest's limit is 300),
 * and MPI. */
static inline void coll_start(const char *program, int *argc, char ***argv)
{
    for (int i = 1; i < *argc; i++) {
        served |= !strcmp((*argv)[i], "served");
        passed |= !strcmp((*argv)[i], "passed");
        quick |= !strcmp((*argv)[i], "quick");
        some |= !strcmp((*argv)[i], "some");
        across |= !strcmp((*argv)[i], "across");
    }
    watchdog_start(program, 280);
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
}

/* The communicators, in the order they are run. */
enum coll_comm { COLL_WORLD, COLL_REVERSED, COLL_HALF, COLL_PAIR, COLL_SELF };

/* Runs `each` on MPI_COMM_WORLD, the world with the ranks reversed, the
 * halves of even and odd ranks, the pairs of consecutive ranks (the virtual
 * nodes of WISP_VNODE_SIZE=2) and MPI_COMM_SELF; `quick` from the
 * communicator `quick_from` on. */
static inline void coll_each_comm(void (*each)(MPI_Comm comm, enum coll_comm which),
                                  enum coll_comm quick_from)
{
    for (enum coll_comm c = COLL_WORLD; c <= COLL_SELF; c++) {
        if (c == quick_from)
            quick = true;
        MPI_Comm comm = MPI_COMM_NULL;
        if (c == COLL_WORLD)
            comm = MPI_COMM_WORLD;
        else if (c == COLL_REVERSED)
            MPI_Comm_split(MPI_COMM_WORLD, 0, np - me, &comm);
        else if (c == COLL_HALF)
            MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &comm);
        else if (c == COLL_PAIR)
            MPI_Comm_split(MPI_COMM_WORLD, me / 2, me, &comm);
        else
            comm = MPI_COMM_SELF;
        each(comm, c);
        if (c != COLL_WORLD && c != COLL_SELF)
            MPI_Comm_free(&comm);
    }
}

/* The verdict: under `served` (or `across`) wisp must have served more than
 * `least` calls, under `passed` none, under `some` some; every rank's
 * failures summed; one line from rank 0 (with `calls`, the calls wisp may
 * serve, where the program counts them); MPI finalized. The exit status. */
static inline int coll_finish(const char *program, unsigned long long least, unsigned calls)
{
    unsigned long long by_wisp = wisp_coll_counter("served"), by_mpi = wisp_coll_counter("passed");
    if (served || across)
        CHECK(by_wisp > least);
    if (passed)
        CHECK(by_wisp == 0);
    if (some)
        CHECK(by_wisp > 0);
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0) {
        printf("%s: %d processes, ", program, np);
        if (calls)
            printf("%u calls, ", calls);
        printf("%llu calls through the heap, %llu to the MPI (rank 0): %s\n", by_wisp, by_mpi,
               all ? "FAILED" : "ok");
    }
    MPI_Finalize();
    return all ? 1 : 0;
}

#endif
