/*
 * A ghost serves an origin while the target computes outside MPI, and
 * nothing starves it (issue 49, item 6; docs/ghosts.md, "Open MPI").
 *
 * Run with WISP_GHOSTS=1 on 3 processes (rank 0 the origin, rank 1 the
 * target, the third the ghost), WISP_ASYNC=on; with Open MPI over TCP
 * (OMPI_MCA_pml=ob1, OMPI_MCA_btl=tcp,self, OMPI_MCA_osc=pt2pt: the
 * component whose operations need the target's help) and mpirun told that
 * the node has 2 slots (OMPI_MCA_orte_set_default_slots=2 in its own
 * environment), so that the ghost makes the node oversubscribed in its eyes.
 *
 * The origin does OPS x (MPI_Accumulate of 1 + MPI_Win_flush) to the target
 * while the target computes until its own memory holds OPS, reading it
 * without any MPI call. Checks, none of them a time:
 *
 *   - the window is served, and the origin's counters (MPI_Win_get_info's
 *     wisp_ops_to_ghosts, wisp_ops_direct) say that every operation went to
 *     the ghost;
 *   - every accumulate reached the target's memory while it computed (the
 *     target gives up after DEADLINE_S, a hang guard: without a ghost, osc
 *     pt2pt and MPICH apply them only once the target calls MPI);
 *   - Open MPI: where mpirun counts the node oversubscribed
 *     (OMPI_MCA_mpi_oversubscribe=1) the MPI still yields in its empty polls
 *     (libopen-pal's opal_progress_yield_when_idle). wisp turns that yield off where only
 *     its ghosts oversubscribe the node, and must not where they serve the
 *     windows: at d43fbf7 it did, and the origin's flush and a target
 *     waiting in MPI spun on the 2 cores while the ghost waited for a time
 *     slice, 3-4 ms for every accumulate + flush instead of 0.06 ms
 *     (bench/rma_busy_target; core/quirks.c).
 */
#include <dlfcn.h>
#include <mpi.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h" /* tests/check.h */

enum { OPS = 50, DEADLINE_S = 60 };

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* An info value of the window as a number, or -1 where the key is absent. */
static long info_number(MPI_Win win, const char *key)
{
    MPI_Info info;
    char value[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    CHECK(MPI_Win_get_info(win, &info) == MPI_SUCCESS);
    MPI_Info_get(info, key, MPI_MAX_INFO_VAL, value, &flag);
    MPI_Info_free(&info);
    return flag ? strtol(value, NULL, 10) : -1;
}

#if defined(OPEN_MPI)
/* Whether Open MPI yields in its empty polls: libopen-pal's
 * opal_progress_yield_when_idle, which MPI_Init sets from the MCA variable
 * mpi_yield_when_idle and which wisp sets again where the ghosts serve
 * (MPI_T shows only the variable); -1 where the MPI has none. */
static int yield_when_idle(void)
{
    const bool *yield = dlsym(RTLD_DEFAULT, "opal_progress_yield_when_idle");
    return yield ? *yield : -1;
}
#endif

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "ghost_busy_target: needs 2 application processes and 1 ghost "
                            "(-n 3, WISP_GHOSTS=1)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const int origin = 0, target = 1;

#if defined(OPEN_MPI)
    const char *over = getenv("OMPI_MCA_mpi_oversubscribe");
    int yield = yield_when_idle();
    if (over && !strcmp(over, "1")) {
        if (yield != 1)
            fprintf(stderr,
                    "rank %d: mpirun counts the node oversubscribed and the ghost serves "
                    "the windows, but Open MPI does not yield (opal_progress_yield_when_idle %d)\n",
                    rank, yield);
        CHECK(yield == 1);
    } else if (rank == 0) {
        printf("mpirun does not count the node oversubscribed: the yield is not checked\n");
    }
#endif

    double *mem;
    MPI_Win win;
    CHECK(MPI_Win_allocate(sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                           &win) == MPI_SUCCESS);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
    *mem = 0.0;
    MPI_Win_unlock(rank, win);
    long ghosts0 = info_number(win, "wisp_ops_to_ghosts"),
         direct0 = info_number(win, "wisp_ops_direct");
    CHECK(ghosts0 >= 0 && direct0 >= 0); /* served by the ghost */
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Win_lock_all(0, win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == origin) {
        double one = 1.0;
        for (int i = 0; i < OPS; i++) {
            MPI_Accumulate(&one, 1, MPI_DOUBLE, target, 0, 1, MPI_DOUBLE, MPI_SUM, win);
            MPI_Win_flush(target, win);
        }
    } else {
        /* Outside MPI until every accumulate is in: only the ghost applies them. */
        _Atomic double *cell = (_Atomic double *)mem;
        double seen = 0.0, end = now() + DEADLINE_S;
        while ((seen = atomic_load_explicit(cell, memory_order_acquire)) < OPS && now() < end)
            ;
        if (seen != OPS)
            fprintf(stderr,
                    "the target computed %d s outside MPI and its memory holds %.0f of %d "
                    "accumulates: no ghost applied them\n",
                    DEADLINE_S, seen, OPS);
        CHECK(seen == OPS);
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);

    if (rank == origin) {
        long ghosts = info_number(win, "wisp_ops_to_ghosts") - ghosts0,
             direct = info_number(win, "wisp_ops_direct") - direct0;
        if (ghosts != OPS || direct != 0)
            fprintf(stderr,
                    "the origin sent %ld operations to the ghost and %ld directly, not %d "
                    "and 0\n",
                    ghosts, direct, OPS);
        CHECK(ghosts == OPS && direct == 0);
    } else {
        MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
        CHECK(*mem == OPS);
        MPI_Win_unlock(rank, win);
    }
    MPI_Win_free(&win);

    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && !all)
        printf("ghost_busy_target: %d accumulates applied by the ghost while the target "
               "computed\n",
               OPS);
    MPI_Finalize();
    return all ? 1 : 0;
}
