/*
 * Fills the shared heap past its size (run with a small WISP_HEAP_SIZE):
 * MPI_Alloc_mem must keep succeeding, first from the heap, then from
 * private memory, and no block may overwrite another. Prints how many
 * blocks came from each; tests/shm_heap_full.sh checks the rest.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "wisp.h"

enum { BLOCKS = 64, BLOCK = 256 << 10 };

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, bad = 0, in_heap = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    unsigned char *block[BLOCKS];
    for (int b = 0; b < BLOCKS; b++) {
        if (MPI_Alloc_mem(BLOCK, MPI_INFO_NULL, &block[b]) != MPI_SUCCESS) {
            fprintf(stderr, "heap_fill: MPI_Alloc_mem failed at block %d\n", b);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        in_heap += wisp_heap_contains(block[b]);
        memset(block[b], b + 1, BLOCK);
    }
    for (int b = 0; b < BLOCKS; b++)
        bad += block[b][0] != b + 1 || block[b][BLOCK / 2] != b + 1 || block[b][BLOCK - 1] != b + 1;
    for (int b = 0; b < BLOCKS; b++)
        MPI_Free_mem(block[b]);
    void *again;
    bad += MPI_Alloc_mem(BLOCK, MPI_INFO_NULL, &again) != MPI_SUCCESS;
    MPI_Free_mem(again);
    printf("heap_fill rank %d: %d in heap, %d private, %s\n", rank, in_heap, BLOCKS - in_heap,
           bad ? "CORRUPTED" : "intact");
    MPI_Finalize();
    return bad != 0;
}
