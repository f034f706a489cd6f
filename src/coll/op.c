/*
 * The folds of op.h: one loop per predefined type and the predefined
 * operations the standard defines on it, found through two small tables
 * filled at the start (Open MPI's handles are addresses, not constants).
 */
#include "coll/op.h"

#include <complex.h>
#include <stdbool.h>
#include <stdint.h>

/* The types, by class. X(name, handle, C type, class). */
#define WISP_COLL_TYPES(X)                                                                         \
    X(schar, MPI_SIGNED_CHAR, signed char, INT)                                                    \
    X(uchar, MPI_UNSIGNED_CHAR, unsigned char, INT)                                                \
    X(short, MPI_SHORT, short, INT)                                                                \
    X(ushort, MPI_UNSIGNED_SHORT, unsigned short, INT)                                             \
    X(int, MPI_INT, int, INT)                                                                      \
    X(uint, MPI_UNSIGNED, unsigned, INT)                                                           \
    X(long, MPI_LONG, long, INT)                                                                   \
    X(ulong, MPI_UNSIGNED_LONG, unsigned long, INT)                                                \
    X(llong, MPI_LONG_LONG, long long, INT)                                                        \
    X(ullong, MPI_UNSIGNED_LONG_LONG, unsigned long long, INT)                                     \
    X(i8, MPI_INT8_T, int8_t, INT)                                                                 \
    X(u8, MPI_UINT8_T, uint8_t, INT)                                                               \
    X(i16, MPI_INT16_T, int16_t, INT)                                                              \
    X(u16, MPI_UINT16_T, uint16_t, INT)                                                            \
    X(i32, MPI_INT32_T, int32_t, INT)                                                              \
    X(u32, MPI_UINT32_T, uint32_t, INT)                                                            \
    X(i64, MPI_INT64_T, int64_t, INT)                                                              \
    X(u64, MPI_UINT64_T, uint64_t, INT)                                                            \
    X(aint, MPI_AINT, MPI_Aint, INT)                                                               \
    X(offset, MPI_OFFSET, MPI_Offset, INT)                                                         \
    X(count, MPI_COUNT, MPI_Count, INT)                                                            \
    X(float, MPI_FLOAT, float, FLT)                                                                \
    X(double, MPI_DOUBLE, double, FLT)                                                             \
    X(ldouble, MPI_LONG_DOUBLE, long double, FLT)                                                  \
    X(cfloat, MPI_C_FLOAT_COMPLEX, float _Complex, CPLX)                                           \
    X(cdouble, MPI_C_DOUBLE_COMPLEX, double _Complex, CPLX)                                        \
    X(cldouble, MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex, CPLX)                             \
    X(bool, MPI_C_BOOL, bool, BOOL)                                                                \
    X(byte, MPI_BYTE, unsigned char, BYTE)                                                         \
    X(float_int, MPI_FLOAT_INT, struct pair_float, PAIR)                                           \
    X(double_int, MPI_DOUBLE_INT, struct pair_double, PAIR)                                        \
    X(long_int, MPI_LONG_INT, struct pair_long, PAIR)                                              \
    X(two_int, MPI_2INT, struct pair_int, PAIR)                                                    \
    X(short_int, MPI_SHORT_INT, struct pair_short, PAIR)                                           \
    X(ldouble_int, MPI_LONG_DOUBLE_INT, struct pair_ldouble, PAIR)

/* The pair types' layouts, as the MPI describes them (a value, then an int). */
struct pair_float {
    float v;
    int i;
};
struct pair_double {
    double v;
    int i;
};
struct pair_long {
    long v;
    int i;
};
struct pair_int {
    int v;
    int i;
};
struct pair_short {
    short v;
    int i;
};
struct pair_ldouble {
    long double v;
    int i;
};

/* The operations, in the tables' order. */
#define WISP_COLL_OPS(X)                                                                           \
    X(SUM) X(PROD) X(MAX) X(MIN) X(LAND) X(LOR) X(LXOR) X(BAND) X(BOR) X(BXOR) X(MAXLOC) X(MINLOC)
enum {
#define X(op) OP_##op,
    WISP_COLL_OPS(X)
#undef X
        NOPS
};
enum {
#define X(name, handle, ctype, class) T_##name,
    WISP_COLL_TYPES(X)
#undef X
        NTYPES
};

/* Each operation's element, on a = acc[k] and b = in[k]. Integers add and
 * multiply modulo 2^64 (no signed overflow), as the MPIs' loops do. */
#define E_INT_SUM   (T)((unsigned long long)a + (unsigned long long)b)
#define E_INT_PROD  (T)((unsigned long long)a * (unsigned long long)b)
#define E_INT_MAX   (a > b ? a : b)
#define E_INT_MIN   (a < b ? a : b)
#define E_INT_LAND  (T)(a && b)
#define E_INT_LOR   (T)(a || b)
#define E_INT_LXOR  (T)(!a != !b)
#define E_INT_BAND  (T)(a & b)
#define E_INT_BOR   (T)(a | b)
#define E_INT_BXOR  (T)(a ^ b)
#define E_FLT_SUM   (a + b)
#define E_FLT_PROD  (a * b)
#define E_FLT_MAX   (a > b ? a : b)
#define E_FLT_MIN   (a < b ? a : b)
#define E_CPLX_SUM  (a + b)
#define E_CPLX_PROD (a * b)
#define E_BOOL_LAND (a && b)
#define E_BOOL_LOR  (a || b)
#define E_BOOL_LXOR (a != b)
#define E_BYTE_BAND (T)(a & b)
#define E_BYTE_BOR  (T)(a | b)
#define E_BYTE_BXOR (T)(a ^ b)
/* The location of the extreme value; on a tie the lower index. */
#define E_PAIR_MAXLOC (b.v > a.v || (b.v == a.v && b.i < a.i) ? b : a)
#define E_PAIR_MINLOC (b.v < a.v || (b.v == a.v && b.i < a.i) ? b : a)

#define LOOP(name, ctype, op, expr)                                                                \
    static void fold_##name##_##op(void *acc_, const void *in_, size_t n)                          \
    {                                                                                              \
        typedef ctype T;                                                                           \
        T *restrict acc = acc_;                                                                    \
        const T *restrict in = in_;                                                                \
        for (size_t k = 0; k < n; k++) {                                                           \
            T a = acc[k], b = in[k];                                                               \
            acc[k] = (expr);                                                                       \
        }                                                                                          \
    }

/* The loops of each class. */
#define LOOPS_INT(name, ctype)                                                                     \
    LOOP(name, ctype, SUM, E_INT_SUM)                                                              \
    LOOP(name, ctype, PROD, E_INT_PROD)                                                            \
    LOOP(name, ctype, MAX, E_INT_MAX)                                                              \
    LOOP(name, ctype, MIN, E_INT_MIN)                                                              \
    LOOP(name, ctype, LAND, E_INT_LAND)                                                            \
    LOOP(name, ctype, LOR, E_INT_LOR)                                                              \
    LOOP(name, ctype, LXOR, E_INT_LXOR)                                                            \
    LOOP(name, ctype, BAND, E_INT_BAND)                                                            \
    LOOP(name, ctype, BOR, E_INT_BOR)                                                              \
    LOOP(name, ctype, BXOR, E_INT_BXOR)
#define LOOPS_FLT(name, ctype)                                                                     \
    LOOP(name, ctype, SUM, E_FLT_SUM)                                                              \
    LOOP(name, ctype, PROD, E_FLT_PROD)                                                            \
    LOOP(name, ctype, MAX, E_FLT_MAX)                                                              \
    LOOP(name, ctype, MIN, E_FLT_MIN)
#define LOOPS_CPLX(name, ctype)                                                                    \
    LOOP(name, ctype, SUM, E_CPLX_SUM)                                                             \
    LOOP(name, ctype, PROD, E_CPLX_PROD)
#define LOOPS_BOOL(name, ctype)                                                                    \
    LOOP(name, ctype, LAND, E_BOOL_LAND)                                                           \
    LOOP(name, ctype, LOR, E_BOOL_LOR)                                                             \
    LOOP(name, ctype, LXOR, E_BOOL_LXOR)
#define LOOPS_BYTE(name, ctype)                                                                    \
    LOOP(name, ctype, BAND, E_BYTE_BAND)                                                           \
    LOOP(name, ctype, BOR, E_BYTE_BOR)                                                             \
    LOOP(name, ctype, BXOR, E_BYTE_BXOR)
#define LOOPS_PAIR(name, ctype)                                                                    \
    LOOP(name, ctype, MAXLOC, E_PAIR_MAXLOC)                                                       \
    LOOP(name, ctype, MINLOC, E_PAIR_MINLOC)

#define X(name, handle, ctype, class) LOOPS_##class(name, ctype)
WISP_COLL_TYPES(X)
#undef X

typedef void fold_fn(void *acc, const void *in, size_t n);

/* A row of the kernels' table per class. */
#define ROW_INT(name)                                                                              \
    [OP_SUM] = fold_##name##_SUM, [OP_PROD] = fold_##name##_PROD, [OP_MAX] = fold_##name##_MAX,    \
    [OP_MIN] = fold_##name##_MIN, [OP_LAND] = fold_##name##_LAND, [OP_LOR] = fold_##name##_LOR,    \
    [OP_LXOR] = fold_##name##_LXOR, [OP_BAND] = fold_##name##_BAND, [OP_BOR] = fold_##name##_BOR,  \
    [OP_BXOR] = fold_##name##_BXOR
#define ROW_FLT(name)                                                                              \
    [OP_SUM] = fold_##name##_SUM, [OP_PROD] = fold_##name##_PROD, [OP_MAX] = fold_##name##_MAX,    \
    [OP_MIN] = fold_##name##_MIN
#define ROW_CPLX(name) [OP_SUM] = fold_##name##_SUM, [OP_PROD] = fold_##name##_PROD
#define ROW_BOOL(name)                                                                             \
    [OP_LAND] = fold_##name##_LAND, [OP_LOR] = fold_##name##_LOR, [OP_LXOR] = fold_##name##_LXOR
#define ROW_BYTE(name)                                                                             \
    [OP_BAND] = fold_##name##_BAND, [OP_BOR] = fold_##name##_BOR, [OP_BXOR] = fold_##name##_BXOR
#define ROW_PAIR(name) [OP_MAXLOC] = fold_##name##_MAXLOC, [OP_MINLOC] = fold_##name##_MINLOC

static fold_fn *const kernels[NTYPES][NOPS] = {
#define X(name, handle, ctype, class) [T_##name] = {ROW_##class(name)},
    WISP_COLL_TYPES(X)
#undef X
};
static const size_t sizes[NTYPES] = {
#define X(name, handle, ctype, class) [T_##name] = sizeof(ctype),
    WISP_COLL_TYPES(X)
#undef X
};

static MPI_Datatype types[NTYPES];
static MPI_Op ops[NOPS];

void wisp_coll_op_init(void)
{
#define X(name, handle, ctype, class) types[T_##name] = handle;
    WISP_COLL_TYPES(X)
#undef X
#define X(op) ops[OP_##op] = MPI_##op;
    WISP_COLL_OPS(X)
#undef X
}

static int type_index(MPI_Datatype type)
{
    if (type == MPI_DATATYPE_NULL)
        return -1;
    for (int t = 0; t < NTYPES; t++)
        if (types[t] == type)
            return t;
    return -1;
}

/* The pair asked for last by this thread: a loop calls one reduction. */
static _Thread_local struct {
    MPI_Datatype type;
    MPI_Op op;
    struct wisp_coll_fold fold;
    bool valid;
} last;

static struct wisp_coll_fold lookup(MPI_Datatype type, MPI_Op op)
{
    struct wisp_coll_fold f = {-1, 0};
    int t = type_index(type);
    if (t < 0 || op == MPI_OP_NULL)
        return f;
    for (int o = 0; o < NOPS; o++)
        if (ops[o] == op && kernels[t][o]) {
            f.kernel = t * NOPS + o;
            f.size = sizes[t];
        }
    return f;
}

/* Only predefined handles are kept: they never change meaning (a user's
 * operation, freed, may leave its handle to another, but is never one). */
struct wisp_coll_fold wisp_coll_fold_of(MPI_Datatype type, MPI_Op op)
{
    if (last.valid && last.type == type && last.op == op)
        return last.fold;
    struct wisp_coll_fold f = lookup(type, op);
    if (f.kernel >= 0) {
        last.type = type;
        last.op = op;
        last.fold = f;
        last.valid = true;
    }
    return f;
}

void wisp_coll_fold(struct wisp_coll_fold f, void *acc, const void *in, size_t count)
{
    kernels[f.kernel / NOPS][f.kernel % NOPS](acc, in, count);
}

size_t wisp_coll_type_size(MPI_Datatype type)
{
    int t = type_index(type);
    return t < 0 ? 0 : sizes[t];
}
