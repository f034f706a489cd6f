/*
 * The MPI's own allocations and the shared heap (WISP_HEAP_MPI, run with
 * WISP_STATS=1, which counts them): argv[1] = "private" (the default
 * setting), the malloc family's calls from the MPI's code (MPICH, UCX, Open
 * MPI's libraries and components) go to glibc and are counted, while the
 * program's own allocations still come from the heap; "shared", the heap
 * serves both and nothing is counted. Where the heap does not serve malloc
 * (another malloc first, as AddressSanitizer's), nothing is counted either.
 * Either way the MPI works: communicators, attributes, info objects and
 * derived datatypes that make it allocate, and messages through all of them.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h" /* tests/check.h */
#include "wisp.h"

enum { ROUNDS = 50, N = 4096 };

/* Work that makes the MPI allocate memory for itself; checked results. */
static void make_the_mpi_allocate(int rank, int size)
{
    for (int round = 0; round < ROUNDS; round++) {
        MPI_Comm comm;
        MPI_Comm_dup(MPI_COMM_WORLD, &comm);
        MPI_Info info;
        MPI_Info_create(&info);
        char value[64];
        snprintf(value, sizeof value, "a value the MPI copies, round %d", round);
        MPI_Info_set(info, "wisp_test_key", value);
        int flag = 0;
        char back[64] = "";
        MPI_Info_get(info, "wisp_test_key", sizeof back - 1, back, &flag);
        CHECK(flag && !strcmp(back, value));
        MPI_Info_free(&info);
        MPI_Comm_set_name(comm, "heap_mpi");

        MPI_Datatype every_other;
        MPI_Type_vector(N / 2, 1, 2, MPI_INT, &every_other);
        MPI_Type_commit(&every_other);
        int *out = malloc(N * sizeof *out), *in = calloc(N, sizeof *in);
        for (int i = 0; i < N; i++)
            out[i] = rank * 100000 + round * 1000 + i;
        int right = (rank + 1) % size, left = (rank + size - 1) % size;
        MPI_Sendrecv(out, 1, every_other, right, round, in, 1, every_other, left, round, comm,
                     MPI_STATUS_IGNORE);
        for (int i = 0; i < N; i++)
            CHECK(in[i] == (i % 2 ? 0 : left * 100000 + round * 1000 + i));
        free(out);
        free(in);
        MPI_Type_free(&every_other);
        MPI_Comm_free(&comm);
    }
}

int main(int argc, char **argv)
{
    int shared = argc > 1 && !strcmp(argv[1], "shared");
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    char *mine = malloc(1 << 16);
    int served = wisp_heap_contains(mine); /* malloc is wisp's and the heap serves */
    unsigned long long before = wisp_shm_counter("mpi_allocations");
    make_the_mpi_allocate(rank, size);
    unsigned long long after = wisp_shm_counter("mpi_allocations");
    if (served && !shared)
        CHECK(after > before);
    else
        CHECK(after == before);
    /* The program's memory is still the heap's, whoever allocates next. */
    char *again = malloc(1 << 20);
    CHECK(wisp_heap_contains(again) == served);
    free(again);
    free(mine);

    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("heap_mpi %s: heap %s, %llu of the MPI's allocations left to glibc: %s\n",
               shared ? "shared" : "private", served ? "serves malloc" : "does not serve malloc",
               after - before, all ? "FAILED" : "ok");
    MPI_Finalize();
    return all != 0;
}
