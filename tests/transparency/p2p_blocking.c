/*
 * p2p_blocking: blocking point-to-point communication.
 *
 * Checks MPI_Send/MPI_Recv (fan-out from rank 0 and replies), MPI_Ssend,
 * MPI_Bsend with MPI_Buffer_attach/detach, MPI_Rsend after a barrier that
 * guarantees the receive is posted, MPI_Sendrecv and MPI_Sendrecv_replace
 * around a ring, MPI_PROC_NULL sends/receives and the resulting status,
 * messages to self (MPI_Isend + MPI_Recv), zero-byte messages,
 * MPI_Get_count/MPI_Get_elements, and the non-overtaking rule for several
 * messages with the same tag between one pair.  Designed for 2..4 processes.
 */
#include <mpi.h>

#include "check.h"

#define W MPI_COMM_WORLD

/* Rank 0 sends {r, r+1, r+2} (tag 10+r) to every rank r > 0, which replies
 * with the sum (tag 20+r). */
static void test_send_recv(void)
{
    if (tr_rank == 0) {
        for (int r = 1; r < tr_size; r++) {
            int data[3] = {r, r + 1, r + 2};
            MPI_Send(data, 3, MPI_INT, r, 10 + r, W);
        }
        for (int r = 1; r < tr_size; r++) {
            int sum = -1;
            MPI_Status st;
            MPI_Recv(&sum, 1, MPI_INT, r, 20 + r, W, &st);
            CHECK_INT(sum, 3 * r + 3);
            CHECK_INT(st.MPI_SOURCE, r);
            CHECK_INT(st.MPI_TAG, 20 + r);
            tr_print("send/recv: rank %d replied sum=%d\n", r, sum);
        }
    } else {
        int data[3] = {0, 0, 0};
        MPI_Status st;
        MPI_Recv(data, 3, MPI_INT, 0, 10 + tr_rank, W, &st);
        int count = -1;
        MPI_Get_count(&st, MPI_INT, &count);
        CHECK_INT(count, 3);
        CHECK_INT(data[0], tr_rank);
        CHECK_INT(data[2], tr_rank + 2);
        int sum = data[0] + data[1] + data[2];
        MPI_Send(&sum, 1, MPI_INT, 0, 20 + tr_rank, W);
    }
}

static void test_ssend(void)
{
    double v = 0.0;
    if (tr_rank == 0) {
        v = 2.5;
        MPI_Ssend(&v, 1, MPI_DOUBLE, 1, 3, W);
        MPI_Recv(&v, 1, MPI_DOUBLE, 1, 4, W, MPI_STATUS_IGNORE);
        CHECK(v == 5.0, "ssend reply %g", v);
        tr_print("ssend: reply=%.1f\n", v);
    } else if (tr_rank == 1) {
        MPI_Recv(&v, 1, MPI_DOUBLE, 0, 3, W, MPI_STATUS_IGNORE);
        v *= 2.0;
        MPI_Ssend(&v, 1, MPI_DOUBLE, 0, 4, W);
    }
}

/* Two buffered sends from rank 1 to rank 0 through an attached buffer. */
static void test_bsend(void)
{
    enum { N = 16 };
    if (tr_rank == 1) {
        int pack = 0;
        MPI_Pack_size(N, MPI_INT, W, &pack);
        int bufsize = 2 * (pack + MPI_BSEND_OVERHEAD);
        char *buf = malloc((size_t)bufsize);
        MPI_Buffer_attach(buf, bufsize);
        int a[N], b[N];
        for (int i = 0; i < N; i++) {
            a[i] = i;
            b[i] = 100 + i;
        }
        MPI_Bsend(a, N, MPI_INT, 0, 5, W);
        MPI_Bsend(b, N, MPI_INT, 0, 6, W);
        /* The user buffers may be reused immediately after MPI_Bsend. */
        memset(a, 0, sizeof a);
        memset(b, 0, sizeof b);
        void *det = NULL;
        int detsize = 0;
        MPI_Buffer_detach(&det, &detsize);
        CHECK(det == buf, "detach returned the attached buffer");
        CHECK_INT(detsize, bufsize);
        free(buf);
    } else if (tr_rank == 0) {
        int a[N], b[N];
        /* Receive in the opposite order of sending: tags differ. */
        MPI_Recv(b, N, MPI_INT, 1, 6, W, MPI_STATUS_IGNORE);
        MPI_Recv(a, N, MPI_INT, 1, 5, W, MPI_STATUS_IGNORE);
        int ok = 1;
        for (int i = 0; i < N; i++)
            ok &= a[i] == i && b[i] == 100 + i;
        CHECK(ok, "bsend payload");
        tr_print("bsend: a[%d]=%d b[%d]=%d\n", N - 1, a[N - 1], N - 1, b[N - 1]);
    }
}

/* Rank 0 posts the receive before the barrier, rank 1 MPI_Rsends after it. */
static void test_rsend(void)
{
    int v = 0;
    MPI_Request req = MPI_REQUEST_NULL;
    if (tr_rank == 0)
        MPI_Irecv(&v, 1, MPI_INT, 1, 7, W, &req);
    MPI_Barrier(W);
    if (tr_rank == 1) {
        v = 4242;
        MPI_Rsend(&v, 1, MPI_INT, 0, 7, W);
    }
    if (tr_rank == 0) {
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        CHECK_INT(v, 4242);
        tr_print("rsend: value=%d\n", v);
    }
}

static void test_sendrecv_ring(void)
{
    int right = (tr_rank + 1) % tr_size, left = (tr_rank + tr_size - 1) % tr_size;
    int out = 1000 + tr_rank, in = -1;
    MPI_Status st;
    MPI_Sendrecv(&out, 1, MPI_INT, right, 8, &in, 1, MPI_INT, left, 8, W, &st);
    CHECK_INT(in, 1000 + left);
    CHECK_INT(st.MPI_SOURCE, left);
    tr_print_ranks("sendrecv: got %d from %d", in, st.MPI_SOURCE);

    int buf[2] = {tr_rank, tr_rank * tr_rank};
    MPI_Sendrecv_replace(buf, 2, MPI_INT, left, 9, right, 9, W, &st);
    CHECK_INT(buf[0], right);
    CHECK_INT(buf[1], right * right);
    int count = -1;
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK_INT(count, 2);
    tr_print_ranks("sendrecv_replace: got {%d,%d} count=%d", buf[0], buf[1], count);
}

static void test_proc_null(void)
{
    int v = 17;
    MPI_Send(&v, 1, MPI_INT, MPI_PROC_NULL, 1, W);
    MPI_Status st;
    MPI_Recv(&v, 1, MPI_INT, MPI_PROC_NULL, 1, W, &st);
    int count = -1;
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK_INT(v, 17);
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "source %d", st.MPI_SOURCE);
    CHECK(st.MPI_TAG == MPI_ANY_TAG, "tag %d", st.MPI_TAG);
    CHECK_INT(count, 0);
    tr_print("proc_null: source_is_proc_null=%d tag_is_any_tag=%d count=%d buffer=%d\n",
             st.MPI_SOURCE == MPI_PROC_NULL, st.MPI_TAG == MPI_ANY_TAG, count, v);
}

static void test_self(void)
{
    int out[2] = {tr_rank, 77}, in[2] = {-1, -1};
    MPI_Request req;
    MPI_Isend(out, 2, MPI_INT, tr_rank, 11, W, &req);
    MPI_Status st;
    MPI_Recv(in, 2, MPI_INT, tr_rank, 11, W, &st);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK_INT(in[0], tr_rank);
    CHECK_INT(in[1], 77);
    CHECK_INT(st.MPI_SOURCE, tr_rank);
    tr_print_ranks("self: got {%d,%d} from source=%d", in[0], in[1], st.MPI_SOURCE);
}

static void test_zero_byte(void)
{
    if (tr_rank == 1) {
        MPI_Send(NULL, 0, MPI_INT, 0, 12, W);
    } else if (tr_rank == 0) {
        int buf[4] = {9, 9, 9, 9};
        MPI_Status st;
        MPI_Recv(buf, 4, MPI_INT, 1, 12, W, &st);
        int count = -1, elems = -1;
        MPI_Get_count(&st, MPI_INT, &count);
        MPI_Get_elements(&st, MPI_INT, &elems);
        CHECK_INT(count, 0);
        CHECK_INT(elems, 0);
        CHECK_INT(buf[0], 9);
        tr_print("zero-byte: source=%d tag=%d count=%d elements=%d\n", st.MPI_SOURCE, st.MPI_TAG,
                 count, elems);
    }
}

/* 5 ints received into a larger buffer, once as MPI_INT and once as pairs of
 * ints (partial pair: count undefined, 5 basic elements). */
static void test_get_count(void)
{
    int data[5] = {1, 2, 3, 4, 5};
    if (tr_rank == 1) {
        MPI_Send(data, 5, MPI_INT, 0, 13, W);
        MPI_Send(data, 5, MPI_INT, 0, 14, W);
    } else if (tr_rank == 0) {
        int buf[10];
        MPI_Status st;
        int count = -1, elems = -1;
        MPI_Recv(buf, 10, MPI_INT, 1, 13, W, &st);
        MPI_Get_count(&st, MPI_INT, &count);
        MPI_Get_elements(&st, MPI_INT, &elems);
        CHECK_INT(count, 5);
        CHECK_INT(elems, 5);
        tr_print("get_count: int count=%d elements=%d\n", count, elems);

        MPI_Datatype pair;
        MPI_Type_contiguous(2, MPI_INT, &pair);
        MPI_Type_commit(&pair);
        MPI_Recv(buf, 5, pair, 1, 14, W, &st);
        MPI_Get_count(&st, pair, &count);
        MPI_Get_elements(&st, pair, &elems);
        CHECK(count == MPI_UNDEFINED, "pair count %d", count);
        CHECK_INT(elems, 5);
        CHECK_INT(buf[4], 5);
        tr_print("get_count: pair count_undefined=%d elements=%d\n", count == MPI_UNDEFINED, elems);
        MPI_Type_free(&pair);
    }
}

/* Messages with the same (source, tag, comm) must arrive in send order. */
static void test_non_overtaking(void)
{
    enum { M = 8 };
    int last = tr_size - 1;
    if (tr_rank == last) {
        for (int i = 0; i < M; i++) {
            int v = i * i;
            if (i % 2)
                MPI_Send(&v, 1, MPI_INT, 0, 15, W);
            else
                MPI_Ssend(&v, 1, MPI_INT, 0, 15, W);
        }
    } else if (tr_rank == 0) {
        int in_order = 1;
        for (int i = 0; i < M; i++) {
            int v = -1;
            MPI_Recv(&v, 1, MPI_INT, last, 15, W, MPI_STATUS_IGNORE);
            in_order &= v == i * i;
        }
        CHECK(in_order, "messages out of order");
        tr_print("non-overtaking: %d messages in order=%d\n", M, in_order);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    tr_begin("p2p_blocking", 2, 0);
    test_send_recv();
    test_ssend();
    test_bsend();
    test_rsend();
    test_sendrecv_ring();
    test_proc_null();
    test_self();
    test_zero_byte();
    test_get_count();
    test_non_overtaking();
    return tr_finish();
}
