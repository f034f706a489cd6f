/*
 * Issue 26: more earlier messages than wisp can hand back at once. Rank 0
 * posts wildcard receives and enters a collective (wisp lends them to the
 * MPI there); rank 1, on its node, sends `n` small standard messages, then
 * a 100 KiB synchronous one, then joins; rank 2, on another node, sends
 * one message. The synchronous send can complete only through the MPI,
 * after every earlier message of its sender went there: more of them than
 * a receiver has hand-back records (64 before) hung. Each receive gets one
 * message, rank 1's in the order sent.
 *
 * usage: p2p_handback [n [rounds [bytes]]]   (3 processes, WISP_VNODE_SIZE=2)
 * `bytes`: of each earlier message (4: an int); above a heap partition of
 * 1 MiB without cross-memory attach, only a file in /dev/shm (or, where it
 * has no room, the pipe) reaches the receiver's copy.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h" /* tests/check.h */
#include "watchdog.h"

enum { SYNC_BYTES = 100 << 10, WATCHDOG_S = 30 };
static int small = (int)sizeof(int); /* bytes of each earlier message */
static int big = SYNC_BYTES;         /* of every receive buffer */

static void round_of(int rank, int n, int round)
{
    int tag = 10 + round;
    if (rank == 0) {
        int nrecv = n + 2;
        char **buf = malloc((size_t)nrecv * sizeof *buf);
        MPI_Request *r = malloc((size_t)nrecv * sizeof *r);
        MPI_Status *st = malloc((size_t)nrecv * sizeof *st);
        for (int k = 0; k < nrecv; k++) {
            buf[k] = calloc(1, (size_t)big);
            MPI_Irecv(buf[k], big, MPI_BYTE, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &r[k]);
        }
        int one = 1, sum = 0;
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        CHECK(sum == 3);
        CHECK(MPI_Waitall(nrecv, r, st) == MPI_SUCCESS);
        int next = 0, remote = 0;
        for (int k = 0; k < nrecv; k++) {
            int len = -1, first;
            MPI_Get_count(&st[k], MPI_BYTE, &len);
            memcpy(&first, buf[k], sizeof first);
            if (st[k].MPI_SOURCE == 2) {
                CHECK(len == (int)sizeof(int) && first == 2000 + round);
                remote++;
            } else {
                /* Rank 1's, in order, each whole: its number, then a fill. */
                int want = next < n ? small : SYNC_BYTES;
                CHECK(st[k].MPI_SOURCE == 1 && first == next && len == want);
                CHECK(want <= (int)sizeof(int) || buf[k][want - 1] == (char)(next + round));
                next++;
            }
            free(buf[k]);
        }
        CHECK(remote == 1 && next == n + 1);
        free(buf);
        free(r);
        free(st);
    } else if (rank == 1) {
        char *out = malloc((size_t)big);
        sleep_ms(100); /* rank 0 sits in the collective */
        for (int k = 0; k <= n; k++) {
            int len = k < n ? small : SYNC_BYTES;
            memset(out, k + round, (size_t)len);
            memcpy(out, &k, sizeof k);
            if (k < n)
                MPI_Send(out, len, MPI_BYTE, 0, tag, MPI_COMM_WORLD);
            else
                CHECK(MPI_Ssend(out, len, MPI_BYTE, 0, tag, MPI_COMM_WORLD) == MPI_SUCCESS);
        }
        int one = 1, sum = 0;
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        CHECK(sum == 3);
        free(out);
    } else {
        int v = 2000 + round, one = 1, sum = 0;
        MPI_Send(&v, (int)sizeof v, MPI_BYTE, 0, tag, MPI_COMM_WORLD);
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        CHECK(sum == 3);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int n = argc > 1 ? atoi(argv[1]) : 65;
    int rounds = argc > 2 ? atoi(argv[2]) : 2;
    if (argc > 3)
        small = atoi(argv[3]);
    if (small < (int)sizeof(int))
        small = (int)sizeof(int);
    if (small > big)
        big = small;
    if (size != 3) {
        if (rank == 0)
            fprintf(stderr, "p2p_handback: needs 3 processes\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    watchdog_start("p2p_handback", WATCHDOG_S);
    for (int round = 0; round < rounds; round++)
        round_of(rank, n, round);
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("p2p_handback: %d earlier messages, %d rounds: %s\n", n, rounds,
               all ? "FAILED" : "ok");
    MPI_Finalize();
    return all != 0;
}
