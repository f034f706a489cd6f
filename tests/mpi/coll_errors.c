/*
 * Erroneous collectives get the MPI's own error, whoever would have served
 * them: with MPI_ERRORS_RETURN on the communicator, a root out of range
 * (MPI_ERR_ROOT) and MPI_OP_NULL (MPI_ERR_OP) return that class from every
 * process, and the communicator goes on working (the next collectives,
 * which wisp serves, are right). On the world and, across virtual nodes, on the world's
 * reverse. (Not a negative count: MPICH 4.0.2's MPI_Allreduce takes one
 * and crashes.) Plain MPI: it passes natively too.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "mpi/watchdog.h"

static int me, np;

static void expect(int rc, int want, const char *what)
{
    int class = MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &class);
    if (class != want) {
        fprintf(stderr, "coll_errors: rank %d: %s returned class %d, not %d\n", me, what, class,
                want);
        failures++;
    }
}

/* The communicator still works: a few collectives, checked. */
static void still_works(MPI_Comm comm)
{
    int rank, n, sum = -1, x;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    for (int k = 0; k < 3; k++) {
        CHECK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, comm) == MPI_SUCCESS);
        CHECK(sum == n * (n - 1) / 2);
        x = rank == n - 1 ? 42 + k : -1;
        CHECK(MPI_Bcast(&x, 1, MPI_INT, n - 1, comm) == MPI_SUCCESS);
        CHECK(x == 42 + k);
        CHECK(MPI_Barrier(comm) == MPI_SUCCESS);
    }
}

static void errors_on(MPI_Comm comm)
{
    int n, in[4] = {1, 2, 3, 4}, out[4];
    MPI_Comm_size(comm, &n);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    still_works(comm); /* wisp's from here on, where it serves the communicator */
    expect(MPI_Bcast(in, 4, MPI_INT, n, comm), MPI_ERR_ROOT, "MPI_Bcast at root n");
    expect(MPI_Bcast(in, 4, MPI_INT, -7, comm), MPI_ERR_ROOT, "MPI_Bcast at root -7");
    expect(MPI_Reduce(in, out, 4, MPI_INT, MPI_SUM, n + 3, comm), MPI_ERR_ROOT,
           "MPI_Reduce at root n + 3");
    expect(MPI_Reduce(in, out, 4, MPI_INT, MPI_OP_NULL, 0, comm), MPI_ERR_OP,
           "MPI_Reduce with MPI_OP_NULL");
    expect(MPI_Allreduce(in, out, 4, MPI_INT, MPI_OP_NULL, comm), MPI_ERR_OP,
           "MPI_Allreduce with MPI_OP_NULL");
    still_works(comm);
}

int main(int argc, char **argv)
{
    watchdog_start("coll_errors", 60);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm world, reversed;
    MPI_Comm_dup(MPI_COMM_WORLD, &world);
    errors_on(world);
    MPI_Comm_split(MPI_COMM_WORLD, 0, np - me, &reversed);
    errors_on(reversed);
    MPI_Comm_free(&world);
    MPI_Comm_free(&reversed);
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0)
        printf("coll_errors: %d processes: %s\n", np, all ? "FAILED" : "ok");
    MPI_Finalize();
    return all ? 1 : 0;
}
