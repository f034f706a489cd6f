/*
 * MPI_Finalize delivers the sends that were already reported complete or
 * released with MPI_Request_free, and frees what they held: rank 0 sends a
 * strided message (packed into a copy of wisp's and staged whole: complete,
 * though no receiver took it yet), more small messages than its ring to
 * rank 1 holds (the rest wait in line, complete from a private copy), a
 * large private message freed with MPI_Request_free (staged chunk by
 * chunk), and finalizes at once; rank 1 receives everything only later.
 * Under LeakSanitizer a copy not freed at MPI_Finalize is reported.
 * 2 processes.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h" /* tests/check.h */

enum {
    SMALL = 300,
    LARGE_INTS = 1 << 18, /* 1 MiB: many staging areas */
    STRIDED_INTS = 2048,  /* 8 KiB: one staging area */
};

static int large[LARGE_INTS]; /* private memory: the staged protocol */
static int strided[2 * STRIDED_INTS];

/* Wait for a receive at most 10 s; cancelled when it does not come. */
static int recv_within(MPI_Request *req)
{
    double end = MPI_Wtime() + 10;
    int flag = 0;
    while (!flag && MPI_Wtime() < end)
        MPI_Test(req, &flag, MPI_STATUS_IGNORE);
    if (!flag) {
        MPI_Cancel(req);
        MPI_Wait(req, MPI_STATUS_IGNORE);
    }
    return flag;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "p2p_finalize: needs 2 processes\n");
        MPI_Finalize();
        return 2;
    }
    static int small[SMALL];
    if (rank == 0) {
        MPI_Request req[SMALL], big;
        MPI_Datatype every_other;
        MPI_Type_vector(STRIDED_INTS, 1, 2, MPI_INT, &every_other);
        MPI_Type_commit(&every_other);
        for (int k = 0; k < 2 * STRIDED_INTS; k++)
            strided[k] = k;
        MPI_Send(strided, 1, every_other, 1, 3, MPI_COMM_WORLD);
        MPI_Type_free(&every_other);
        for (int i = 0; i < SMALL; i++) {
            small[i] = i;
            MPI_Isend(&small[i], 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &req[i]);
        }
        for (int k = 0; k < LARGE_INTS; k++)
            large[k] = k ^ 0x5a5a;
        MPI_Isend(large, LARGE_INTS, MPI_INT, 1, 2, MPI_COMM_WORLD, &big);
        MPI_Request_free(&big);
        static MPI_Status st[SMALL];
        MPI_Waitall(SMALL, req, st); /* what an MPI buffers is complete */
        memset(small, 0, sizeof small);
        MPI_Finalize(); /* before rank 1 receives anything */
        return 0;
    }
    nanosleep(&(struct timespec){0, 300000000}, NULL);
    int bad = 0, missing = 0;
    for (int i = 0; i < SMALL && !missing; i++) {
        int got = -1;
        MPI_Request r;
        MPI_Irecv(&got, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &r);
        missing = !recv_within(&r);
        bad += !missing && got != i;
    }
    CHECK(!missing && !bad);
    MPI_Request r;
    MPI_Irecv(large, LARGE_INTS, MPI_INT, 0, 2, MPI_COMM_WORLD, &r);
    CHECK(recv_within(&r));
    for (int k = 0; k < LARGE_INTS; k++)
        bad += large[k] != (k ^ 0x5a5a);
    CHECK(!bad);
    MPI_Irecv(strided, STRIDED_INTS, MPI_INT, 0, 3, MPI_COMM_WORLD, &r);
    CHECK(recv_within(&r));
    for (int k = 0; k < STRIDED_INTS; k++)
        bad += strided[k] != 2 * k;
    CHECK(!bad);
    printf("p2p_finalize: %s\n", failures ? "FAILED" : "OK");
    MPI_Finalize();
    return failures ? 1 : 0;
}
