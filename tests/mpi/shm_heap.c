/*
 * The shared heap, seen by a program: after MPI_Init the malloc family and
 * MPI_Alloc_mem return memory in the heap (argv[1] = "on"), or never do
 * (argv[1] = "off", WISP_SHM=off); a pointer means the same memory in every
 * process of the node (rank 0 writes through its pointer, the others read
 * through the very same pointer value); glibc's allocations from before
 * MPI_Init keep working; every function keeps its C semantics.
 */
#include <malloc.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h" /* tests/check.h */
#include "wisp.h"

static void check_c_semantics(int want)
{
    char *p = malloc(100);
    CHECK(p && wisp_heap_contains(p) == want);
    memset(p, 'a', 100);
    CHECK(malloc_usable_size(p) >= 100);
    p = realloc(p, 1 << 20); /* grows, keeps the contents */
    CHECK(p && p[0] == 'a' && p[99] == 'a' && wisp_heap_contains(p) == want);
    free(p);

    int *z = calloc(1000, sizeof *z);
    CHECK(z && wisp_heap_contains(z) == want);
    for (int i = 0; i < 1000; i++)
        CHECK(z[i] == 0);
    free(z);
    volatile size_t huge = SIZE_MAX / 2; /* volatile: the compiler would see the overflow */
    CHECK(calloc(huge, 4) == NULL);      /* overflow is refused, not wrapped */

    void *a = NULL;
    CHECK(posix_memalign(&a, 4096, 10) == 0 && (uintptr_t)a % 4096 == 0);
    CHECK(wisp_heap_contains(a) == want);
    free(a);
    CHECK(posix_memalign(&a, 3, 10) != 0); /* not a power of two */
    a = aligned_alloc(256, 512);
    CHECK(a && (uintptr_t)a % 256 == 0);
    free(a);
    a = memalign(64, 10);
    CHECK(a && (uintptr_t)a % 64 == 0);
    free(a);
    free(NULL);
    void *r = realloc(NULL, 10); /* realloc(NULL) is malloc */
    CHECK(r && wisp_heap_contains(r) == want);
    free(r);
}

int main(int argc, char **argv)
{
    int want = argc > 1 && !strcmp(argv[1], "on");
    char *before = malloc(64); /* glibc's: MPI_Init has not run */
    strcpy(before, "private");
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    CHECK(!wisp_heap_contains(before));
    before = realloc(before, 4096); /* private memory stays private */
    CHECK(before && !strcmp(before, "private") && !wisp_heap_contains(before));
    free(before);
    check_c_semantics(want);

    /* Same address, same memory: rank 0's buffer, read by everyone on its node. */
    MPI_Comm node = wisp_node_comm();
    int node_rank;
    MPI_Comm_rank(node, &node_rank);
    uint64_t *shared = NULL;
    if (node_rank == 0) {
        CHECK(MPI_Alloc_mem(1024 * sizeof *shared, MPI_INFO_NULL, &shared) == MPI_SUCCESS);
        CHECK(wisp_heap_contains(shared) == want);
        for (int i = 0; i < 1024; i++)
            shared[i] = 0x5eed0000u + (uint64_t)i;
    }
    MPI_Bcast(&shared, sizeof shared, MPI_BYTE, 0, node);
    if (want && node_rank != 0) {
        CHECK(wisp_heap_contains(shared));
        for (int i = 0; i < 1024; i++)
            CHECK(shared[i] == 0x5eed0000u + (uint64_t)i);
    }
    MPI_Barrier(node);
    if (node_rank == 0)
        CHECK(MPI_Free_mem(shared) == MPI_SUCCESS);

    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    char *after = malloc(32); /* after MPI_Finalize: private again */
    CHECK(after && !wisp_heap_contains(after));
    free(after);
    if (rank == 0)
        printf("shm_heap %s: %d ranks: %s\n", want ? "on" : "off", size, all ? "FAILED" : "ok");
    return all || failures;
}
