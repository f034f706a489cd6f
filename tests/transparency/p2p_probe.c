/*
 * p2p_probe: message probing.
 *
 * Checks MPI_Probe and MPI_Iprobe (polling) with the status fields and
 * MPI_Get_count taken from the probe, MPI_Iprobe of a tag nobody sends,
 * probing a specific tag while messages with other tags are pending,
 * matched probes MPI_Mprobe/MPI_Mrecv and MPI_Improbe/MPI_Imrecv with
 * MPI_ANY_SOURCE (results stored per source, so arrival order does not
 * matter), and probes on MPI_PROC_NULL (MPI_MESSAGE_NO_PROC).  Designed for
 * 2..4 processes.
 */
#include <mpi.h>

#include "check.h"

#define W MPI_COMM_WORLD

/* Fills n ints with a recognisable pattern. */
static void fill(int *buf, int n, int seed)
{
    for (int i = 0; i < n; i++)
        buf[i] = seed * 100 + i;
}

static int check_pattern(const int *buf, int n, int seed)
{
    for (int i = 0; i < n; i++)
        if (buf[i] != seed * 100 + i)
            return 0;
    return 1;
}

/* Receives a message whose size is only known from a probe status. */
static int *recv_probed(const MPI_Status *st, int *count)
{
    MPI_Get_count(st, MPI_INT, count);
    int *buf = malloc(sizeof(int) * (size_t)(*count > 0 ? *count : 1));
    MPI_Recv(buf, *count, MPI_INT, st->MPI_SOURCE, st->MPI_TAG, W, MPI_STATUS_IGNORE);
    return buf;
}

static void test_probe(void)
{
    if (tr_rank == 1) {
        int data[3];
        fill(data, 3, 7);
        MPI_Send(data, 3, MPI_INT, 0, 7, W);
    } else if (tr_rank == 0) {
        MPI_Status st;
        MPI_Probe(1, 7, W, &st);
        int count = -1;
        int *buf = recv_probed(&st, &count);
        CHECK_INT(st.MPI_SOURCE, 1);
        CHECK_INT(st.MPI_TAG, 7);
        CHECK_INT(count, 3);
        CHECK(check_pattern(buf, count, 7), "probe payload");
        tr_print("probe: source=%d tag=%d count=%d\n", st.MPI_SOURCE, st.MPI_TAG, count);
        free(buf);
    }
}

static void test_iprobe(void)
{
    if (tr_rank == 1) {
        int data[5];
        fill(data, 5, 8);
        MPI_Send(data, 5, MPI_INT, 0, 8, W);
    } else if (tr_rank == 0) {
        MPI_Status st;
        int flag = 0;
        while (!flag)
            MPI_Iprobe(MPI_ANY_SOURCE, 8, W, &flag, &st);
        int count = -1;
        int *buf = recv_probed(&st, &count);
        CHECK_INT(st.MPI_SOURCE, 1);
        CHECK_INT(count, 5);
        CHECK(check_pattern(buf, count, 8), "iprobe payload");
        tr_print("iprobe: source=%d tag=%d count=%d\n", st.MPI_SOURCE, st.MPI_TAG, count);
        free(buf);
        MPI_Iprobe(MPI_ANY_SOURCE, 99, W, &flag, &st);
        CHECK(!flag, "iprobe found a message with tag 99");
        tr_print("iprobe: unsent tag flag=%d\n", flag);
    }
}

/* Tags 20, 21, 22 (sizes 2, 4, 6) are all pending; probe 22, then 20, then
 * whatever is left with MPI_ANY_TAG. */
static void test_probe_specific_tag(void)
{
    if (tr_rank == 1) {
        int data[3][6];
        MPI_Request reqs[3];
        MPI_Status sts[3];
        for (int t = 0; t < 3; t++) {
            fill(data[t], 2 * (t + 1), 20 + t);
            MPI_Isend(data[t], 2 * (t + 1), MPI_INT, 0, 20 + t, W, &reqs[t]);
        }
        MPI_Waitall(3, reqs, sts);
    } else if (tr_rank == 0) {
        const int order[3] = {22, 20, MPI_ANY_TAG};
        for (int k = 0; k < 3; k++) {
            MPI_Status st;
            MPI_Probe(1, order[k], W, &st);
            int count = -1;
            int *buf = recv_probed(&st, &count);
            CHECK_INT(count, 2 * (st.MPI_TAG - 20 + 1));
            CHECK(check_pattern(buf, count, st.MPI_TAG), "tag %d payload", st.MPI_TAG);
            tr_print("probe tag %s: got tag=%d count=%d\n",
                     order[k] == MPI_ANY_TAG ? "ANY" : (k == 0 ? "22" : "20"), st.MPI_TAG, count);
            free(buf);
        }
    }
}

/* Every rank r > 0 sends r+1 ints (tag 30 and tag 31) to rank 0, which uses
 * MPI_Mprobe/MPI_Mrecv for tag 30 and MPI_Improbe/MPI_Imrecv for tag 31. */
static void test_matched_probe(void)
{
    if (tr_rank != 0) {
        int data[8];
        fill(data, tr_rank + 1, tr_rank);
        MPI_Send(data, tr_rank + 1, MPI_INT, 0, 30, W);
        MPI_Send(data, tr_rank + 1, MPI_INT, 0, 31, W);
        return;
    }
    int counts[2][8] = {{0}};
    for (int k = 1; k < tr_size; k++) {
        MPI_Message msg;
        MPI_Status st;
        int count = -1, buf[8];
        MPI_Mprobe(MPI_ANY_SOURCE, 30, W, &msg, &st);
        MPI_Get_count(&st, MPI_INT, &count);
        MPI_Mrecv(buf, count, MPI_INT, &msg, MPI_STATUS_IGNORE);
        CHECK(msg == MPI_MESSAGE_NULL, "mrecv resets the message handle");
        CHECK(check_pattern(buf, count, st.MPI_SOURCE), "mrecv payload");
        counts[0][st.MPI_SOURCE] = count;
    }
    for (int k = 1; k < tr_size; k++) {
        MPI_Message msg;
        MPI_Status st, rst;
        MPI_Request req;
        int flag = 0, count = -1, buf[8];
        while (!flag)
            MPI_Improbe(MPI_ANY_SOURCE, 31, W, &flag, &msg, &st);
        MPI_Get_count(&st, MPI_INT, &count);
        MPI_Imrecv(buf, count, MPI_INT, &msg, &req);
        MPI_Wait(&req, &rst);
        CHECK_INT(rst.MPI_SOURCE, st.MPI_SOURCE);
        CHECK_INT(rst.MPI_TAG, 31);
        CHECK(check_pattern(buf, count, st.MPI_SOURCE), "imrecv payload");
        counts[1][st.MPI_SOURCE] = count;
    }
    for (int r = 1; r < tr_size; r++) {
        CHECK_INT(counts[0][r], r + 1);
        CHECK_INT(counts[1][r], r + 1);
        tr_print("mprobe: source=%d count=%d; improbe: source=%d count=%d\n", r, counts[0][r], r,
                 counts[1][r]);
    }
}

static void test_proc_null(void)
{
    MPI_Status st;
    int count = -1;
    MPI_Probe(MPI_PROC_NULL, 5, W, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "probe proc_null source");
    CHECK(st.MPI_TAG == MPI_ANY_TAG, "probe proc_null tag");
    CHECK_INT(count, 0);

    MPI_Message msg;
    int flag = 0;
    MPI_Improbe(MPI_PROC_NULL, 5, W, &flag, &msg, &st);
    CHECK(flag, "improbe proc_null flag");
    CHECK(msg == MPI_MESSAGE_NO_PROC, "improbe proc_null gives MPI_MESSAGE_NO_PROC");
    int v = 3;
    MPI_Mrecv(&v, 1, MPI_INT, &msg, &st);
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "mrecv no_proc source");
    CHECK_INT(v, 3);
    tr_print("proc_null: probe count=%d improbe flag=%d no_proc=%d\n", count, flag,
             st.MPI_SOURCE == MPI_PROC_NULL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    tr_begin("p2p_probe", 2, 8);
    test_probe();
    test_iprobe();
    test_probe_specific_tag();
    MPI_Barrier(W);
    test_matched_probe();
    test_proc_null();
    return tr_finish();
}
