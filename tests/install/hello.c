/*
 * A plain MPI program, not linked with libwisp (install_both.sh,
 * module.sh, easybuild.sh build it with each MPI's mpicc and run it through
 * one wisprun): says which MPI library it runs on and checks an allreduce
 * over a buffer from malloc (the shared heap's, under wisp).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, len;
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_library_version(version, &len);
    int *ranks = malloc(2 * sizeof *ranks);
    ranks[0] = rank;
    MPI_Allreduce(&ranks[0], &ranks[1], 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int ok = ranks[1] == size * (size - 1) / 2;
    free(ranks);
    MPI_Finalize();
    if (rank == 0) {
        /* The make alone: "MPICH" or "Open MPI" (the strings start so). */
        const char *make = !strncmp(version, "MPICH", 5)      ? "MPICH"
                           : !strncmp(version, "Open MPI", 8) ? "Open MPI"
                                                              : "?";
        printf("hello: %s, %d processes: %s\n", make, size, ok ? "ok" : "FAILED");
    }
    return !ok;
}
