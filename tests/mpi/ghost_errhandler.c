/*
 * Error handlers on MPI_COMM_WORLD under ghosts: the application's world is
 * a communicator carved out of the real one, but a handler set on
 * MPI_COMM_WORLD must be called with the MPI_COMM_WORLD handle the program
 * knows, and one inherited by a duplicate with the duplicate. Errors: a
 * send to a rank that does not exist, and MPI_Comm_call_errhandler.
 */
#include <mpi.h>
#include <stdio.h>

#include "check.h" /* tests/check.h */

static MPI_Comm seen_comm = MPI_COMM_NULL;
static int seen_class = MPI_SUCCESS, calls;

static void record(MPI_Comm *comm, int *code, ...)
{
    seen_comm = *comm;
    MPI_Error_class(*code, &seen_class);
    calls++;
}

/* One failing send to `comm`: the handler must see `comm` and MPI_ERR_RANK. */
static void bad_send(MPI_Comm comm)
{
    int size, x = 0;
    MPI_Comm_size(comm, &size);
    seen_comm = MPI_COMM_NULL;
    calls = 0;
    int rc = MPI_Send(&x, 1, MPI_INT, size, 0, comm); /* no such rank */
    CHECK(rc != MPI_SUCCESS);
    CHECK(calls == 1);
    CHECK(seen_comm == comm);
    CHECK(seen_class == MPI_ERR_RANK);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Errhandler handler, got;
    MPI_Comm_create_errhandler(record, &handler);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, handler);

    bad_send(MPI_COMM_WORLD);
    calls = 0;
    MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER);
    CHECK(calls == 1);
    CHECK(seen_comm == MPI_COMM_WORLD);
    CHECK(seen_class == MPI_ERR_OTHER);

    /* The program gets back the handle it set. */
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got);
    CHECK(got == handler);
    MPI_Errhandler_free(&got);

    /* A duplicate inherits the handler, which then sees the duplicate. */
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    bad_send(dup);
    MPI_Comm_free(&dup);

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&handler);
    int x = 0;
    CHECK(MPI_Send(&x, 1, MPI_INT, -5, 0, MPI_COMM_WORLD) != MPI_SUCCESS);

    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(all ? "ghost_errhandler: %d failures\n" : "ghost_errhandler: ok\n", all);
    MPI_Finalize();
    return all != 0;
}
