/*
 * p2p_wildcard: receives with MPI_ANY_SOURCE and/or MPI_ANY_TAG.
 *
 * Every rank r > 0 sends a batch of messages to rank 0, whose payload
 * encodes (sender, sequence number).  Rank 0 receives them with
 *   1. MPI_ANY_SOURCE + MPI_ANY_TAG,
 *   2. MPI_ANY_SOURCE + a specific tag while messages with other tags are
 *      pending (tag 2 first, then tag 1),
 *   3. a specific source + MPI_ANY_TAG, senders visited in reverse order.
 * Arrival order across senders is nondeterministic, so the received
 * (source, tag, seq) triples are sorted before printing; the per-sender
 * order (non-overtaking) is checked before sorting.  Designed for 3..4
 * processes.
 */
#include <mpi.h>

#include "check.h"

#define W          MPI_COMM_WORLD
#define PER_SENDER 6
#define MAXMSG     (8 * PER_SENDER)

struct msg {
    int source, tag, seq;
};

static int cmp_msg(const void *a, const void *b)
{
    const struct msg *x = a, *y = b;
    if (x->source != y->source)
        return x->source - y->source;
    if (x->tag != y->tag)
        return x->tag - y->tag;
    return x->seq - y->seq;
}

/* Senders: PER_SENDER messages to rank 0, tag 1 or 2 alternating, payload
 * {rank, seq, tag}.  Nonblocking so nothing depends on eager limits. */
static void send_batch(void)
{
    int payload[PER_SENDER][3];
    MPI_Request reqs[PER_SENDER];
    MPI_Status sts[PER_SENDER];
    for (int i = 0; i < PER_SENDER; i++) {
        int tag = 1 + i % 2;
        payload[i][0] = tr_rank;
        payload[i][1] = i;
        payload[i][2] = tag;
        MPI_Isend(payload[i], 3, MPI_INT, 0, tag, W, &reqs[i]);
    }
    MPI_Waitall(PER_SENDER, reqs, sts);
}

/* Receives one message with the given source/tag selectors, checks the
 * status against the payload, and records it. */
static struct msg recv_one(int source, int tag)
{
    int p[3] = {-1, -1, -1};
    MPI_Status st;
    MPI_Recv(p, 3, MPI_INT, source, tag, W, &st);
    int count = -1;
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK_INT(count, 3);
    CHECK_INT(st.MPI_SOURCE, p[0]);
    CHECK_INT(st.MPI_TAG, p[2]);
    if (source != MPI_ANY_SOURCE)
        CHECK_INT(st.MPI_SOURCE, source);
    if (tag != MPI_ANY_TAG)
        CHECK_INT(st.MPI_TAG, tag);
    struct msg m = {st.MPI_SOURCE, st.MPI_TAG, p[1]};
    return m;
}

/* Per-sender (and, when by_tag, per-tag) sequence numbers must increase in
 * arrival order. */
static void check_order(const char *what, const struct msg *m, int n, int by_tag)
{
    int last[8][3];
    for (int r = 0; r < 8; r++)
        last[r][0] = last[r][1] = last[r][2] = -1;
    for (int i = 0; i < n; i++) {
        int t = by_tag ? m[i].tag : 0;
        CHECK(m[i].seq > last[m[i].source][t], "%s: message %d from %d overtook", what, m[i].seq,
              m[i].source);
        last[m[i].source][t] = m[i].seq;
    }
}

static void print_sorted(const char *what, struct msg *m, int n)
{
    qsort(m, (size_t)n, sizeof *m, cmp_msg);
    tr_print("%s: %d messages\n", what, n);
    for (int i = 0; i < n; i++)
        tr_print("%s:   source=%d tag=%d seq=%d\n", what, m[i].source, m[i].tag, m[i].seq);
}

static void test_any_source_any_tag(void)
{
    if (tr_rank != 0) {
        send_batch();
        return;
    }
    struct msg m[MAXMSG] = {{0, 0, 0}};
    int n = (tr_size - 1) * PER_SENDER;
    for (int i = 0; i < n; i++)
        m[i] = recv_one(MPI_ANY_SOURCE, MPI_ANY_TAG);
    check_order("any_source+any_tag", m, n, 0);
    print_sorted("any_source+any_tag", m, n);
}

static void test_any_source_by_tag(void)
{
    if (tr_rank != 0) {
        send_batch();
        return;
    }
    struct msg m[MAXMSG] = {{0, 0, 0}};
    int n = (tr_size - 1) * PER_SENDER;
    int k = 0;
    for (int tag = 2; tag >= 1; tag--)
        for (int i = 0; i < n / 2; i++)
            m[k++] = recv_one(MPI_ANY_SOURCE, tag);
    check_order("any_source+tag", m, n, 1);
    for (int i = 0; i < n; i++)
        CHECK_INT(m[i].tag, i < n / 2 ? 2 : 1);
    print_sorted("any_source+tag", m, n);
}

static void test_source_any_tag(void)
{
    if (tr_rank != 0) {
        send_batch();
        return;
    }
    struct msg m[MAXMSG] = {{0, 0, 0}};
    int k = 0;
    for (int r = tr_size - 1; r >= 1; r--)
        for (int i = 0; i < PER_SENDER; i++) {
            m[k] = recv_one(r, MPI_ANY_TAG);
            CHECK_INT(m[k].seq, i);
            k++;
        }
    check_order("source+any_tag", m, k, 0);
    print_sorted("source+any_tag", m, k);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    tr_begin("p2p_wildcard", 3, 8);
    test_any_source_any_tag();
    MPI_Barrier(W);
    test_any_source_by_tag();
    MPI_Barrier(W);
    test_source_any_tag();
    return tr_finish();
}
