/*
 * Allocator throughput of a malloc-heavy program: after MPI_Init, every rank
 * replaces random slots of a 4096-slot pool with blocks of random size,
 * log-uniform (programs allocate far more small blocks than large), touching
 * each block; once with small blocks (16 B to 1 KiB), once with a mix up to
 * 64 KiB. Under wisp these allocations are served from the shared heap,
 * which must not make such a program slower. Prints the slowest rank's rates:
 *   metric malloc_small_rate <pairs/s> pairs/s higher
 *   metric malloc_mixed_rate <pairs/s> pairs/s higher
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

enum { SLOTS = 4096 };

static uint64_t next(uint64_t *state) /* xorshift64: cheap and reproducible */
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

/* Pairs of free+malloc per second, blocks of 16 B << 0 .. max_shift. */
static double churn(long iterations, unsigned max_shift, uint64_t seed, uint64_t *checksum)
{
    static char *slot[SLOTS];
    uint64_t state = seed;
    double t0 = MPI_Wtime();
    for (long i = 0; i < iterations; i++) {
        uint64_t r = next(&state);
        size_t size = (size_t)16 << (r % (max_shift + 1));
        size += (r >> 8) % size;
        char **s = &slot[(r >> 32) % SLOTS];
        free(*s);
        if (!(*s = malloc(size))) {
            fprintf(stderr, "malloc_heavy: malloc(%zu) failed\n", size);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        (*s)[0] = (char)i;
        (*s)[size - 1] = (char)i;
        *checksum += (unsigned char)(*s)[0];
    }
    double rate = (double)iterations / (MPI_Wtime() - t0);
    for (int s = 0; s < SLOTS; s++) {
        free(slot[s]);
        slot[s] = NULL;
    }
    return rate;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long iterations = argc > 1 ? atol(argv[1]) : 2000000;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    uint64_t checksum = 0, seed = 0x9e3779b97f4a7c15ull + (uint64_t)rank;
    double rate[2], slowest[2];
    MPI_Barrier(MPI_COMM_WORLD);
    rate[0] = churn(iterations, 6, seed, &checksum);  /* 16 B .. 1 KiB */
    rate[1] = churn(iterations, 12, seed, &checksum); /* 16 B .. 64 KiB */
    MPI_Reduce(rate, slowest, 2, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("metric malloc_small_rate %.1f pairs/s higher\n"
               "metric malloc_mixed_rate %.1f pairs/s higher\nchecksum %llu\n",
               slowest[0], slowest[1], (unsigned long long)checksum);
    MPI_Finalize();
    return 0;
}
