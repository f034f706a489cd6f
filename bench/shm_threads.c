/*
 * shm_threads.c - shared-memory bandwidth of large contiguous messages
 * against the idle threads that share the copy (seed 000, Fig. 3.15): an
 * OpenMP program whose threads are idle while its main thread sends or
 * receives outside a parallel region. Under wisp the receiver's single
 * copy, and each side's blocks of a synergistic one, are split among
 * WISP_DT_THREADS threads (docs/datatypes.md); natively the MPI copies.
 *
 *   shm_threads [REPS]      REPS messages a chunk (default 8)
 *
 * Rank 0 sends messages of 64 KiB, 256 KiB, 1 MiB, 4 MiB and 16 MiB to
 * rank 1 (MPI_Send/MPI_Recv, buffers from malloc: wisp's shared heap under
 * LD_PRELOAD), which answers each chunk with one byte. Metrics:
 * bw_mbs_<size> (MB/s, median of 9 chunks). Every message's first and last
 * bytes carry its number, checked on arrival; the whole last message is
 * checked byte by byte. A team only helps a process with a core of its
 * own per thread: with 2 processes on 2 cores it cannot.
 */
#include <mpi.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_check.h" /* bench_median */

enum { CHUNKS = 9, TAG = 3 };

static const size_t sizes[] = {64 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20};
static const char *const names[] = {"64k", "256k", "1m", "4m", "16m"};

static unsigned char pattern(size_t i)
{
    return (unsigned char)(i * 131 + (i >> 12));
}

static void stamp(unsigned char *buf, size_t size, long msg)
{
    memcpy(buf, &msg, sizeof msg);
    memcpy(buf + size - sizeof msg, &msg, sizeof msg);
}

static int stamped(const unsigned char *buf, size_t size, long msg)
{
    long first, last;
    memcpy(&first, buf, sizeof first);
    memcpy(&last, buf + size - sizeof last, sizeof last);
    return first == msg && last == msg;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int reps = argc > 1 ? atoi(argv[1]) : 8;
    if (np != 2 || reps < 1) {
        if (rank == 0)
            fprintf(stderr, "shm_threads: needs 2 processes and REPS >= 1\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    size_t most = sizes[sizeof sizes / sizeof sizes[0] - 1];
    unsigned char *buf = malloc(most);
    if (!buf)
        MPI_Abort(MPI_COMM_WORLD, 2);
    if (rank == 0) {
        for (size_t i = 0; i < most; i++)
            buf[i] = pattern(i);
    } else {
        memset(buf, 0, most);
    }
    /* The pool exists, as in a hybrid program, and is idle during MPI. */
    int threads = 0;
#pragma omp parallel
#pragma omp single
    threads = omp_get_num_threads();
    int bad = 0;
    long msg = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t size = sizes[s];
        double mbs[CHUNKS];
        for (int c = -1; c < CHUNKS; c++) { /* chunk -1 warms up */
            char ack = 0;
            MPI_Barrier(MPI_COMM_WORLD);
            double t = MPI_Wtime();
            for (int r = 0; r < reps; r++, msg++) {
                if (rank == 0) {
                    stamp(buf, size, msg);
                    MPI_Send(buf, (int)size, MPI_BYTE, 1, TAG, MPI_COMM_WORLD);
                } else {
                    MPI_Recv(buf, (int)size, MPI_BYTE, 0, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    bad += !stamped(buf, size, msg);
                }
            }
            if (rank == 0)
                MPI_Recv(&ack, 1, MPI_CHAR, 1, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            else
                MPI_Send(&ack, 1, MPI_CHAR, 0, TAG, MPI_COMM_WORLD);
            t = MPI_Wtime() - t;
            if (c >= 0)
                mbs[c] = (double)size * reps / t / 1e6;
        }
        for (size_t i = size - sizeof(long); rank == 0 && i < size; i++)
            buf[i] = pattern(i); /* the next size's message carries it */
        if (rank == 0)
            printf("metric bw_mbs_%s %.0f MB/s higher\n", names[s], bench_median(mbs, CHUNKS));
    }
    if (rank == 1) { /* the last message, whole: the pattern under its stamps */
        size_t size = most;
        for (size_t i = sizeof(long); i < size - sizeof(long); i++)
            bad += buf[i] != pattern(i);
    }
    int all = 0;
    MPI_Reduce(&bad, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("threads %d, %d messages a chunk\n", threads, reps);
        printf("%s\n", all ? "FAILED: bytes differ" : "check ok");
    }
    free(buf);
    MPI_Finalize();
    return all != 0;
}
