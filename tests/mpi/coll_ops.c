/* The node's collectives against an independent computation (docs/coll.md).
 *
 * MPI_Barrier (no process leaves before the last one entered, by the
 * machine's monotonic clock), MPI_Bcast (every root; sizes 0, 1, 7, 48, 49,
 * 64 KiB, 1 MiB + 13; a type that is not contiguous at the root, another at
 * the others), MPI_Reduce (every root, MPI_IN_PLACE at the root) and
 * MPI_Allreduce (MPI_IN_PLACE or not) of every predefined operation on every
 * predefined type it is defined for, at 0, 1, 7 and 64 KiB elements (1 MiB +
 * odd for a few), checked element by element against the fold the test
 * computes itself from the values every rank can compute. The values are
 * small integers, so sums and products are exact in any order.
 *
 * On MPI_COMM_WORLD, on a communicator with the ranks reversed, on halves
 * of the world (even and odd ranks), on pairs of consecutive ranks, on
 * MPI_COMM_SELF, and on a derived type and a user operation
 * (both the MPI's).
 *
 * Arguments: `served` checks that wisp ran the collectives (wisp_coll_counter)
 * and that an allreduce of doubles whose sum depends on the order gives every
 * rank the bits of the fold in rank order (docs/coll.md: the same bits on
 * every rank and in every run); `passed` checks that wisp ran none of them
 * (the MPI's: WISP_COLL=off, WISP_SHM=off, virtual nodes of one process),
 * and takes MPI_IN_PLACE at root 0 alone (where MPICH 4.0.2 crashes);
 * `some` that wisp ran some; `across` that wisp ran the collectives of
 * communicators that span virtual nodes too (in stages: src/coll/hier.h),
 * and that an allreduce gives every rank the same bits, call after call
 * (the fold's order is then the stages', not the ranks');
 * `quick` leaves out the 1 MiB sizes. */
#include <complex.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "mpi/coll_check.h"

/* ---- types and operations ------------------------------------------------ */

enum cls { INT, FLT, CPLX, BOOL, BYTE, PAIR };
struct type {
    const char *name;
    MPI_Datatype t;
    enum cls cls;
    size_t size;
    bool is_signed;
};
struct op {
    const char *name;
    MPI_Op op;
};

struct pf {
    float v;
    int i;
};
struct pd {
    double v;
    int i;
};
struct pl {
    long v;
    int i;
};
struct pi {
    int v;
    int i;
};
struct ps {
    short v;
    int i;
};
struct pld {
    long double v;
    int i;
};

static struct type types[64];
static int ntypes;
static struct op ops[12];

static void add(const char *name, MPI_Datatype t, enum cls cls, size_t size, bool is_signed)
{
    types[ntypes++] = (struct type){name, t, cls, size, is_signed};
}

static void tables(void)
{
    add("signed char", MPI_SIGNED_CHAR, INT, 1, true);
    add("unsigned char", MPI_UNSIGNED_CHAR, INT, 1, false);
    add("short", MPI_SHORT, INT, sizeof(short), true);
    add("unsigned short", MPI_UNSIGNED_SHORT, INT, sizeof(short), false);
    add("int", MPI_INT, INT, sizeof(int), true);
    add("unsigned", MPI_UNSIGNED, INT, sizeof(int), false);
    add("long", MPI_LONG, INT, sizeof(long), true);
    add("unsigned long", MPI_UNSIGNED_LONG, INT, sizeof(long), false);
    add("long long", MPI_LONG_LONG, INT, sizeof(long long), true);
    add("unsigned long long", MPI_UNSIGNED_LONG_LONG, INT, sizeof(long long), false);
    add("int8_t", MPI_INT8_T, INT, 1, true);
    add("uint8_t", MPI_UINT8_T, INT, 1, false);
    add("int16_t", MPI_INT16_T, INT, 2, true);
    add("uint16_t", MPI_UINT16_T, INT, 2, false);
    add("int32_t", MPI_INT32_T, INT, 4, true);
    add("uint32_t", MPI_UINT32_T, INT, 4, false);
    add("int64_t", MPI_INT64_T, INT, 8, true);
    add("uint64_t", MPI_UINT64_T, INT, 8, false);
    add("MPI_Aint", MPI_AINT, INT, sizeof(MPI_Aint), true);
    /* Open MPI 4.1.4's own MPI_MAX and MPI_MIN of MPI_OFFSET get negative
     * values wrong: none here (the test passes natively). */
    add("MPI_Offset", MPI_OFFSET, INT, sizeof(MPI_Offset), false);
    add("MPI_Count", MPI_COUNT, INT, sizeof(MPI_Count), true);
    add("float", MPI_FLOAT, FLT, sizeof(float), true);
    add("double", MPI_DOUBLE, FLT, sizeof(double), true);
    add("long double", MPI_LONG_DOUBLE, FLT, sizeof(long double), true);
    add("float complex", MPI_C_FLOAT_COMPLEX, CPLX, sizeof(float _Complex), true);
    add("double complex", MPI_C_DOUBLE_COMPLEX, CPLX, sizeof(double _Complex), true);
    add("bool", MPI_C_BOOL, BOOL, sizeof(bool), false);
    add("byte", MPI_BYTE, BYTE, 1, false);
    add("float_int", MPI_FLOAT_INT, PAIR, sizeof(struct pf), true);
    add("double_int", MPI_DOUBLE_INT, PAIR, sizeof(struct pd), true);
    add("long_int", MPI_LONG_INT, PAIR, sizeof(struct pl), true);
    add("2int", MPI_2INT, PAIR, sizeof(struct pi), true);
    add("short_int", MPI_SHORT_INT, PAIR, sizeof(struct ps), true);
    add("long_double_int", MPI_LONG_DOUBLE_INT, PAIR, sizeof(struct pld), true);
    struct op o[] = {{"SUM", MPI_SUM},   {"PROD", MPI_PROD},     {"MAX", MPI_MAX},
                     {"MIN", MPI_MIN},   {"LAND", MPI_LAND},     {"LOR", MPI_LOR},
                     {"LXOR", MPI_LXOR}, {"BAND", MPI_BAND},     {"BOR", MPI_BOR},
                     {"BXOR", MPI_BXOR}, {"MAXLOC", MPI_MAXLOC}, {"MINLOC", MPI_MINLOC}};
    memcpy(ops, o, sizeof o);
}

static bool defined(const struct type *t, int o)
{
    switch (t->cls) {
    case INT:
        return o <= 9;
    case FLT:
        return o <= 3;
    case CPLX:
        return o <= 1;
    case BOOL:
        return o >= 4 && o <= 6;
    case BYTE:
        return o >= 7 && o <= 9;
    case PAIR:
        return o >= 10;
    }
    return false;
}

/* The value of element i at rank r: small, so that every fold is exact and
 * fits every type (at most 4 ranks: products up to 3^4 = 81). */
static long value(int r, size_t i, int o)
{
    long v = (long)((i * 7 + (size_t)r * 13 + i / 5) % 4);
    if (o == 1) /* PROD: 1..3 */
        return 1 + v % 3;
    if (o == 4 || o == 5 || o == 6 || o == 7 || o == 8 || o == 9) /* logical, bitwise */
        return (long)((i + (size_t)r * 3 + i / 3) % 4 == 0 ? 0 : (i * 5 + (size_t)r) % 7);
    return v - (o == 2 || o == 3 ? 1 : 0); /* MAX, MIN see a negative value too */
}

static long fold_long(long a, long b, int o, bool is_signed)
{
    switch (o) {
    case 0:
        return a + b;
    case 1:
        return a * b;
    case 2:
        return a > b ? a : b;
    case 3:
        return a < b ? a : b;
    case 4:
        return a && b;
    case 5:
        return a || b;
    case 6:
        return !a != !b;
    case 7:
        return a & b;
    case 8:
        return a | b;
    case 9:
        return a ^ b;
    }
    (void)is_signed;
    return 0;
}

/* Pair element `p` of type `t`: value `v`, index `idx`. */
static void put_pair(const struct type *t, char *p, long v, int idx)
{
    if (t->t == MPI_FLOAT_INT)
        *(struct pf *)p = (struct pf){(float)v, idx};
    else if (t->t == MPI_DOUBLE_INT)
        *(struct pd *)p = (struct pd){(double)v, idx};
    else if (t->t == MPI_LONG_INT)
        *(struct pl *)p = (struct pl){v, idx};
    else if (t->t == MPI_2INT)
        *(struct pi *)p = (struct pi){(int)v, idx};
    else if (t->t == MPI_SHORT_INT)
        *(struct ps *)p = (struct ps){(short)v, idx};
    else
        *(struct pld *)p = (struct pld){(long double)v, idx};
}

/* Store v as element i of `buf` of type t (pairs: the value and an index
 * that ties are broken by). */
static void put(const struct type *t, void *buf, size_t i, long v, int r)
{
    char *p = (char *)buf + i * t->size;
    switch (t->cls) {
    case INT:
    case BYTE:
        if (!t->is_signed && v < 0)
            v = 0;
        if (t->size == 1) {
            if (t->is_signed)
                *(signed char *)p = (signed char)v;
            else
                *(unsigned char *)p = (unsigned char)v;
        } else if (t->size == 2) {
            *(short *)p = (short)v;
        } else if (t->size == 4) {
            *(int *)p = (int)v;
        } else {
            *(long long *)p = v;
        }
        break;
    case FLT:
        if (t->t == MPI_FLOAT)
            *(float *)p = (float)v;
        else if (t->t == MPI_DOUBLE)
            *(double *)p = (double)v;
        else
            *(long double *)p = (long double)v;
        break;
    case CPLX:
        if (t->t == MPI_C_FLOAT_COMPLEX)
            *(float _Complex *)p = (float)v + (float)(v % 2) * I;
        else
            *(double _Complex *)p = (double)v + (double)(v % 2) * I;
        break;
    case BOOL:
        *(bool *)p = v != 0;
        break;
    case PAIR: {
        int idx = (r * 5 + (int)i) % 3; /* ties on the value, broken by the index */
        put_pair(t, p, v, idx);
        break;
    }
    }
}

/* The expected element i: the fold of every rank's value, computed here. */
static void expect(const struct type *t, int o, void *out, size_t i, int n)
{
    if (t->cls == PAIR) {
        long best = value(0, i, o);
        int bidx = (0 * 5 + (int)i) % 3;
        for (int r = 1; r < n; r++) {
            long v = value(r, i, o);
            int idx = (r * 5 + (int)i) % 3;
            bool take = o == 10 ? (v > best || (v == best && idx < bidx))
                                : (v < best || (v == best && idx < bidx));
            if (take) {
                best = v;
                bidx = idx;
            }
        }
        /* put() with the index of the winner: fake a rank whose index is it. */
        char *p = (char *)out + i * t->size;
        put_pair(t, p, best, bidx);
        return;
    }
    if (t->cls == CPLX) {
        /* Sums and products of complex numbers, folded here in C. */
        double _Complex acc = 0;
        for (int r = 0; r < n; r++) {
            long v = value(r, i, o);
            double _Complex x = (double)v + (double)(v % 2) * I;
            acc = r == 0 ? x : (o == 0 ? acc + x : acc * x);
        }
        char *p = (char *)out + i * t->size;
        if (t->t == MPI_C_FLOAT_COMPLEX)
            *(float _Complex *)p = (float _Complex)acc;
        else
            *(double _Complex *)p = acc;
        return;
    }
    long acc = value(0, i, o);
    if (!t->is_signed && acc < 0)
        acc = 0;
    if (t->cls == BOOL)
        acc = acc != 0;
    for (int r = 1; r < n; r++) {
        long v = value(r, i, o);
        if (!t->is_signed && v < 0)
            v = 0;
        if (t->cls == BOOL)
            v = v != 0;
        acc = fold_long(acc, v, o, t->is_signed);
    }
    put(t, out, i, acc, 0);
}

/* Do a and b hold the same element i? (Compares values, not the padding
 * of long double and of the pairs.) */
static bool same(const struct type *t, const void *a, const void *b, size_t i)
{
    const char *x = (const char *)a + i * t->size, *y = (const char *)b + i * t->size;
    if (t->t == MPI_LONG_DOUBLE)
        return *(const long double *)x == *(const long double *)y;
    if (t->cls == PAIR) {
        if (t->t == MPI_FLOAT_INT)
            return !memcmp(x, y, 8);
        if (t->t == MPI_DOUBLE_INT)
            return !memcmp(x, y, 12);
        if (t->t == MPI_LONG_INT)
            return !memcmp(x, y, sizeof(long) + 4);
        if (t->t == MPI_2INT)
            return !memcmp(x, y, 8);
        if (t->t == MPI_SHORT_INT)
            return ((const struct ps *)x)->v == ((const struct ps *)y)->v &&
                   ((const struct ps *)x)->i == ((const struct ps *)y)->i;
        return ((const struct pld *)x)->v == ((const struct pld *)y)->v &&
               ((const struct pld *)x)->i == ((const struct pld *)y)->i;
    }
    return !memcmp(x, y, t->size);
}

/* ---- the collectives ------------------------------------------------------ */

static void report(const char *what, const struct type *t, int o, size_t count, int root,
                   bool in_place, size_t at, MPI_Comm comm)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    COLL_WRONG("rank %d (comm rank %d): %s %s %s count %zu root %d%s: element %zu wrong\n", me,
               rank, what, t->name, o >= 0 ? ops[o].name : "", count, root,
               in_place ? " in place" : "", at);
}

static void reductions(MPI_Comm comm, const struct type *t, int o, size_t count, int root_case)
{
    int rank, n;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    size_t bytes = count * t->size + 1;
    if (getenv("COLL_OPS_TRACE"))
        fprintf(stderr, "rank %d: %s %s count %zu\n", me, t->name, ops[o].name, count);
    char *in = malloc(bytes), *out = malloc(bytes), *want = malloc(bytes);
    for (size_t i = 0; i < count; i++) {
        put(t, in, i, value(rank, i, o), rank);
        expect(t, o, want, i, n);
    }
    for (int place = 0; place < 2; place++) {
        /* MPI_Allreduce */
        memset(out, 0x5a, bytes);
        if (place)
            memcpy(out, in, count * t->size);
        CHECK(MPI_Allreduce(place ? MPI_IN_PLACE : in, out, (int)count, t->t, ops[o].op, comm) ==
              MPI_SUCCESS);
        for (size_t i = 0; i < count; i++)
            if (!same(t, out, want, i)) {
                report("MPI_Allreduce", t, o, count, -1, place, i, comm);
                break;
            }
        CHECK((unsigned char)out[count * t->size] == 0x5a); /* nothing past the end */
        /* MPI_Reduce at one root (every root over the calls) */
        int root = (root_case + place) % n;
        /* MPICH 4.0.2's own MPI_Reduce crashes with MPI_IN_PLACE at a root
         * other than 0 above 2 KiB (SIGSEGV in its reduce-scatter-gather):
         * there only where wisp serves the call. */
        if (place && !served)
            root = 0;
        memset(out, 0x5a, bytes);
        if (place && rank == root)
            memcpy(out, in, count * t->size);
        const void *send = place && rank == root ? MPI_IN_PLACE : in;
        CHECK(MPI_Reduce(send, out, (int)count, t->t, ops[o].op, root, comm) == MPI_SUCCESS);
        if (rank == root) {
            for (size_t i = 0; i < count; i++)
                if (!same(t, out, want, i)) {
                    report("MPI_Reduce", t, o, count, root, place, i, comm);
                    break;
                }
            CHECK((unsigned char)out[count * t->size] == 0x5a);
        }
    }
    free(in);
    free(out);
    free(want);
}

static void broadcasts(MPI_Comm comm, size_t bytes, int root)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    unsigned char *buf = malloc(bytes + 1);
    for (size_t i = 0; i < bytes; i++)
        buf[i] = rank == root ? (unsigned char)(i * 31 + (size_t)root + 7) : 0;
    buf[bytes] = 0xa5;
    CHECK(MPI_Bcast(buf, (int)bytes, MPI_BYTE, root, comm) == MPI_SUCCESS);
    for (size_t i = 0; i < bytes; i++)
        if (buf[i] != (unsigned char)(i * 31 + (size_t)root + 7)) {
            struct type b = {"byte", MPI_BYTE, BYTE, 1, false};
            report("MPI_Bcast", &b, -1, bytes, root, false, i, comm);
            break;
        }
    CHECK(buf[bytes] == 0xa5);
    /* Ints: every other one at the root (a vector), all of them elsewhere. */
    size_t ints = bytes / sizeof(int);
    int *spread = malloc((2 * ints + 1) * sizeof(int));
    for (size_t i = 0; i < 2 * ints + 1; i++)
        spread[i] = rank == root ? (int)(i % 2 ? -1 : (int)(i / 2) * 3 + root) : -7;
    if (ints) {
        if (rank == root) {
            MPI_Datatype vec;
            MPI_Type_vector((int)ints, 1, 2, MPI_INT, &vec);
            MPI_Type_commit(&vec);
            CHECK(MPI_Bcast(spread, 1, vec, root, comm) == MPI_SUCCESS);
            MPI_Type_free(&vec);
        } else {
            CHECK(MPI_Bcast(spread, (int)ints, MPI_INT, root, comm) == MPI_SUCCESS);
            for (size_t i = 0; i < ints; i++)
                if (spread[i] != (int)i * 3 + root) {
                    struct type b = {"int (vector at root)", MPI_INT, INT, 4, true};
                    report("MPI_Bcast", &b, -1, ints, root, false, i, comm);
                    break;
                }
            CHECK(spread[ints] == -7);
        }
    }
    free(spread);
    free(buf);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* No process leaves before the last one entered: the late one (a different
 * one each round) sleeps first; everyone's entry and exit times, by the
 * machine's monotonic clock, are compared afterwards. */
static void barriers(MPI_Comm comm, int rounds)
{
    int rank, n;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    double *t = malloc(sizeof(double) * 2 * (size_t)rounds);
    for (int k = 0; k < rounds; k++) {
        if (k % n == rank && k % 4 == 0)
            sleep_ms(2);
        t[2 * k] = now();
        CHECK(MPI_Barrier(comm) == MPI_SUCCESS);
        t[2 * k + 1] = now();
    }
    double *all = malloc(sizeof(double) * 2 * (size_t)rounds * (size_t)n);
    MPI_Allgather(t, 2 * rounds, MPI_DOUBLE, all, 2 * rounds, MPI_DOUBLE, comm);
    for (int k = 0; k < rounds; k++) {
        double last_in = 0, first_out = 1e300;
        for (int r = 0; r < n; r++) {
            double in = all[(size_t)r * 2 * rounds + 2 * k],
                   out = all[(size_t)r * 2 * rounds + 2 * k + 1];
            last_in = in > last_in ? in : last_in;
            first_out = out < first_out ? out : first_out;
        }
        if (first_out < last_in)
            COLL_WRONG("rank %d: barrier %d left at %.9f before the last entry at %.9f\n", me, k,
                       first_out, last_in);
    }
    free(all);
    free(t);
}

/* An allreduce of doubles whose sum depends on the order: every rank has
 * the bits of the fold in rank order. */
static void same_bits(MPI_Comm comm)
{
    int rank, n;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    size_t sizes[] = {1, 5, 6, 1000, 70000, 300001};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t count = sizes[s];
        if (quick && count > 70000)
            continue;
        double *in = malloc(count * sizeof(double)), *out = malloc(count * sizeof(double)),
               *want = malloc(count * sizeof(double));
        for (size_t i = 0; i < count; i++) {
            in[i] = 1.0 / (double)(i + 3) + (double)rank * 1e-3 / (double)(i + 7) + rank * 1e8;
            for (int r = 0; r < n; r++) {
                double x = 1.0 / (double)(i + 3) + (double)r * 1e-3 / (double)(i + 7) + r * 1e8;
                want[i] = r == 0 ? x : want[i] + x;
            }
        }
        MPI_Allreduce(in, out, (int)count, MPI_DOUBLE, MPI_SUM, comm);
        if (across) { /* want: rank 0's bits of an earlier call */
            MPI_Allreduce(in, want, (int)count, MPI_DOUBLE, MPI_SUM, comm);
            MPI_Bcast(want, (int)count, MPI_DOUBLE, 0, comm);
        }
        if (memcmp(out, want, count * sizeof(double)))
            COLL_WRONG("rank %d: allreduce of %zu doubles: not the bits of the %s\n", me, count,
                       across ? "first call on rank 0" : "rank-order fold");
        free(in);
        free(out);
        free(want);
    }
}

/* What the MPI serves: a derived type and a user's operation. */
static void user_sum(void *in, void *inout, int *len, MPI_Datatype *type)
{
    int per = 1; /* ints per element: 1 for MPI_INT, 2 for the pair type */
    if (*type != MPI_INT)
        per = 2;
    for (int i = 0; i < *len * per; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

static void the_mpis(MPI_Comm comm)
{
    int rank, n;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    MPI_Op op;
    MPI_Op_create(user_sum, 1, &op);
    int in[5], out[5];
    for (int i = 0; i < 5; i++)
        in[i] = rank + i;
    MPI_Allreduce(in, out, 5, MPI_INT, op, comm);
    for (int i = 0; i < 5; i++)
        CHECK(out[i] == n * (n - 1) / 2 + n * i);
    /* A derived type (predefined operations are not defined on it). */
    MPI_Datatype two;
    MPI_Type_contiguous(2, MPI_INT, &two);
    MPI_Type_commit(&two);
    memset(out, 0, sizeof out);
    MPI_Reduce(in, out, 2, two, op, n - 1, comm);
    for (int i = 0; i < 4 && rank == n - 1; i++)
        CHECK(out[i] == n * (n - 1) / 2 + n * i);
    MPI_Type_free(&two);
    MPI_Op_free(&op);
}

/* Every check on `comm` (the which-th communicator of coll_each_comm). */
static void all_of(MPI_Comm comm, enum coll_comm which)
{
    int n;
    MPI_Comm_size(comm, &n);
    barriers(comm, 24);
    size_t bsizes[] = {0, 1, 7, 48, 49, 65536, 1048576 + 13};
    for (size_t s = 0; s < sizeof bsizes / sizeof bsizes[0]; s++)
        for (int root = 0; root < n; root++) {
            if (bsizes[s] > 65536 && (quick || root != n - 1))
                continue;
            broadcasts(comm, bsizes[s], root);
        }
    int k = (int)which;
    for (int ti = 0; ti < ntypes; ti++)
        for (int o = 0; o < 12; o++) {
            if (!defined(&types[ti], o))
                continue;
            size_t counts[] = {0, 1, 7, 65536 / types[ti].size};
            for (size_t c = 0; c < 4; c++)
                reductions(comm, &types[ti], o, counts[c], k++);
        }
    /* 1 MiB and more, odd: a few. */
    if (!quick) {
        reductions(comm, &types[22], 0, (1 << 17) + 3, k++);  /* double SUM */
        reductions(comm, &types[4], 9, (1 << 18) + 1, k++);   /* int BXOR */
        reductions(comm, &types[29], 10, (1 << 16) + 5, k++); /* double_int MAXLOC */
        reductions(comm, &types[27], 8, (1 << 20) + 7, k++);  /* byte BOR */
    }
    the_mpis(comm);
    if (which == COLL_REVERSED && (served || across))
        same_bits(comm);
}

int main(int argc, char **argv)
{
    coll_start("coll_ops", &argc, &argv);
    tables();
    coll_each_comm(all_of, COLL_SELF);
    if (served || across)
        same_bits(MPI_COMM_WORLD);
    return coll_finish("coll_ops", 1000, 0);
}
