/*
 * p2p_persistent: persistent communication requests.
 *
 * Checks MPI_Send_init/MPI_Recv_init around a ring restarted several times
 * with MPI_Startall and changing buffer contents, an echo between ranks 0
 * and 1 using MPI_Start, MPI_Ssend_init, MPI_Bsend_init (with an attached
 * buffer), MPI_Rsend_init (receive started before a barrier), MPI_Test on a
 * persistent request, MPI_Wait on an inactive persistent request (returns at
 * once with an empty status), and MPI_Request_free of inactive persistent
 * requests.  Designed for 2..4 processes.
 */
#include <mpi.h>

#include "check.h"

#define W      MPI_COMM_WORLD
#define ROUNDS 4

/* Ring: each round every rank sends {round, rank} right and receives from
 * the left through the same two persistent requests. */
static void test_ring(void)
{
    int right = (tr_rank + 1) % tr_size, left = (tr_rank + tr_size - 1) % tr_size;
    int out[2], in[2];
    MPI_Request reqs[2];
    MPI_Status sts[2];
    MPI_Recv_init(in, 2, MPI_INT, left, 1, W, &reqs[0]);
    MPI_Send_init(out, 2, MPI_INT, right, 1, W, &reqs[1]);
    int total = 0;
    for (int round = 0; round < ROUNDS; round++) {
        out[0] = round;
        out[1] = tr_rank;
        in[0] = in[1] = -1;
        MPI_Startall(2, reqs);
        MPI_Waitall(2, reqs, sts);
        CHECK_INT(in[0], round);
        CHECK_INT(in[1], left);
        CHECK_INT(sts[0].MPI_SOURCE, left);
        CHECK(reqs[0] != MPI_REQUEST_NULL, "persistent request survives wait");
        total += in[0] * 10 + in[1];
    }
    MPI_Request_free(&reqs[0]);
    MPI_Request_free(&reqs[1]);
    CHECK(reqs[0] == MPI_REQUEST_NULL && reqs[1] == MPI_REQUEST_NULL,
          "request_free nulls persistent requests");
    tr_print_ranks("ring: %d rounds, total=%d", ROUNDS, total);
}

/* Rank 0 sends a value, rank 1 echoes it doubled; both sides use persistent
 * requests created with the given send-init function. */
typedef int (*send_init_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);

static void echo(const char *what, send_init_fn send_init, int tag)
{
    if (tr_rank > 1)
        return;
    int peer = 1 - tr_rank;
    int out = 0, in = 0;
    MPI_Request sreq, rreq;
    send_init(&out, 1, MPI_INT, peer, tag, W, &sreq);
    MPI_Recv_init(&in, 1, MPI_INT, peer, tag, W, &rreq);
    int sum = 0;
    for (int round = 1; round <= ROUNDS; round++) {
        if (tr_rank == 0) {
            out = round * 7;
            MPI_Start(&rreq);
            MPI_Start(&sreq);
            MPI_Wait(&sreq, MPI_STATUS_IGNORE);
            int flag = 0;
            while (!flag)
                MPI_Test(&rreq, &flag, MPI_STATUS_IGNORE);
            CHECK_INT(in, 2 * round * 7);
            sum += in;
        } else {
            MPI_Start(&rreq);
            MPI_Wait(&rreq, MPI_STATUS_IGNORE);
            out = 2 * in;
            MPI_Start(&sreq);
            MPI_Wait(&sreq, MPI_STATUS_IGNORE);
        }
    }
    MPI_Request_free(&sreq);
    MPI_Request_free(&rreq);
    tr_print("%s: %d rounds, echo sum=%d\n", what, ROUNDS, sum);
}

static void test_bsend_init(void)
{
    int size = 0;
    MPI_Pack_size(1, MPI_INT, W, &size);
    size = 4 * (size + MPI_BSEND_OVERHEAD);
    char *buf = malloc((size_t)size);
    MPI_Buffer_attach(buf, size);
    echo("bsend_init", MPI_Bsend_init, 3);
    void *det;
    MPI_Buffer_detach(&det, &size);
    free(buf);
}

/* MPI_Rsend_init: rank 0 starts its receive, then a barrier, then rank 1
 * starts the ready send; repeated ROUNDS times. */
static void test_rsend_init(void)
{
    int v = -1;
    MPI_Request req = MPI_REQUEST_NULL;
    if (tr_rank == 0)
        MPI_Recv_init(&v, 1, MPI_INT, 1, 4, W, &req);
    else if (tr_rank == 1)
        MPI_Rsend_init(&v, 1, MPI_INT, 0, 4, W, &req);
    int sum = 0;
    for (int round = 1; round <= ROUNDS; round++) {
        if (tr_rank == 0)
            MPI_Start(&req);
        MPI_Barrier(W);
        if (tr_rank == 1) {
            v = round * 1000;
            MPI_Start(&req);
        }
        if (tr_rank <= 1)
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        if (tr_rank == 0) {
            CHECK_INT(v, round * 1000);
            sum += v;
        }
        /* Keeps rank 1 from starting the next ready send before rank 0 has
         * restarted its receive (that happens before the next barrier). */
    }
    if (req != MPI_REQUEST_NULL)
        MPI_Request_free(&req);
    tr_print("rsend_init: %d rounds, sum=%d\n", ROUNDS, sum);
}

/* Waiting on an inactive persistent request returns at once with an empty
 * status. */
static void test_inactive(void)
{
    int v = 0;
    MPI_Request req;
    MPI_Recv_init(&v, 1, MPI_INT, 0, 5, W, &req);
    MPI_Status st;
    MPI_Wait(&req, &st);
    int count = -1;
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(req != MPI_REQUEST_NULL, "wait keeps inactive persistent request");
    CHECK(st.MPI_SOURCE == MPI_ANY_SOURCE, "empty status source");
    CHECK(st.MPI_TAG == MPI_ANY_TAG, "empty status tag");
    CHECK_INT(count, 0);
    int flag = 0;
    MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
    CHECK(flag, "test on inactive persistent request");
    MPI_Request_free(&req);
    tr_print("inactive: wait empty status=%d test flag=%d\n",
             st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG && count == 0, flag);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    tr_begin("p2p_persistent", 2, 0);
    test_ring();
    echo("send_init", MPI_Send_init, 2);
    echo("ssend_init", MPI_Ssend_init, 6);
    test_bsend_init();
    test_rsend_init();
    test_inactive();
    return tr_finish();
}
