/* What an MPI call returns after the user's error handler returned: the
 * error code in MPICH 4 and Open MPI, MPI_SUCCESS in MPICH 5.0.2. wisp passes
 * on whatever the MPI returns; the tests that assert the error code after a
 * user handler (transparency.errhandlers, mpi.ghost_errhandler's ghost-less
 * case, p2p_semantics' errors and uncommitted_type rules) are left out over
 * MPICH 5 (tests/CMakeLists.txt), and tests/quirks.sh checks with this
 * program that the MPI still does so natively and that wisp returns the same. */
#include <mpi.h>
#include <stdio.h>

static int calls, handler_class = -1;

static void handler(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    calls++;
    MPI_Error_class(*code, &handler_class);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, x = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Errhandler eh;
    MPI_Comm_create_errhandler(handler, &eh);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
    int rc = MPI_Send(&x, 1, MPI_INT, size, 0, MPI_COMM_WORLD); /* no such rank */
    int rc_class = -1;
    MPI_Error_class(rc, &rc_class);
    if (rank == 0)
        printf("quirk_handler_rc: handler calls=%d class=%s; the call returned %s\n", calls,
               handler_class == MPI_ERR_RANK ? "MPI_ERR_RANK" : "other",
               rc == MPI_SUCCESS          ? "MPI_SUCCESS"
               : rc_class == MPI_ERR_RANK ? "MPI_ERR_RANK"
                                          : "another error");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Errhandler_free(&eh);
    MPI_Finalize();
    return 0;
}
