/*
 * collectives: blocking and nonblocking collective operations on
 * MPI_COMM_WORLD.
 *
 * Checks MPI_Barrier, MPI_Bcast, MPI_Reduce, MPI_Allreduce with many
 * predefined ops (including MAXLOC/MINLOC on MPI_DOUBLE_INT with ties) and
 * user-defined ops from MPI_Op_create (a commutative one and a
 * non-commutative 2x2 matrix product, whose result depends on rank order),
 * MPI_Gather(v), MPI_Scatter(v), MPI_Allgather(v), MPI_Alltoall(v,w),
 * MPI_Reduce_scatter(_block), MPI_Scan, MPI_Exscan, MPI_Ibarrier,
 * MPI_Ibcast, MPI_Iallreduce, MPI_Ialltoall, and MPI_IN_PLACE forms of
 * reduce, allreduce, gather, scatter, allgather, alltoall, scan and
 * reduce_scatter_block.  Every rank checks its own result; rank 0 prints
 * its view.  Designed for 1..8 processes.
 */
#include <mpi.h>

#include "check.h"

#define W    MPI_COMM_WORLD
#define MAXP 8

/* Formats n ints as "a b c" into one of a few rotating static buffers. */
static const char *ints(const int *v, int n)
{
    static char bufs[4][TR_LINE_MAX];
    static int next = 0;
    char *s = bufs[next++ % 4];
    size_t len = 0;
    s[0] = '\0';
    for (int i = 0; i < n && len < TR_LINE_MAX - 12; i++)
        len += (size_t)snprintf(s + len, TR_LINE_MAX - len, i ? " %d" : "%d", v[i]);
    return s;
}

/* Sum of 0..n-1. */
static int tri(int n)
{
    return n * (n - 1) / 2;
}

static void test_bcast_barrier(void)
{
    MPI_Barrier(W);
    int root = tr_size - 1;
    int v[4] = {0, 0, 0, 0};
    if (tr_rank == root)
        for (int i = 0; i < 4; i++)
            v[i] = 11 * (i + 1);
    MPI_Bcast(v, 4, MPI_INT, root, W);
    for (int i = 0; i < 4; i++)
        CHECK_INT(v[i], 11 * (i + 1));
    tr_print("bcast: root=%d data=%s\n", root, ints(v, 4));
}

static void test_reduce(void)
{
    int in[2] = {tr_rank + 1, 2 * tr_rank}, out[2] = {-1, -1};
    MPI_Reduce(in, out, 2, MPI_INT, MPI_SUM, 0, W);
    if (tr_rank == 0) {
        CHECK_INT(out[0], tri(tr_size + 1));
        CHECK_INT(out[1], 2 * tri(tr_size));
        tr_print("reduce sum: %s\n", ints(out, 2));
    }
    /* Root other than 0, MPI_MAX on doubles. */
    double d = tr_rank * 1.5, dmax = -1.0;
    int root = tr_size / 2;
    MPI_Reduce(&d, &dmax, 1, MPI_DOUBLE, MPI_MAX, root, W);
    if (tr_rank == root)
        CHECK(dmax == (tr_size - 1) * 1.5, "reduce max %g", dmax);
    MPI_Bcast(&dmax, 1, MPI_DOUBLE, root, W);
    tr_print("reduce max: root=%d value=%.1f\n", root, dmax);
}

static void test_allreduce_ops(void)
{
    int r = tr_rank, n = tr_size;
    int v, res;
    struct {
        MPI_Op op;
        const char *name;
        int in;
        int expect;
    } cases[] = {
        {MPI_SUM, "sum", r + 1, tri(n + 1)},    {MPI_MAX, "max", (r * 3) % (n + 1), 0},
        {MPI_MIN, "min", 10 - r, 10 - (n - 1)}, {MPI_PROD, "prod", r % 3 + 1, 0},
        {MPI_BAND, "band", 0xff ^ (1 << r), 0}, {MPI_BOR, "bor", 1 << r, (1 << n) - 1},
        {MPI_BXOR, "bxor", 3, n % 2 ? 3 : 0},   {MPI_LAND, "land", r != 1, n < 2},
        {MPI_LOR, "lor", r == n - 1, 1},        {MPI_LXOR, "lxor", 1, n % 2},
    };
    size_t ncases = sizeof cases / sizeof cases[0];
    /* Expected values that need a loop. */
    int maxv = 0, prod = 1, band = 0xff;
    for (int k = 0; k < n; k++) {
        if ((k * 3) % (n + 1) > maxv)
            maxv = (k * 3) % (n + 1);
        prod *= k % 3 + 1;
        band &= 0xff ^ (1 << k);
    }
    cases[1].expect = maxv;
    cases[3].expect = prod;
    cases[4].expect = band;
    for (size_t i = 0; i < ncases; i++) {
        v = cases[i].in;
        res = -12345;
        MPI_Allreduce(&v, &res, 1, MPI_INT, cases[i].op, W);
        CHECK(res == cases[i].expect, "allreduce %s: got %d expected %d", cases[i].name, res,
              cases[i].expect);
        tr_print("allreduce %s=%d\n", cases[i].name, res);
    }
}

static void test_maxloc(void)
{
    struct {
        double val;
        int loc;
    } in, mx, mn;
    in.val = (double)(tr_rank % 3) + 0.5; /* ties between ranks r and r+3 */
    in.loc = tr_rank;
    MPI_Allreduce(&in, &mx, 1, MPI_DOUBLE_INT, MPI_MAXLOC, W);
    MPI_Allreduce(&in, &mn, 1, MPI_DOUBLE_INT, MPI_MINLOC, W);
    int maxrank = tr_size >= 3 ? 2 : tr_size - 1;
    CHECK(mx.val == maxrank + 0.5, "maxloc value %g", mx.val);
    CHECK_INT(mx.loc, maxrank);
    CHECK(mn.val == 0.5, "minloc value %g", mn.val);
    CHECK_INT(mn.loc, 0);
    tr_print("allreduce maxloc: value=%.1f loc=%d; minloc: value=%.1f loc=%d\n", mx.val, mx.loc,
             mn.val, mn.loc);
}

/* Commutative user op: elementwise "max of absolute values". */
static void absmax_fn(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    const int *a = in;
    int *b = inout;
    for (int i = 0; i < *len; i++) {
        int x = a[i] < 0 ? -a[i] : a[i], y = b[i] < 0 ? -b[i] : b[i];
        b[i] = x > y ? x : y;
    }
}

/* Non-commutative user op: 2x2 integer matrix product, inout = in * inout
 * (in holds the lower ranks' partial result). */
static void matmul_fn(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    const int *a = in;
    int *b = inout;
    for (int k = 0; k < *len; k++, a += 4, b += 4) {
        int c[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
                    a[2] * b[1] + a[3] * b[3]};
        memcpy(b, c, sizeof c);
    }
}

static void rank_matrix(int r, int *m)
{
    m[0] = r + 1;
    m[1] = 1;
    m[2] = 0;
    m[3] = 1;
}

static void test_user_ops(void)
{
    MPI_Op absmax, matmul;
    MPI_Op_create(absmax_fn, 1, &absmax);
    MPI_Op_create(matmul_fn, 0, &matmul);
    int commute = -1;
    MPI_Op_commutative(matmul, &commute);
    CHECK_INT(commute, 0);

    /* Odd ranks contribute negative values (the op is not applied at all
     * with a single process, so rank 0's values are non-negative). */
    int v[2] = {tr_rank % 2 ? -3 * tr_rank : tr_rank, tr_rank % 2 ? -(tr_rank + 1) : tr_rank + 1},
        res[2];
    MPI_Allreduce(v, res, 2, MPI_INT, absmax, W);
    int expect = 0;
    for (int k = 0; k < tr_size; k++) {
        int a = k % 2 ? 3 * k : k;
        expect = a > expect ? a : expect;
    }
    CHECK_INT(res[0], expect);
    CHECK_INT(res[1], tr_size);
    tr_print("user op absmax: %s\n", ints(res, 2));

    MPI_Datatype mat;
    MPI_Type_contiguous(4, MPI_INT, &mat);
    MPI_Type_commit(&mat);
    int m[4], prod[4], ex[4] = {1, 0, 0, 1};
    rank_matrix(tr_rank, m);
    MPI_Allreduce(m, prod, 1, mat, matmul, W);
    for (int k = 0; k < tr_size; k++) {
        int mk[4];
        rank_matrix(k, mk);
        int one = 1;
        matmul_fn(ex, mk, &one, &mat);
        memcpy(ex, mk, sizeof ex);
    }
    for (int i = 0; i < 4; i++)
        CHECK_INT(prod[i], ex[i]);
    tr_print("user op matmul (non-commutative): commutative=%d product=%s\n", commute,
             ints(prod, 4));
    MPI_Type_free(&mat);
    MPI_Op_free(&absmax);
    MPI_Op_free(&matmul);
    CHECK(matmul == MPI_OP_NULL, "op_free nulls the handle");
}

static void test_gather_scatter(void)
{
    int n = tr_size, r = tr_rank;
    int send[2] = {r, r * r}, all[2 * MAXP] = {0};
    MPI_Gather(send, 2, MPI_INT, all, 2, MPI_INT, 0, W);
    if (r == 0) {
        for (int k = 0; k < n; k++)
            CHECK(all[2 * k] == k && all[2 * k + 1] == k * k, "gather %d", k);
        tr_print("gather: %s\n", ints(all, 2 * n));
    }

    /* Gatherv: rank k sends k+1 copies of k, placed with a gap of one. */
    int counts[MAXP] = {0}, displs[MAXP] = {0}, vsend[MAXP] = {0}, vall[MAXP * (MAXP + 2)] = {0};
    int total = 0;
    for (int k = 0; k < n; k++) {
        counts[k] = k + 1;
        displs[k] = total;
        total += k + 2;
    }
    for (int i = 0; i <= r; i++)
        vsend[i] = r;
    for (int i = 0; i < total; i++)
        vall[i] = -1;
    MPI_Gatherv(vsend, r + 1, MPI_INT, vall, counts, displs, MPI_INT, 0, W);
    if (r == 0) {
        for (int k = 0; k < n; k++) {
            for (int i = 0; i < counts[k]; i++)
                CHECK_INT(vall[displs[k] + i], k);
            CHECK_INT(vall[displs[k] + counts[k]], -1);
        }
        tr_print("gatherv: %s\n", ints(vall, total));
    }

    /* Scatter from the last rank, scatterv back out of the gatherv layout. */
    int root = n - 1, src[2 * MAXP], got[2] = {-1, -1};
    for (int i = 0; i < 2 * n; i++)
        src[i] = 100 + i;
    MPI_Scatter(src, 2, MPI_INT, got, 2, MPI_INT, root, W);
    CHECK(got[0] == 100 + 2 * r && got[1] == 101 + 2 * r, "scatter");
    tr_print_ranks("scatter: %s", ints(got, 2));

    int vgot[MAXP] = {0};
    MPI_Scatterv(vall, counts, displs, MPI_INT, vgot, r + 1, MPI_INT, 0, W);
    for (int i = 0; i <= r; i++)
        CHECK_INT(vgot[i], r);
    tr_print_ranks("scatterv: %s", ints(vgot, r + 1));
}

static void test_allgather(void)
{
    int n = tr_size, r = tr_rank;
    int all[MAXP] = {0};
    int v = r * 10;
    MPI_Allgather(&v, 1, MPI_INT, all, 1, MPI_INT, W);
    for (int k = 0; k < n; k++)
        CHECK_INT(all[k], k * 10);
    tr_print("allgather: %s\n", ints(all, n));

    int counts[MAXP] = {0}, displs[MAXP] = {0}, send[MAXP] = {0}, vall[MAXP * MAXP] = {0};
    int total = 0;
    for (int k = 0; k < n; k++) {
        counts[k] = n - k;
        displs[k] = total;
        total += counts[k];
    }
    for (int i = 0; i < n - r; i++)
        send[i] = r;
    MPI_Allgatherv(send, n - r, MPI_INT, vall, counts, displs, MPI_INT, W);
    for (int k = 0; k < n; k++)
        for (int i = 0; i < counts[k]; i++)
            CHECK_INT(vall[displs[k] + i], k);
    tr_print("allgatherv: %s\n", ints(vall, total));
}

static void test_alltoall(void)
{
    int n = tr_size, r = tr_rank;
    int send[MAXP] = {0}, recv[MAXP] = {0};
    for (int k = 0; k < n; k++)
        send[k] = r * 100 + k;
    MPI_Alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, W);
    for (int k = 0; k < n; k++)
        CHECK_INT(recv[k], k * 100 + r);
    tr_print_ranks("alltoall: %s", ints(recv, n));

    /* Alltoallv: rank r sends k+1 copies of r to rank k. */
    int scounts[MAXP] = {0}, sdispls[MAXP] = {0}, rcounts[MAXP] = {0}, rdispls[MAXP] = {0};
    int vsend[MAXP * MAXP] = {0}, vrecv[MAXP * MAXP] = {0};
    int stotal = 0, rtotal = 0;
    for (int k = 0; k < n; k++) {
        scounts[k] = k + 1;
        sdispls[k] = stotal;
        stotal += scounts[k];
        rcounts[k] = r + 1;
        rdispls[k] = rtotal;
        rtotal += rcounts[k];
    }
    for (int i = 0; i < stotal; i++)
        vsend[i] = r;
    MPI_Alltoallv(vsend, scounts, sdispls, MPI_INT, vrecv, rcounts, rdispls, MPI_INT, W);
    for (int k = 0; k < n; k++)
        for (int i = 0; i < rcounts[k]; i++)
            CHECK_INT(vrecv[rdispls[k] + i], k);
    tr_print_ranks("alltoallv: %s", ints(vrecv, rtotal));

    /* Alltoallw: to even ranks send an int, to odd ranks a double; byte
     * displacements. */
    int wcounts[MAXP] = {0}, wdispls[MAXP] = {0};
    MPI_Datatype stypes[MAXP], rtypes[MAXP];
    double sbuf[MAXP] = {0}, rbuf[MAXP] = {0};
    union {
        int i;
        double d;
    } *su = (void *)sbuf, *ru = (void *)rbuf;
    for (int k = 0; k < n; k++) {
        wcounts[k] = 1;
        wdispls[k] = (int)(k * sizeof(double));
        stypes[k] = k % 2 ? MPI_DOUBLE : MPI_INT;
        rtypes[k] = r % 2 ? MPI_DOUBLE : MPI_INT;
        if (k % 2)
            su[k].d = r + 0.25;
        else
            su[k].i = r * 2;
        rbuf[k] = 0.0;
    }
    MPI_Alltoallw(sbuf, wcounts, wdispls, stypes, rbuf, wcounts, wdispls, rtypes, W);
    char line[TR_LINE_MAX] = "";
    size_t len = 0;
    for (int k = 0; k < n; k++) {
        if (r % 2) {
            CHECK(ru[k].d == k + 0.25, "alltoallw double from %d", k);
            len += (size_t)snprintf(line + len, sizeof line - len, " %.2f", ru[k].d);
        } else {
            CHECK_INT(ru[k].i, 2 * k);
            len += (size_t)snprintf(line + len, sizeof line - len, " %d", ru[k].i);
        }
    }
    tr_print_ranks("alltoallw:%s", line);
}

static void test_reduce_scatter(void)
{
    int n = tr_size, r = tr_rank;
    int counts[MAXP] = {0}, send[MAXP * MAXP] = {0}, recv[MAXP] = {0};
    int total = 0;
    for (int k = 0; k < n; k++) {
        counts[k] = k + 1;
        total += counts[k];
    }
    for (int i = 0; i < total; i++)
        send[i] = i + r;
    MPI_Reduce_scatter(send, recv, counts, MPI_INT, MPI_SUM, W);
    int first = tri(r + 1);
    for (int i = 0; i <= r; i++)
        CHECK_INT(recv[i], n * (first + i) + tri(n));
    tr_print_ranks("reduce_scatter: %s", ints(recv, r + 1));

    int bsend[2 * MAXP] = {0}, brecv[2] = {0};
    for (int i = 0; i < 2 * n; i++)
        bsend[i] = i * (r + 1);
    MPI_Reduce_scatter_block(bsend, brecv, 2, MPI_INT, MPI_SUM, W);
    for (int i = 0; i < 2; i++)
        CHECK_INT(brecv[i], (2 * r + i) * tri(n + 1));
    tr_print_ranks("reduce_scatter_block: %s", ints(brecv, 2));
}

static void test_scan(void)
{
    int v = tr_rank + 1, s = -1, e = -1;
    MPI_Scan(&v, &s, 1, MPI_INT, MPI_SUM, W);
    MPI_Exscan(&v, &e, 1, MPI_INT, MPI_SUM, W);
    CHECK_INT(s, tri(tr_rank + 2));
    if (tr_rank > 0) /* the result on rank 0 is undefined */
        CHECK_INT(e, tri(tr_rank + 1));
    else
        e = 0;
    tr_print_ranks("scan=%d exscan=%d", s, e);
}

static void test_nonblocking(void)
{
    int n = tr_size, r = tr_rank;
    MPI_Request reqs[4];
    MPI_Status sts[4];
    int b = r == 0 ? 99 : 0, sum = -1, v = r + 1;
    int send[MAXP] = {0}, recv[MAXP] = {0};
    for (int k = 0; k < n; k++)
        send[k] = r * 10 + k;
    MPI_Ibarrier(W, &reqs[0]);
    MPI_Ibcast(&b, 1, MPI_INT, 0, W, &reqs[1]);
    MPI_Iallreduce(&v, &sum, 1, MPI_INT, MPI_SUM, W, &reqs[2]);
    MPI_Ialltoall(send, 1, MPI_INT, recv, 1, MPI_INT, W, &reqs[3]);
    MPI_Waitall(4, reqs, sts);
    CHECK_INT(b, 99);
    CHECK_INT(sum, tri(n + 1));
    for (int k = 0; k < n; k++)
        CHECK_INT(recv[k], k * 10 + r);
    tr_print("nonblocking: ibcast=%d iallreduce=%d\n", b, sum);
    tr_print_ranks("ialltoall: %s", ints(recv, n));

    /* An Ibarrier polled with MPI_Test. */
    int flag = 0;
    MPI_Ibarrier(W, &reqs[0]);
    while (!flag)
        MPI_Test(&reqs[0], &flag, MPI_STATUS_IGNORE);
    tr_print("ibarrier+test: flag=%d\n", flag);
}

static void test_in_place(void)
{
    int n = tr_size, r = tr_rank;
    int v[2] = {r, 1};
    MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_INT, MPI_SUM, W);
    CHECK(v[0] == tri(n) && v[1] == n, "allreduce in place");
    tr_print("in_place allreduce: %s\n", ints(v, 2));

    int x = r + 1;
    if (r == 0)
        MPI_Reduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_PROD, 0, W);
    else
        MPI_Reduce(&x, NULL, 1, MPI_INT, MPI_PROD, 0, W);
    int fact = 1;
    for (int k = 1; k <= n; k++)
        fact *= k;
    if (r == 0)
        CHECK_INT(x, fact);
    tr_print("in_place reduce: %d\n", x);

    int all[MAXP] = {0};
    all[r] = r * 3;
    if (r == 0)
        MPI_Gather(MPI_IN_PLACE, 1, MPI_INT, all, 1, MPI_INT, 0, W);
    else
        MPI_Gather(&all[r], 1, MPI_INT, NULL, 1, MPI_INT, 0, W);
    if (r == 0)
        for (int k = 0; k < n; k++)
            CHECK_INT(all[k], 3 * k);
    tr_print("in_place gather: %s\n", ints(all, n));

    /* Scatter in place at the root: the root keeps its own block. */
    int src[MAXP] = {0}, mine = -1;
    for (int k = 0; k < n; k++)
        src[k] = 50 + k;
    if (r == 0)
        MPI_Scatter(src, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, 0, W);
    else
        MPI_Scatter(NULL, 1, MPI_INT, &mine, 1, MPI_INT, 0, W);
    if (r == 0)
        mine = src[0];
    CHECK_INT(mine, 50 + r);
    tr_print_ranks("in_place scatter: %d", mine);

    int ag[MAXP] = {0};
    ag[r] = r + 7;
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ag, 1, MPI_INT, W);
    for (int k = 0; k < n; k++)
        CHECK_INT(ag[k], k + 7);
    tr_print("in_place allgather: %s\n", ints(ag, n));

    int a2a[MAXP];
    for (int k = 0; k < n; k++)
        a2a[k] = r * 10 + k;
    MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, a2a, 1, MPI_INT, W);
    for (int k = 0; k < n; k++)
        CHECK_INT(a2a[k], k * 10 + r);
    tr_print_ranks("in_place alltoall: %s", ints(a2a, n));

    int sc = r + 1;
    MPI_Scan(MPI_IN_PLACE, &sc, 1, MPI_INT, MPI_MAX, W);
    CHECK_INT(sc, r + 1);

    int rsb[MAXP] = {0};
    for (int k = 0; k < n; k++)
        rsb[k] = k + r;
    MPI_Reduce_scatter_block(MPI_IN_PLACE, rsb, 1, MPI_INT, MPI_SUM, W);
    CHECK_INT(rsb[0], n * r + tri(n));
    tr_print_ranks("in_place scan=%d reduce_scatter_block=%d", sc, rsb[0]);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    tr_begin("collectives", 1, MAXP);
    test_bcast_barrier();
    test_reduce();
    test_allreduce_ops();
    test_maxloc();
    test_user_ops();
    test_gather_scatter();
    test_allgather();
    test_alltoall();
    test_reduce_scatter();
    test_scan();
    test_nonblocking();
    test_in_place();
    return tr_finish();
}
