/*
 * p2p_nonblocking: nonblocking point-to-point communication and completion.
 *
 * Checks MPI_Isend/MPI_Irecv completed with MPI_Wait, MPI_Waitall,
 * MPI_Waitany, MPI_Waitsome, MPI_Test, MPI_Testall, MPI_Testany and
 * MPI_Testsome (polling until done), the all-null-request cases of the
 * any/some calls, MPI_Request_get_status (does not free the request),
 * MPI_Request_free on an active send request, MPI_Cancel of a receive that
 * never matches (MPI_Test_cancelled), and MPI_Issend, which must not
 * complete before the matching receive is posted.  Designed for 2..4
 * processes; completion order is nondeterministic, so only order-independent
 * facts (counts, sums, per-request checks) are printed.
 *
 * Note: real status arrays are passed instead of MPI_STATUSES_IGNORE because
 * gcc's -Wstringop-overflow rejects MPICH's (MPI_Status *)1 for the array
 * parameters of MPI_Waitsome/MPI_Testsome under -Werror.
 */
#include <mpi.h>

#include "check.h"

#define W      MPI_COMM_WORLD
#define MAXREQ 16

/* Fan-in used by the completion tests: every rank r > 0 sends the two values
 * base+r (tag base) and base+100+r (tag base+1) to rank 0, which posts one
 * receive per message.  Returns the number of receives posted on rank 0. */
static int fan_in(int base, int *vals, MPI_Request *reqs)
{
    if (tr_rank != 0) {
        int a = base + tr_rank, b = base + 100 + tr_rank;
        MPI_Send(&a, 1, MPI_INT, 0, base, W);
        MPI_Send(&b, 1, MPI_INT, 0, base + 1, W);
        return 0;
    }
    int n = 0;
    for (int r = 1; r < tr_size; r++) {
        MPI_Irecv(&vals[n], 1, MPI_INT, r, base, W, &reqs[n]);
        n++;
        MPI_Irecv(&vals[n], 1, MPI_INT, r, base + 1, W, &reqs[n]);
        n++;
    }
    return n;
}

/* Expected value of fan-in receive i (see fan_in). */
static int fan_in_expected(int base, int i)
{
    int r = i / 2 + 1;
    return i % 2 ? base + 100 + r : base + r;
}

/* Checks all fan-in values, and that each index completed exactly once. */
static void check_fan_in(const char *what, int base, int n, const int *vals, const int *done)
{
    int sum = 0;
    for (int i = 0; i < n; i++) {
        CHECK(vals[i] == fan_in_expected(base, i), "%s: value %d", what, i);
        CHECK(done[i] == 1, "%s: request %d completed %d times", what, i, done[i]);
        sum += vals[i];
    }
    tr_print("%s: %d requests completed, sum=%d\n", what, n, sum);
}

static void test_wait_ring(void)
{
    int right = (tr_rank + 1) % tr_size, left = (tr_rank + tr_size - 1) % tr_size;
    int out = tr_rank * 3, in = -1;
    MPI_Request rr, sr;
    MPI_Irecv(&in, 1, MPI_INT, left, 1, W, &rr);
    MPI_Isend(&out, 1, MPI_INT, right, 1, W, &sr);
    MPI_Status st;
    MPI_Wait(&rr, &st);
    MPI_Wait(&sr, MPI_STATUS_IGNORE);
    CHECK_INT(in, left * 3);
    CHECK_INT(st.MPI_SOURCE, left);
    CHECK(rr == MPI_REQUEST_NULL && sr == MPI_REQUEST_NULL, "wait nulls requests");
    tr_print_ranks("wait: got %d from %d", in, st.MPI_SOURCE);
}

/* All-to-all exchange of one int with every other rank, then MPI_Waitall. */
static void test_waitall(void)
{
    int out[8], in[8];
    MPI_Request reqs[16];
    MPI_Status sts[16];
    int n = 0;
    for (int r = 0; r < tr_size; r++) {
        in[r] = -1;
        out[r] = tr_rank * 10 + r;
        MPI_Irecv(&in[r], 1, MPI_INT, r, 2, W, &reqs[n++]);
    }
    for (int r = 0; r < tr_size; r++)
        MPI_Isend(&out[r], 1, MPI_INT, r, 2, W, &reqs[n++]);
    MPI_Waitall(n, reqs, sts);
    int sum = 0;
    for (int r = 0; r < tr_size; r++) {
        CHECK_INT(in[r], r * 10 + tr_rank);
        CHECK_INT(sts[r].MPI_SOURCE, r);
        CHECK_INT(sts[r].MPI_TAG, 2);
        sum += in[r];
    }
    tr_print_ranks("waitall: sum=%d", sum);
}

static void test_waitany(void)
{
    int vals[MAXREQ], done[MAXREQ] = {0};
    MPI_Request reqs[MAXREQ];
    int n = fan_in(300, vals, reqs);
    if (tr_rank != 0)
        return;
    for (int k = 0; k < n; k++) {
        int idx = -1;
        MPI_Status st;
        MPI_Waitany(n, reqs, &idx, &st);
        REQUIRE(idx >= 0 && idx < n, "waitany index %d", idx);
        CHECK_INT(st.MPI_SOURCE, idx / 2 + 1);
        done[idx]++;
    }
    check_fan_in("waitany", 300, n, vals, done);
    int idx = 0;
    MPI_Waitany(n, reqs, &idx, MPI_STATUS_IGNORE);
    CHECK(idx == MPI_UNDEFINED, "waitany on null requests: index %d", idx);
    tr_print("waitany: all-null index_undefined=%d\n", idx == MPI_UNDEFINED);
}

static void test_waitsome(void)
{
    int vals[MAXREQ], done[MAXREQ] = {0};
    MPI_Request reqs[MAXREQ];
    int n = fan_in(400, vals, reqs);
    if (tr_rank != 0)
        return;
    int finished = 0;
    while (finished < n) {
        int outcount = 0, idx[MAXREQ];
        MPI_Status sts[MAXREQ];
        MPI_Waitsome(n, reqs, &outcount, idx, sts);
        REQUIRE(outcount >= 1 && outcount <= n, "waitsome outcount %d", outcount);
        for (int k = 0; k < outcount; k++) {
            done[idx[k]]++;
            CHECK_INT(sts[k].MPI_SOURCE, idx[k] / 2 + 1);
        }
        finished += outcount;
    }
    check_fan_in("waitsome", 400, n, vals, done);
    int outcount = 0, idx[MAXREQ];
    MPI_Status sts[MAXREQ];
    MPI_Waitsome(n, reqs, &outcount, idx, sts);
    CHECK(outcount == MPI_UNDEFINED, "waitsome on null requests: %d", outcount);
    tr_print("waitsome: all-null outcount_undefined=%d\n", outcount == MPI_UNDEFINED);
}

static void test_test(void)
{
    int vals[MAXREQ], done[MAXREQ] = {0};
    MPI_Request reqs[MAXREQ];
    int n = fan_in(500, vals, reqs);
    if (tr_rank != 0)
        return;
    for (int i = 0; i < n; i++) {
        int flag = 0;
        MPI_Status st;
        while (!flag)
            MPI_Test(&reqs[i], &flag, &st);
        CHECK_INT(st.MPI_TAG, 500 + i % 2);
        CHECK(reqs[i] == MPI_REQUEST_NULL, "test nulls request %d", i);
        done[i]++;
    }
    check_fan_in("test", 500, n, vals, done);
    int flag = 0;
    MPI_Request null = MPI_REQUEST_NULL;
    MPI_Test(&null, &flag, MPI_STATUS_IGNORE);
    CHECK(flag, "test on null request gives flag=1");
}

static void test_testall(void)
{
    int vals[MAXREQ], done[MAXREQ];
    MPI_Request reqs[MAXREQ];
    int n = fan_in(600, vals, reqs);
    if (tr_rank != 0)
        return;
    int flag = 0;
    MPI_Status sts[MAXREQ];
    while (!flag)
        MPI_Testall(n, reqs, &flag, sts);
    for (int i = 0; i < n; i++) {
        done[i] = 1;
        CHECK_INT(sts[i].MPI_SOURCE, i / 2 + 1);
        CHECK(reqs[i] == MPI_REQUEST_NULL, "testall nulls request %d", i);
    }
    check_fan_in("testall", 600, n, vals, done);
}

static void test_testany(void)
{
    int vals[MAXREQ], done[MAXREQ] = {0};
    MPI_Request reqs[MAXREQ];
    int n = fan_in(700, vals, reqs);
    if (tr_rank != 0)
        return;
    for (int k = 0; k < n;) {
        int idx = -1, flag = 0;
        MPI_Testany(n, reqs, &idx, &flag, MPI_STATUS_IGNORE);
        if (flag) {
            REQUIRE(idx >= 0 && idx < n, "testany index %d", idx);
            done[idx]++;
            k++;
        }
    }
    check_fan_in("testany", 700, n, vals, done);
    int idx = 0, flag = 0;
    MPI_Testany(n, reqs, &idx, &flag, MPI_STATUS_IGNORE);
    CHECK(flag && idx == MPI_UNDEFINED, "testany on null requests: flag %d", flag);
    tr_print("testany: all-null flag=%d index_undefined=%d\n", flag, idx == MPI_UNDEFINED);
}

static void test_testsome(void)
{
    int vals[MAXREQ], done[MAXREQ] = {0};
    MPI_Request reqs[MAXREQ];
    int n = fan_in(800, vals, reqs);
    if (tr_rank != 0)
        return;
    for (int finished = 0; finished < n;) {
        int outcount = -1, idx[MAXREQ];
        MPI_Status sts[MAXREQ];
        MPI_Testsome(n, reqs, &outcount, idx, sts);
        REQUIRE(outcount >= 0 && outcount <= n, "testsome outcount %d", outcount);
        for (int k = 0; k < outcount; k++)
            done[idx[k]]++;
        finished += outcount;
    }
    check_fan_in("testsome", 800, n, vals, done);
    int outcount = 0, idx[MAXREQ];
    MPI_Status sts[MAXREQ];
    MPI_Testsome(n, reqs, &outcount, idx, sts);
    CHECK(outcount == MPI_UNDEFINED, "testsome on null requests: %d", outcount);
}

/* MPI_Request_get_status reports completion without freeing the request. */
static void test_get_status(void)
{
    if (tr_rank == 1) {
        int v = 31;
        MPI_Send(&v, 1, MPI_INT, 0, 9, W);
    } else if (tr_rank == 0) {
        int v = 0, flag = 0;
        MPI_Request req;
        MPI_Status st;
        MPI_Irecv(&v, 1, MPI_INT, 1, 9, W, &req);
        while (!flag)
            MPI_Request_get_status(req, &flag, &st);
        CHECK(req != MPI_REQUEST_NULL, "get_status keeps the request");
        CHECK_INT(st.MPI_SOURCE, 1);
        CHECK_INT(st.MPI_TAG, 9);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        CHECK_INT(v, 31);
        tr_print("request_get_status: flag=%d source=%d tag=%d value=%d\n", flag, st.MPI_SOURCE,
                 st.MPI_TAG, v);
    }
}

/* A freed active send request still delivers its message. */
static void test_request_free(void)
{
    static int v; /* must stay valid until the send completes */
    if (tr_rank == 1) {
        v = 55;
        MPI_Request req;
        MPI_Isend(&v, 1, MPI_INT, 0, 10, W, &req);
        MPI_Request_free(&req);
        CHECK(req == MPI_REQUEST_NULL, "request_free nulls request");
    } else if (tr_rank == 0) {
        int in = 0;
        MPI_Recv(&in, 1, MPI_INT, 1, 10, W, MPI_STATUS_IGNORE);
        CHECK_INT(in, 55);
        tr_print("request_free: value=%d\n", in);
    }
    /* Rank 1 must not leave (and reuse v) before the message arrived. */
    MPI_Barrier(W);
}

/* Cancel a receive for a tag nobody sends. */
static void test_cancel(void)
{
    int v = 0;
    MPI_Request req;
    MPI_Irecv(&v, 1, MPI_INT, (tr_rank + 1) % tr_size, 999, W, &req);
    MPI_Cancel(&req);
    MPI_Status st;
    MPI_Wait(&req, &st);
    int cancelled = 0;
    MPI_Test_cancelled(&st, &cancelled);
    CHECK(cancelled, "receive was cancelled");
    tr_print_ranks("cancel: cancelled=%d", cancelled);
}

/* MPI_Issend cannot complete before the receive is posted (after the
 * barrier); it completes once it is. */
static void test_issend(void)
{
    int v = 0, flag = -1;
    MPI_Request req = MPI_REQUEST_NULL;
    if (tr_rank == 1) {
        v = 66;
        MPI_Issend(&v, 1, MPI_INT, 0, 11, W, &req);
        for (int i = 0; i < 100; i++)
            MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
        CHECK(!flag, "issend completed before the receive was posted");
    }
    MPI_Barrier(W);
    if (tr_rank == 0) {
        MPI_Recv(&v, 1, MPI_INT, 1, 11, W, MPI_STATUS_IGNORE);
        CHECK_INT(v, 66);
    } else if (tr_rank == 1) {
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    MPI_Bcast(&flag, 1, MPI_INT, 1, W);
    tr_print("issend: completed_before_recv=%d value=%d\n", flag, v);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    tr_begin("p2p_nonblocking", 2, 8);
    test_wait_ring();
    test_waitall();
    test_waitany();
    test_waitsome();
    test_test();
    test_testall();
    test_testany();
    test_testsome();
    test_get_status();
    test_request_free();
    test_cancel();
    test_issend();
    return tr_finish();
}
