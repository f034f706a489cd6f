/* A function of the MPI that wisp does not route yet (MPICH 5's
 * MPI_Request_get_status_any, MPI-4.1), called with a request of wisp's:
 * natively it completes; under wisp the job stops at the call with one line
 * naming the function and why (tools/gen_wrappers.py, routes "absent"),
 * instead of the MPI being handed wisp's request (tests/unrouted.sh). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, x = 7, index = -1, flag = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Request r;
        MPI_Irecv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &r);
        while (!flag)
            MPI_Request_get_status_any(1, &r, &index, &flag, MPI_STATUS_IGNORE);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        printf("unrouted_refused: get_status_any index=%d value=%d\n", index, x);
    } else if (rank == 1) {
        MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
