/*
 * A C main with Fortran kernels (kernel.f90): requests and messages of the
 * two languages mix on MPI_COMM_WORLD (with ghosts, the application's): the
 * C side initializes MPI, Fortran kernels exchange a halo (Isend/Irecv +
 * MPI_WAITALL, in `use mpi` and in `use mpi_f08`), and a request started in
 * C is completed in Fortran. Every value is checked.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

void kernel_exchange(MPI_Fint comm, int peer, int n, const double *sendbuf, double *recvbuf,
                     int *err);
void kernel_exchange_f08(MPI_Fint comm, int peer, int n, const double *sendbuf, double *recvbuf,
                         int *err);
void kernel_wait(MPI_Fint *request, int *source, int *err);

static int rank;

static void check(int ok, const char *what)
{
    if (!ok) {
        printf("c_main: rank %d FAILED: %s\n", rank, what);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

int main(int argc, char **argv)
{
    enum { N = 20000 };
    static double send[N], recv[N];
    int size, err;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    check(size == 2, "needs 2 processes");
    int peer = 1 - rank;
    for (int round = 0; round < 4; round++) {
        for (int i = 0; i < N; i++) {
            send[i] = rank * 1e6 + round * 1e5 + i;
            recv[i] = -1;
        }
        if (round % 2)
            kernel_exchange_f08(MPI_Comm_c2f(MPI_COMM_WORLD), peer, N, send, recv, &err);
        else
            kernel_exchange(MPI_Comm_c2f(MPI_COMM_WORLD), peer, N, send, recv, &err);
        check(err == MPI_SUCCESS, "the Fortran exchange");
        for (int i = 0; i < N; i++)
            check(recv[i] == peer * 1e6 + round * 1e5 + i, "the halo's values");
    }

    /* A C request (wisp's, under the engine) completed by Fortran. */
    int value = -1, mine = 100 + rank, source = -1;
    MPI_Request request;
    MPI_Irecv(&value, 1, MPI_INT, MPI_ANY_SOURCE, 12, MPI_COMM_WORLD, &request);
    MPI_Send(&mine, 1, MPI_INT, peer, 12, MPI_COMM_WORLD);
    MPI_Fint frequest = MPI_Request_c2f(request);
    kernel_wait(&frequest, &source, &err);
    check(err == MPI_SUCCESS && source == peer && value == 100 + peer, "C request in Fortran");
    check(MPI_Request_f2c(frequest) == MPI_REQUEST_NULL, "the completed request is null");

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("c_main: ok\n");
    MPI_Finalize();
    return 0;
}
