/*
 * MPI-4.1's MPI_Request_get_status_any (or _all, argv[1] "all") on a
 * receive and a send between two processes, polled until one is complete,
 * then MPI_Waitall: natively it prints "ok"; under a libwisp whose routes
 * do not serve it, wisp stops it with one line (tests/impi.sh: over Intel
 * MPI, which has these calls where the MPICH libwisp was built on has not,
 * src/wrap/newer.c). Built only with an mpi.h that declares them. Not
 * linked with libwisp.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, x, y = -1, flag = 0, index = -1, rc;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        fprintf(stderr, "request_status_any: needs 2 processes\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    x = rank;
    MPI_Request r[2];
    MPI_Irecv(&y, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(&x, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD, &r[1]);
    int all = argc > 1 && !strcmp(argv[1], "all");
    do
        rc = all ? MPI_Request_get_status_all(2, r, &flag, MPI_STATUSES_IGNORE)
                 : MPI_Request_get_status_any(2, r, &index, &flag, MPI_STATUS_IGNORE);
    while (rc == MPI_SUCCESS && !flag);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS || y != 1 - rank || (!all && (index < 0 || index > 1))) {
        fprintf(stderr, "request_status_any: rank %d: rc %d, index %d, received %d\n", rank, rc,
                index, y);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank == 0)
        printf("request_status_any: ok (%s)\n", all ? "all" : "any");
    MPI_Finalize();
    return 0;
}
