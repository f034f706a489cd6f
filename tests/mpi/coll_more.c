/* The node's all-to-alls, reduce-scatters and scans against an independent
 * computation (docs/coll.md).
 *
 * MPI_Alltoall (blocks of 0, 1, 3, 5, 1000 and 70000 ints, 300000 unless
 * `quick`; MPI_IN_PLACE; a vector type at the sender, another at the
 * receiver), MPI_Alltoallv (counts that vary with the pair, zeros among
 * them, displacements in reverse order; MPI_IN_PLACE with symmetric
 * counts), MPI_Alltoallw (a type per pair, contiguous or a vector, byte
 * displacements; MPI_BOTTOM with absolute addresses in the types),
 * MPI_Reduce_scatter_block and MPI_Reduce_scatter (counts with zeros; ints
 * exact, doubles whose sum depends on the order; MPI_IN_PLACE), MPI_Scan
 * and MPI_Exscan (the same, and MPI_MAXLOC on pairs), the large-count forms
 * where the MPI has them; a user operation (the MPI's) and a null one (an
 * error the MPI reports). On the world, the world reversed, halves, pairs
 * and MPI_COMM_SELF.
 *
 * Doubles: the fold in rank order, x0 + x1 + ..., computed here; under
 * `served` the result must be its bits on every rank (docs/coll.md's
 * promise), elsewhere (the MPI's own order) within 1e-12 of it.
 *
 * Arguments as coll_ops': `served` (wisp ran the collectives), `passed`
 * (the MPI ran them all), `some` (wisp ran some), `quick` (no 1 MiB sizes). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "mpi/coll_check.h"

static void wrong(MPI_Comm comm, const char *what, long a, long b, long at)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    COLL_WRONG("rank %d (comm rank %d): %s (%ld, %ld): element %ld wrong\n", me, rank, what, a, b,
               at);
}

/* Element j of the block that rank s sends to rank d. */
static int val(int s, int d, long j)
{
    return (int)(s * 1000003L + d * 1009L + j * 7 + 1);
}

/* ---- MPI_Alltoall ----------------------------------------------------------- */

static void alltoall(MPI_Comm comm, int count)
{
    int rank, n;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    size_t total = (size_t)count * (size_t)n;
    int *in = malloc((2 * total + 1) * sizeof(int)), *out = malloc((2 * total + 1) * sizeof(int));
    for (int place = 0; place < 2; place++) {
        for (int d = 0; d < n; d++)
            for (long j = 0; j < count; j++)
                (place ? out : in)[(size_t)d * (size_t)count + (size_t)j] = val(rank, d, j);
        if (!place)
            memset(out, 0x5a, (total + 1) * sizeof(int));
        out[total] = -5;
        CHECK(MPI_Alltoall(place ? MPI_IN_PLACE : in, count, MPI_INT, out, count, MPI_INT, comm) ==
              MPI_SUCCESS);
        for (int s = 0; s < n; s++)
            for (long j = 0; j < count; j++)
                if (out[(size_t)s * (size_t)count + (size_t)j] != val(s, rank, j)) {
                    wrong(comm, place ? "MPI_Alltoall in place" : "MPI_Alltoall", count, s, j);
                    s = n;
                    break;
                }
        CHECK(out[total] == -5);
    }
    /* A vector at the sender (every other int), another at the receiver. */
    MPI_Datatype vec, rvec;
    MPI_Type_vector(count, 1, 2, MPI_INT, &vec);
    MPI_Type_create_resized(vec, 0, (MPI_Aint)(2 * (size_t)count * sizeof(int)), &rvec);
    MPI_Type_commit(&rvec);
    MPI_Type_free(&vec);
    for (size_t i = 0; i < 2 * total; i++)
        in[i] = i % 2 ? -1
                      : val(rank, (int)(i / 2 / (size_t)(count ? count : 1)),
                            (long)(i / 2) % (count ? count : 1));
    memset(out, 0, (2 * total + 1) * sizeof(int));
    CHECK(MPI_Alltoall(in, 1, rvec, out, count, MPI_INT, comm) == MPI_SUCCESS);
    for (int s = 0; s < n; s++)
        for (long j = 0; j < count; j++)
            if (out[(size_t)s * (size_t)count + (size_t)j] != val(s, rank, j)) {
                wrong(comm, "MPI_Alltoall vector at the sender", count, s, j);
                s = n;
                break;
            }
    for (size_t i = 0; i < total; i++)
        in[i] = val(rank, (int)(i / (size_t)(count ? count : 1)), (long)i % (count ? count : 1));
    memset(out, 0, (2 * total + 1) * sizeof(int));
    CHECK(MPI_Alltoall(in, count, MPI_INT, out, 1, rvec, comm) == MPI_SUCCESS);
    for (int s = 0; s < n; s++)
        for (long j = 0; j < count; j++)
            if (out[2 * ((size_t)s * (size_t)count + (size_t)j)] != val(s, rank, j) ||
                out[2 * ((size_t)s * (size_t)count + (size_t)j) + 1] != 0) {
                wrong(comm, "MPI_Alltoall vector at the receiver", count, s, j);
                s = n;
                break;
            }
    MPI_Type_free(&rvec);
    free(in);
    free(out);
}

/* ---- MPI_Alltoallv, MPI_Alltoallw -------------------------------------------- */

/* Ints from s to d: zeros among them; symmetric ones for MPI_IN_PLACE. */
static int vcount(int s, int d, int k, bool sym)
{
    return sym ? ((s + d) % 3) * k : ((s + 2 * d) % 4) * k + (s == d);
}

static void alltoallv(MPI_Comm comm, int k, bool sym)
{
    int rank, n;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    int *sc = malloc(sizeof(int) * 4 * (size_t)n), *sd = sc + n, *rc = sd + n, *rd = rc + n;
    size_t st = 0, rt = 0;
    /* Displacements in reverse order of the ranks, with a gap of 3. */
    for (int d = n - 1; d >= 0; d--) {
        sc[d] = vcount(rank, d, k, sym);
        sd[d] = (int)st;
        st += (size_t)sc[d] + 3;
        rc[d] = vcount(d, rank, k, sym);
        rd[d] = (int)rt;
        rt += (size_t)rc[d] + 3;
    }
    int *in = malloc((st + 1) * sizeof(int)), *out = malloc((rt + 1) * sizeof(int));
    for (int place = 0; place < (sym ? 2 : 1); place++) {
        memset(out, 0x5a, (rt + 1) * sizeof(int));
        for (int d = 0; d < n; d++)
            for (int j = 0; j < sc[d]; j++)
                (place ? out + rd[d] : in + sd[d])[j] = val(rank, d, j);
        CHECK(MPI_Alltoallv(place ? MPI_IN_PLACE : in, sc, sd, MPI_INT, out, rc, rd, MPI_INT,
                            comm) == MPI_SUCCESS);
        for (int s = 0; s < n; s++) {
            for (int j = 0; j < rc[s]; j++)
                if (out[rd[s] + j] != val(s, rank, j)) {
                    wrong(comm, place ? "MPI_Alltoallv in place" : "MPI_Alltoallv", k, s, j);
                    break;
                }
            CHECK(out[rd[s] + rc[s]] == 0x5a5a5a5a); /* the gap untouched */
        }
    }
#if MPI_VERSION >= 4
    /* The large-count form. */
    MPI_Count *lsc = malloc(sizeof(MPI_Count) * 2 * (size_t)n), *lrc = lsc + n;
    MPI_Aint *lsd = malloc(sizeof(MPI_Aint) * 2 * (size_t)n), *lrd = lsd + n;
    for (int d = 0; d < n; d++) {
        lsc[d] = sc[d];
        lsd[d] = sd[d];
        lrc[d] = rc[d];
        lrd[d] = rd[d];
    }
    memset(out, 0x5a, (rt + 1) * sizeof(int));
    CHECK(MPI_Alltoallv_c(in, lsc, lsd, MPI_INT, out, lrc, lrd, MPI_INT, comm) == MPI_SUCCESS);
    for (int s = 0; s < n; s++)
        for (int j = 0; j < rc[s]; j++)
            if (out[rd[s] + j] != val(s, rank, j)) {
                wrong(comm, "MPI_Alltoallv_c", k, s, j);
                break;
            }
    free(lsc);
    free(lsd);
#endif
    free(in);
    free(out);
    free(sc);
}

/* A type per pair: to odd ranks every other int (a vector), from even
 * ranks pairs of ints (contiguous); byte displacements; then MPI_BOTTOM,
 * every block's address in its type. */
static void alltoallw(MPI_Comm comm, int k, bool bottom)
{
    int rank, n;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    int *sc = malloc(sizeof(int) * 4 * (size_t)n), *sd = sc + n, *rc = sd + n, *rd = rc + n;
    MPI_Datatype *stypes = malloc(sizeof(MPI_Datatype) * 2 * (size_t)n), *rtypes = stypes + n;
    MPI_Datatype vec, two;
    MPI_Type_vector(k, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    MPI_Type_contiguous(2, MPI_INT, &two);
    MPI_Type_commit(&two);
    size_t slot = 2 * (size_t)k + 1; /* ints per block, either way */
    int *in = malloc(slot * (size_t)n * sizeof(int)), *out = malloc(slot * (size_t)n * sizeof(int));
    for (int i = 0; i < n; i++) {
        int cnt = vcount(rank, i, 1, false) ? k : 0; /* some pairs send nothing */
        bool odd = i % 2;
        sc[i] = odd ? (cnt ? 1 : 0) : cnt;
        stypes[i] = odd ? vec : MPI_INT;
        int from = vcount(i, rank, 1, false) ? k : 0;
        bool even = i % 2 == 0;
        rc[i] = even ? from / 2 : from;
        rtypes[i] = even ? two : MPI_INT;
        if (even && from % 2) { /* an odd count in pairs: ints instead */
            rc[i] = from;
            rtypes[i] = MPI_INT;
        }
        sd[i] = (int)(((size_t)(n - 1 - i) * slot) * sizeof(int));
        rd[i] = (int)(((size_t)i * slot) * sizeof(int));
        int *blk = in + (size_t)(n - 1 - i) * slot;
        for (size_t j = 0; j < slot; j++)
            blk[j] = odd ? (j % 2 ? -1 : val(rank, i, (long)j / 2)) : val(rank, i, (long)j);
    }
    MPI_Datatype *sb = NULL;
    if (bottom) { /* MPI_BOTTOM: each block's absolute address in a type of its own */
        sb = malloc(sizeof(MPI_Datatype) * 2 * (size_t)n);
        for (int i = 0; i < n; i++) {
            MPI_Aint at;
            MPI_Get_address((char *)in + sd[i], &at);
            MPI_Type_create_hindexed(1, (int[]){sc[i]}, &at, stypes[i], &sb[i]);
            MPI_Type_commit(&sb[i]);
            MPI_Get_address((char *)out + rd[i], &at);
            MPI_Type_create_hindexed(1, (int[]){rc[i]}, &at, rtypes[i], &sb[n + i]);
            MPI_Type_commit(&sb[n + i]);
        }
    }
    memset(out, 0x5a, slot * (size_t)n * sizeof(int));
    if (bottom) {
        int *ones = malloc(sizeof(int) * 2 * (size_t)n), *zeros = ones + n;
        for (int i = 0; i < n; i++) {
            ones[i] = 1;
            zeros[i] = 0;
        }
        CHECK(MPI_Alltoallw(MPI_BOTTOM, ones, zeros, sb, MPI_BOTTOM, ones, zeros, sb + n, comm) ==
              MPI_SUCCESS);
        free(ones);
    } else {
        CHECK(MPI_Alltoallw(in, sc, sd, stypes, out, rc, rd, rtypes, comm) == MPI_SUCCESS);
    }
    for (int s = 0; s < n; s++) {
        int from = vcount(s, rank, 1, false) ? k : 0;
        const int *blk = out + (size_t)s * slot;
        for (int j = 0; j < from; j++)
            if (blk[j] != val(s, rank, j)) {
                wrong(comm, bottom ? "MPI_Alltoallw MPI_BOTTOM" : "MPI_Alltoallw", k, s, j);
                break;
            }
        CHECK(blk[from] == 0x5a5a5a5a);
    }
    if (sb) {
        for (int i = 0; i < 2 * n; i++)
            MPI_Type_free(&sb[i]);
        free(sb);
    }
    MPI_Type_free(&vec);
    MPI_Type_free(&two);
    free(in);
    free(out);
    free(stypes);
    free(sc);
}

/* ---- reductions ------------------------------------------------------------ */

/* Rank r's element i: its sum depends on the order. */
static double dval(int r, size_t i)
{
    return 1.0 / (double)(i + 3) + (double)r * 1e-3 / (double)(i + 7) + r * 1e8;
}
static double dfold(int first, int last, size_t i)
{
    double acc = dval(first, i);
    for (int r = first + 1; r <= last; r++)
        acc += dval(r, i);
    return acc;
}
static bool dsame(double got, double want)
{
    if (served)
        return !memcmp(&got, &want, sizeof got);
    return fabs(got - want) <= 1e-12 * fabs(want);
}
static long ival(int r, size_t i)
{
    return (long)((i * 7 + (size_t)r * 13 + i / 5) % 11) - 3;
}

/* `counts` NULL: MPI_Reduce_scatter_block of `k` a member. */
static void reduce_scatter(MPI_Comm comm, int k, bool block)
{
    int rank, n;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    int *counts = malloc(sizeof(int) * (size_t)n);
    size_t total = 0, lo = 0;
    for (int r = 0; r < n; r++) {
        counts[r] = block ? k : (r % 3 == 1 ? 0 : k + r);
        if (r == rank)
            lo = total;
        total += (size_t)counts[r];
    }
    int mine = counts[rank];
    double *in = malloc((total + 1) * sizeof(double)), *out = malloc((total + 1) * sizeof(double));
    for (int place = 0; place < 2; place++) {
        for (size_t i = 0; i < total; i++)
            (place ? out : in)[i] = dval(rank, i);
        if (!place)
            for (size_t i = 0; i <= total; i++)
                out[i] = -1;
        out[place ? total : (size_t)mine] = -1;
        const void *send = place ? MPI_IN_PLACE : in;
        CHECK((block ? MPI_Reduce_scatter_block(send, out, k, MPI_DOUBLE, MPI_SUM, comm)
                     : MPI_Reduce_scatter(send, out, counts, MPI_DOUBLE, MPI_SUM, comm)) ==
              MPI_SUCCESS);
        for (int j = 0; j < mine; j++)
            if (!dsame(out[j], dfold(0, n - 1, lo + (size_t)j))) {
                wrong(comm, block ? "MPI_Reduce_scatter_block" : "MPI_Reduce_scatter", k, place, j);
                break;
            }
        CHECK(out[place ? total : (size_t)mine] == -1);
    }
    /* Ints, MPI_MAX, exact. */
    long *li = malloc((total + 1) * sizeof(long)), *lo_ = malloc((total + 1) * sizeof(long));
    for (size_t i = 0; i < total; i++)
        li[i] = ival(rank, i);
    CHECK((block ? MPI_Reduce_scatter_block(li, lo_, k, MPI_LONG, MPI_MAX, comm)
                 : MPI_Reduce_scatter(li, lo_, counts, MPI_LONG, MPI_MAX, comm)) == MPI_SUCCESS);
    for (int j = 0; j < mine; j++) {
        long want = ival(0, lo + (size_t)j);
        for (int r = 1; r < n; r++)
            want = ival(r, lo + (size_t)j) > want ? ival(r, lo + (size_t)j) : want;
        if (lo_[j] != want) {
            wrong(comm, "MPI_Reduce_scatter MAX", k, block, j);
            break;
        }
    }
#if MPI_VERSION >= 4
    MPI_Count *lc = malloc(sizeof(MPI_Count) * (size_t)n);
    for (int r = 0; r < n; r++)
        lc[r] = counts[r];
    CHECK((block ? MPI_Reduce_scatter_block_c(li, lo_, k, MPI_LONG, MPI_SUM, comm)
                 : MPI_Reduce_scatter_c(li, lo_, lc, MPI_LONG, MPI_SUM, comm)) == MPI_SUCCESS);
    for (int j = 0; j < mine; j++) {
        long want = 0;
        for (int r = 0; r < n; r++)
            want += ival(r, lo + (size_t)j);
        if (lo_[j] != want) {
            wrong(comm, "MPI_Reduce_scatter_c SUM", k, block, j);
            break;
        }
    }
    free(lc);
#endif
    free(li);
    free(lo_);
    free(in);
    free(out);
    free(counts);
}

struct di {
    double v;
    int i;
};

static void scans(MPI_Comm comm, int count, bool exclusive)
{
    int rank, n;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    int last = exclusive ? rank - 1 : rank;
    const char *what = exclusive ? "MPI_Exscan" : "MPI_Scan";
    size_t c = (size_t)count;
    double *in = malloc((c + 1) * sizeof(double)), *out = malloc((c + 1) * sizeof(double));
    for (int place = 0; place < 2; place++) {
        for (size_t i = 0; i < c; i++)
            (place ? out : in)[i] = dval(rank, i);
        if (!place)
            for (size_t i = 0; i < c; i++)
                out[i] = -1;
        out[c] = -1;
        const void *send = place ? MPI_IN_PLACE : in;
        CHECK((exclusive ? MPI_Exscan(send, out, count, MPI_DOUBLE, MPI_SUM, comm)
                         : MPI_Scan(send, out, count, MPI_DOUBLE, MPI_SUM, comm)) == MPI_SUCCESS);
        for (size_t i = 0; i < c && last >= 0; i++)
            if (!dsame(out[i], dfold(0, last, i))) {
                wrong(comm, what, count, place, (long)i);
                break;
            }
        CHECK(out[c] == -1);
    }
    /* Ints (MPI_PROD of small values, exact) and pairs (MPI_MAXLOC). */
    long *li = malloc((c + 1) * sizeof(long)), *lo = malloc((c + 1) * sizeof(long));
    for (size_t i = 0; i < c; i++)
        li[i] = ival(rank, i) % 3 + 2;
    CHECK((exclusive ? MPI_Exscan(li, lo, count, MPI_LONG, MPI_PROD, comm)
                     : MPI_Scan(li, lo, count, MPI_LONG, MPI_PROD, comm)) == MPI_SUCCESS);
    for (size_t i = 0; i < c && last >= 0; i++) {
        long want = 1;
        for (int r = 0; r <= last; r++)
            want *= ival(r, i) % 3 + 2;
        if (lo[i] != want) {
            wrong(comm, what, count, 2, (long)i);
            break;
        }
    }
    struct di *pi = malloc((c + 1) * sizeof *pi), *po = malloc((c + 1) * sizeof *po);
    for (size_t i = 0; i < c; i++)
        pi[i] = (struct di){(double)ival(rank, i), (rank * 5 + (int)i) % 3};
    CHECK((exclusive ? MPI_Exscan(pi, po, count, MPI_DOUBLE_INT, MPI_MAXLOC, comm)
                     : MPI_Scan(pi, po, count, MPI_DOUBLE_INT, MPI_MAXLOC, comm)) == MPI_SUCCESS);
    for (size_t i = 0; i < c && last >= 0; i++) {
        struct di want = {(double)ival(0, i), (int)i % 3};
        for (int r = 1; r <= last; r++) {
            struct di x = {(double)ival(r, i), (r * 5 + (int)i) % 3};
            if (x.v > want.v || (x.v == want.v && x.i < want.i))
                want = x;
        }
        if (po[i].v != want.v || po[i].i != want.i) {
            wrong(comm, what, count, 3, (long)i);
            break;
        }
    }
#if MPI_VERSION >= 4
    CHECK((exclusive ? MPI_Exscan_c(li, lo, count, MPI_LONG, MPI_SUM, comm)
                     : MPI_Scan_c(li, lo, count, MPI_LONG, MPI_SUM, comm)) == MPI_SUCCESS);
    for (size_t i = 0; i < c && last >= 0; i++) {
        long want = 0;
        for (int r = 0; r <= last; r++)
            want += ival(r, i) % 3 + 2;
        if (lo[i] != want) {
            wrong(comm, what, count, 4, (long)i);
            break;
        }
    }
#endif
    free(pi);
    free(po);
    free(li);
    free(lo);
    free(in);
    free(out);
}

/* ---- what the MPI serves, and its errors -------------------------------------- */

static void user_sum(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

static void the_mpis(MPI_Comm comm)
{
    int rank, n;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    MPI_Op op;
    MPI_Op_create(user_sum, 1, &op);
    int in[8], out[8];
    for (int i = 0; i < 8; i++)
        in[i] = rank + i;
    CHECK(MPI_Scan(in, out, 8, MPI_INT, op, comm) == MPI_SUCCESS);
    for (int i = 0; i < 8; i++)
        CHECK(out[i] == rank * (rank + 1) / 2 + (rank + 1) * i);
    CHECK(MPI_Reduce_scatter_block(in, out, 1, MPI_INT, op, comm) == MPI_SUCCESS);
    CHECK(out[0] == n * (n - 1) / 2 + n * rank || n > 8);
    MPI_Op_free(&op);
    /* A null operation and a null type: errors the MPI reports. */
    MPI_Comm dup;
    MPI_Comm_dup(comm, &dup);
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    for (int k = 0; k < 3; k++) /* past WISP_COLL_AFTER: the area is set up */
        MPI_Barrier(dup);
    CHECK(MPI_Scan(in, out, 1, MPI_INT, MPI_OP_NULL, dup) != MPI_SUCCESS);
    CHECK(MPI_Reduce_scatter_block(in, out, 1, MPI_INT, MPI_OP_NULL, dup) != MPI_SUCCESS);
    CHECK(MPI_Alltoall(in, 1, MPI_DATATYPE_NULL, out, 1, MPI_DATATYPE_NULL, dup) != MPI_SUCCESS);
    MPI_Comm_free(&dup);
}

/* Every check on `comm` (any of coll_each_comm's). */
static void all_of(MPI_Comm comm, enum coll_comm which)
{
    (void)which;
    int sizes[] = {0, 1, 3, 5, 1000, 70000, 300000};
    int nsizes = quick ? 6 : 7;
    for (int s = 0; s < nsizes; s++) {
        alltoall(comm, sizes[s]);
        alltoallv(comm, sizes[s] / 2 + (sizes[s] % 2), false);
        alltoallv(comm, sizes[s] / 3, true);
        if (sizes[s] <= 70000) {
            alltoallw(comm, sizes[s], false);
            alltoallw(comm, sizes[s], true);
        }
        reduce_scatter(comm, sizes[s] / 4 + 1, true);
        reduce_scatter(comm, sizes[s] / 4, false);
        scans(comm, sizes[s] + (sizes[s] > 1000), false);
        scans(comm, sizes[s] + (sizes[s] > 1000), true);
    }
    reduce_scatter(comm, 0, true);
    the_mpis(comm);
}

int main(int argc, char **argv)
{
    coll_start("coll_more", &argc, &argv);
    coll_each_comm(all_of, COLL_HALF);
    /* Under WISP_COLL=auto, which leaves the v and w forms (and Open MPI's
     * small all-to-alls) to the MPI, some. */
    const char *mode = getenv("WISP_COLL");
    return coll_finish("coll_more", !mode || !strcmp(mode, "auto") ? 0 : 200, 0);
}
