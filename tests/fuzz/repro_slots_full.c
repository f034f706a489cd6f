/*
 * A known divergence the differential tester found (tests/fuzz/; seeds
 * 1015, 1241 and 1272 on 2 processes, setting wisp: hangs), cut down to
 * what makes it. Correct MPI, which both MPIs run natively:
 *
 *   rank 1: N nonblocking sends of 128 KiB to rank 0 (tag 1), then a small
 *           one (tag 2); completes them all.
 *   rank 0: has posted the receive of tag 2 first; waits for it, then
 *           receives the N messages of tag 1.
 *
 * Under wisp, each message above the staging area holds one of the
 * sender's 64 rendezvous slots until its receiver takes it; from the 65th
 * on, sends wait in the sender's queue, in order, and the small message
 * waits behind them. Rank 0 waits for it before it takes any tag-1
 * message: no slot is freed, the small message never leaves, a hang.
 * MPI's progress rule says a send whose matching receive is posted
 * completes (and the receive with it), whatever else is pending.
 *
 * usage: repro_slots_full [N]   (default 80; 64 or fewer pass)
 * Exit status 0 when rank 0 got everything; 1 after WATCHDOG_S seconds.
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { SIZE = 128 * 1024, WATCHDOG_S = 15 };

static void watchdog(int sig)
{
    (void)sig;
    static const char line[] = "repro_slots_full: rank 0 still waits for the small message: hang\n";
    if (write(2, line, sizeof line - 1) < 0)
        _exit(1);
    _exit(1);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, n = argc > 1 ? atoi(argv[1]) : 80;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char *big = calloc((size_t)n, SIZE);
    MPI_Request *reqs = calloc((size_t)n, sizeof *reqs);
    int small = 0, failed = 0;
    if (!big || !reqs || size < 2)
        MPI_Abort(MPI_COMM_WORLD, 2);
    if (rank == 0) {
        MPI_Request r;
        MPI_Irecv(&small, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, &r);
        MPI_Barrier(MPI_COMM_WORLD);
        signal(SIGALRM, watchdog);
        alarm(WATCHDOG_S);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        alarm(0);
        for (int i = 0; i < n; i++) {
            MPI_Recv(big + (size_t)i * SIZE, SIZE, MPI_BYTE, 1, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            failed |= big[(size_t)i * SIZE] != (char)(i + 1);
        }
        failed |= small != 42;
        printf("repro_slots_full: %d messages of %d bytes, then the small one: %s\n", n, SIZE,
               failed ? "wrong data" : "ok");
    } else if (rank == 1) {
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < n; i++) {
            big[(size_t)i * SIZE] = (char)(i + 1);
            MPI_Isend(big + (size_t)i * SIZE, SIZE, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &reqs[i]);
        }
        small = 42;
        MPI_Send(&small, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
        for (int i = 0; i < n; i++)
            MPI_Wait(&reqs[i], MPI_STATUS_IGNORE);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
    }
    free(big);
    free(reqs);
    MPI_Finalize();
    return failed;
}
