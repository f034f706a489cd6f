/*
 * request_get_status: MPI-4.1's MPI_Request_get_status_any, _all and _some
 * (mpi4py's test_request and test_util_pkl5 call them), over arrays that mix
 * point-to-point requests (wisp's under wisp) with a request of the MPI's
 * own (MPI_Ibarrier), MPI_REQUEST_NULL and an inactive persistent request:
 * none of them is freed or made inactive by the calls, the indices, flags
 * and statuses are those of the Test forms. Built only over an MPI that
 * has them (MPICH 5). Designed for 2 processes.
 */
#include <mpi.h>

#include "check.h"

#define W MPI_COMM_WORLD

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    tr_begin("request_get_status", 2, 2);
    int peer = 1 - tr_rank, in = -1, out = 10 + tr_rank, dummy = 0;
    MPI_Status st, sts[4];
    int flag = 0, index = -1, outcount = -1, indices[4];

    /* Only null and inactive requests: any and some say so, all is true. */
    MPI_Request idle[2];
    MPI_Recv_init(&dummy, 1, MPI_INT, peer, 99, W, &idle[0]);
    idle[1] = MPI_REQUEST_NULL;
    MPI_Request_get_status_any(2, idle, &index, &flag, &st);
    CHECK(flag && index == MPI_UNDEFINED, "any over idle: flag %d index %d", flag, index);
    MPI_Request_get_status_some(2, idle, &outcount, indices, sts);
    CHECK_INT(outcount, MPI_UNDEFINED);
    MPI_Request_get_status_all(2, idle, &flag, sts);
    CHECK(flag && sts[0].MPI_SOURCE == MPI_ANY_SOURCE && sts[0].MPI_TAG == MPI_ANY_TAG,
          "all over idle: flag %d source %d tag %d", flag, sts[0].MPI_SOURCE, sts[0].MPI_TAG);
    tr_print("idle: any undefined, some undefined, all true\n");

    /* A receive that cannot complete before the peer's send, which comes
     * after a barrier: any, some and all are not complete. */
    MPI_Request r[4];
    MPI_Irecv(&in, 1, MPI_INT, peer, 7, W, &r[0]);
    r[1] = MPI_REQUEST_NULL;
    r[2] = idle[0];
    MPI_Request_get_status_any(3, r, &index, &flag, MPI_STATUS_IGNORE);
    CHECK(!flag, "any before the send: flag %d index %d", flag, index);
    MPI_Request_get_status_some(3, r, &outcount, indices, MPI_STATUSES_IGNORE);
    CHECK_INT(outcount, 0);
    MPI_Request_get_status_all(3, r, &flag, MPI_STATUSES_IGNORE);
    CHECK_INT(flag, 0);
    MPI_Barrier(W);
    MPI_Send(&out, 1, MPI_INT, peer, 7, W);

    /* The receive completes: any finds it, and the request stays. */
    do
        MPI_Request_get_status_any(3, r, &index, &flag, &st);
    while (!flag);
    CHECK_INT(index, 0);
    CHECK_INT(st.MPI_SOURCE, peer);
    CHECK_INT(st.MPI_TAG, 7);
    CHECK(r[0] != MPI_REQUEST_NULL, "get_status_any freed the request");
    tr_print("any: index %d source peer tag %d\n", index, st.MPI_TAG);

    /* With a request of the MPI's own, not complete until both reach it. */
    MPI_Ibarrier(W, &r[3]);
    do
        MPI_Request_get_status_all(4, r, &flag, sts);
    while (!flag);
    CHECK_INT(sts[0].MPI_SOURCE, peer);
    CHECK_INT(sts[0].MPI_TAG, 7);
    CHECK_INT(sts[2].MPI_TAG, MPI_ANY_TAG);
    int count = -1;
    MPI_Get_count(&sts[0], MPI_INT, &count);
    CHECK_INT(count, 1);
    tr_print("all: receive count %d, inactive empty\n", count);

    MPI_Request_get_status_some(4, r, &outcount, indices, sts);
    CHECK_INT(outcount, 2);
    int seen = 0;
    for (int i = 0; i < outcount; i++)
        seen |= 1 << indices[i];
    CHECK_INT(seen, (1 << 0) | (1 << 3));
    tr_print("some: %d complete (the receive and the barrier)\n", outcount);

    /* The requests are still there: Waitall frees them. */
    CHECK(r[0] != MPI_REQUEST_NULL && r[3] != MPI_REQUEST_NULL, "a request was freed");
    MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
    CHECK_INT(in, 10 + peer);
    MPI_Request_free(&idle[0]);
    tr_print("waitall: received %d from the peer\n", in - 10 == peer ? 1 : 0);
    return tr_finish();
}
