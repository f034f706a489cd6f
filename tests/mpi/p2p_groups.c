/*
 * The functions of the dispatch groups (src/wrap/dispatch.c: the lines
 * marked `until GROUP` in the route tables) are the MPI's own until their
 * group begins and wisp's after. Every send mode, blocking or not (and the
 * large-count forms), into every receive and matched probe, and the
 * sendrecvs: with both processes on one node wisp serves the world from
 * MPI_Init and must carry each message (a slot left the MPI's own would
 * hang, the receiver looking for a local sender only in wisp), with each
 * process its own node the MPI carries them all. Then the polls over the
 * request of MPI_Isendrecv, wisp's on every communicator: under
 * WISP_VNODE_SIZE=1 it is wisp's first request, so the group of the polls
 * begins there, in the middle of the run, and a poll left the MPI's own
 * would hand it wisp's handle.
 *
 * Usage: p2p_groups local|remote     (2 processes; local: wisp carries the
 *                                     messages, remote: the MPI does)
 */
#include <mpi.h>

#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "wisp.h"

static int rank, peer, received; /* messages this process received from its peer */

/* The messages that came through wisp's shared memory. */
static unsigned long long through_wisp(void)
{
    return wisp_shm_counter("immediate") + wisp_shm_counter("staged") +
           wisp_shm_counter("single_copy") + wisp_shm_counter("synergistic");
}

static void got(const MPI_Status *st, int tag, int value, int want)
{
    CHECK(st->MPI_SOURCE == peer && st->MPI_TAG == tag && value == want);
    received++;
}

/* Rank 0 sends by each mode, rank 1 receives by each kind of receive. */
static void modes(void)
{
    int x = -1;
    MPI_Status st;
    MPI_Request r;
    MPI_Message m;
    if (rank == 0) {
        int v[8] = {10, 11, 12, 13, 14, 15, 16, 17};
        MPI_Ssend(&v[0], 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
        MPI_Bsend(&v[1], 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD); /* the receive of the ready send is posted */
        MPI_Rsend(&v[2], 1, MPI_INT, 1, 2, MPI_COMM_WORLD);
        MPI_Issend(&v[3], 1, MPI_INT, 1, 3, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        MPI_Ibsend(&v[4], 1, MPI_INT, 1, 4, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Irsend(&v[5], 1, MPI_INT, 1, 5, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        MPI_Isend(&v[6], 1, MPI_INT, 1, 6, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        MPI_Send(&v[7], 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
        return;
    }
    MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &st);
    got(&st, 0, x, 10);
    MPI_Irecv(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, &st);
    got(&st, 1, x, 11);
    MPI_Irecv(&x, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, &r);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Wait(&r, &st);
    got(&st, 2, x, 12);
    MPI_Mprobe(0, 3, MPI_COMM_WORLD, &m, &st);
    CHECK(st.MPI_TAG == 3);
    MPI_Mrecv(&x, 1, MPI_INT, &m, &st);
    got(&st, 3, x, 13);
    for (int flag = 0; !flag;)
        MPI_Improbe(0, 4, MPI_COMM_WORLD, &flag, &m, &st);
    MPI_Imrecv(&x, 1, MPI_INT, &m, &r);
    MPI_Wait(&r, &st);
    got(&st, 4, x, 14);
    MPI_Irecv(&x, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, &r);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Wait(&r, &st);
    got(&st, 5, x, 15);
    MPI_Probe(0, 6, MPI_COMM_WORLD, &st);
    MPI_Recv(&x, 1, MPI_INT, 0, 6, MPI_COMM_WORLD, &st);
    got(&st, 6, x, 16);
    for (int flag = 0; !flag;)
        MPI_Iprobe(0, 7, MPI_COMM_WORLD, &flag, &st);
    MPI_Recv(&x, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, &st);
    got(&st, 7, x, 17);
}

/* Both processes exchange by MPI_Sendrecv and MPI_Sendrecv_replace. */
static void sendrecvs(void)
{
    int x = -1, mine = 20 + rank;
    MPI_Status st;
    MPI_Sendrecv(&mine, 1, MPI_INT, peer, 8, &x, 1, MPI_INT, peer, 8, MPI_COMM_WORLD, &st);
    got(&st, 8, x, 20 + peer);
    x = 30 + rank;
    MPI_Sendrecv_replace(&x, 1, MPI_INT, peer, 9, peer, 9, MPI_COMM_WORLD, &st);
    got(&st, 9, x, 30 + peer);
}

/* The large-count forms, which the lines of their small forms route. */
static void large(void)
{
#if MPI_VERSION >= 4
    MPI_Count n = -1;
    MPI_Status st;
    MPI_Request r;
    MPI_Message m;
    int x = -1;
    if (rank == 0) {
        int v[4] = {40, 41, 42, 43};
        MPI_Isend_c(&v[0], 1, MPI_INT, 1, 10, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        MPI_Ssend_c(&v[1], 1, MPI_INT, 1, 11, MPI_COMM_WORLD);
        MPI_Send_c(&v[2], 1, MPI_INT, 1, 12, MPI_COMM_WORLD);
        MPI_Issend_c(&v[3], 1, MPI_INT, 1, 13, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        return;
    }
    MPI_Recv_c(&x, 1, MPI_INT, 0, 10, MPI_COMM_WORLD, &st);
    got(&st, 10, x, 40);
    for (int flag = 0; !flag;)
        MPI_Improbe(0, 11, MPI_COMM_WORLD, &flag, &m, &st);
    MPI_Mrecv_c(&x, 1, MPI_INT, &m, &st);
    got(&st, 11, x, 41);
    MPI_Irecv_c(&x, 1, MPI_INT, 0, 12, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, &st);
    got(&st, 12, x, 42);
    MPI_Get_count_c(&st, MPI_INT, &n);
    CHECK(n == 1);
    MPI_Recv(&x, 1, MPI_INT, 0, 13, MPI_COMM_WORLD, &st);
    got(&st, 13, x, 43);
#endif
}

/* The polls over the MPI's requests, then over a request of wisp's. */
static void polls(void)
{
    int x = -1, mine = 50 + rank, flag = 0, index = -1, outcount = -1, indices[1];
    MPI_Status st;
    MPI_Request r;
    MPI_Irecv(&x, 1, MPI_INT, peer, 14, MPI_COMM_WORLD, &r);
    MPI_Send(&mine, 1, MPI_INT, peer, 14, MPI_COMM_WORLD);
    while (!flag)
        MPI_Testany(1, &r, &index, &flag, &st);
    got(&st, 14, x, 50 + peer);
#if MPI_VERSION >= 4
    x = -1;
    MPI_Isendrecv(&mine, 1, MPI_INT, peer, 15, &x, 1, MPI_INT, peer, 15, MPI_COMM_WORLD, &r);
#if MPI_VERSION > 4 || MPI_SUBVERSION >= 1
    for (flag = 0; !flag;)
        MPI_Request_get_status_any(1, &r, &index, &flag, &st);
    CHECK(index == 0);
    MPI_Request_get_status_all(1, &r, &flag, &st);
    CHECK(flag);
    MPI_Request_get_status_some(1, &r, &outcount, indices, &st);
    CHECK(outcount == 1 && indices[0] == 0);
#endif
    for (flag = 0; !flag;)
        MPI_Request_get_status(r, &flag, &st);
    MPI_Testsome(1, &r, &outcount, indices, &st);
    CHECK(outcount == 1 && r == MPI_REQUEST_NULL);
    got(&st, 15, x, 50 + peer);
#endif
    (void)outcount;
    (void)indices;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    peer = 1 - rank;
    if (argc != 2 || (strcmp(argv[1], "local") && strcmp(argv[1], "remote"))) {
        if (rank == 0)
            fprintf(stderr, "usage: p2p_groups local|remote (2 processes)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    static char bsend_buffer[1024];
    MPI_Buffer_attach(bsend_buffer, sizeof bsend_buffer);
    unsigned long long before = through_wisp();
    modes();
    sendrecvs();
    large();
    polls();
    unsigned long long carried = through_wisp() - before;
    CHECK(carried == (strcmp(argv[1], "local") ? 0u : (unsigned long long)received));
    void *b;
    int bsize;
    MPI_Buffer_detach(&b, &bsize);
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf("p2p_groups: ok\n");
    MPI_Finalize();
    return failures ? 1 : 0;
}
