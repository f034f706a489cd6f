// A C++ program (mpicxx): a ring and a sum; "ring: ok" on rank 0.
#include <mpi.h>

#include <iostream>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, np = 1, got = -1, total = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Sendrecv(&rank, 1, MPI_INT, (rank + 1) % np, 0, &got, 1, MPI_INT, (rank + np - 1) % np, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Allreduce(&rank, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && got == np - 1 && total == np * (np - 1) / 2)
        std::cout << "ring: ok\n";
    MPI_Finalize();
    return 0;
}
