/*
 * The collectives' differential tester's interpreter (issue 52 item 7): from
 * each seed a program of random collectives (every MPI collective: those
 * wisp serves and those it passes to the MPI), each with a random
 * operation, type, count, root, MPI_IN_PLACE where the call allows it,
 * buffers from malloc (the shared heap under wisp), the stack or static
 * memory, on one of the program's communicators (the world, a duplicate,
 * halves, odd and even ranks, the ranks reversed), and with --threads
 * a part run by two threads at once on two communicators of their own.
 *
 * Every rank writes, per call, a line to LOGDIR/r<rank>.log: the call's
 * arguments and what it gave (a hash of each result buffer over the bytes
 * the MPI may write, their hex when few, a hash of the send buffer after
 * the call). tests/fuzz/coll_fuzz.py runs it natively and under wisp and
 * compares the lines, which must be equal bit for bit, except for
 * reductions of floating values whose order of evaluation the MPI chooses
 * (sums and products of real and complex floats): for those the program
 * itself checks every element against the exact value, computed from every
 * rank's inputs, which it generates too, within the spread that any order
 * of evaluation can give (docs/testing.md): the line says ok or BAD, and
 * carries the hash after a '~', which the driver compares across the ranks
 * of one allreduce only (wisp must give them all the same bits). The exit
 * status is 1 when any line is BAD.
 *
 * usage: coll_fuzz LOGDIR FIRST_SEED [COUNT] [--threads] [--max-calls N]
 *                  [--only CALLS] [--watchdog SECONDS]
 *        coll_fuzz --dump SEED NP [--threads] [--max-calls N]   (no MPI)
 * --only 3,7: run only those calls of the program (a finding cut down; the
 * others' data does not depend on them). --threads: MPI_THREAD_MULTIPLE and
 * parts run by two threads (the job's thread level: the driver passes it
 * to both runs alike).
 */
#include <mpi.h>
#include <alloca.h>
#include <complex.h>
#include <dlfcn.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "schedule.h" /* fz_hash */

enum { SENTINEL = 0xa5, GAP = 0x5a };
enum { BIG = 1 << 20 };                 /* largest buffer of one rank's data */
enum { STATIC_BYTES = 4 * BIG + 4096 }; /* what a static buffer holds */
enum { STACK_MAX = 128 << 10 };         /* largest buffer on the stack */
enum { HEX_MAX = 32 };                  /* results up to this size are logged as bytes */

/* ---- the program ---- */

enum coll {
    C_BARRIER,
    C_BCAST,
    C_REDUCE,
    C_ALLREDUCE,
    C_GATHER,
    C_GATHERV,
    C_SCATTER,
    C_SCATTERV,
    C_ALLGATHER,
    C_ALLGATHERV,
    C_ALLTOALL,
    C_ALLTOALLV,
    C_ALLTOALLW,
    C_REDUCE_SCATTER,
    C_REDUCE_SCATTER_BLOCK,
    C_SCAN,
    C_EXSCAN,
    NCOLLS
};
static const char *coll_name[NCOLLS] = {
    "barrier",  "bcast",     "reduce",    "allreduce",      "gather",
    "gatherv",  "scatter",   "scatterv",  "allgather",      "allgatherv",
    "alltoall", "alltoallv", "alltoallw", "reduce_scatter", "reduce_scatter_block",
    "scan",     "exscan"};
static int is_reduction(int c)
{
    return c == C_REDUCE || c == C_ALLREDUCE || c == C_REDUCE_SCATTER ||
           c == C_REDUCE_SCATTER_BLOCK || c == C_SCAN || c == C_EXSCAN;
}

/* The program's communicators; T0 and T1 belong to the two threads. */
enum comm_kind { K_WORLD, K_DUP, K_HALF, K_PARITY, K_REV, K_T0, K_T1, NKINDS };
static const char *kind_name[NKINDS] = {"world", "dup", "half", "parity", "rev", "t0", "t1"};

/* Types of the data-moving collectives: single blocks and types with holes. */
enum dtype { D_BYTE, D_INT, D_DOUBLE, D_VEC, D_STRUCT, NDTYPES };
static const char *dtype_name[NDTYPES] = {"byte", "int", "double", "vec", "struct"};
static const int dtype_size[NDTYPES] = {1, 4, 8, 8, 6};
static const int dtype_extent[NDTYPES] = {1, 4, 8, 12, 8};

/* Types of reductions: kind, size of an element (its extent), the
 * significant bytes of its value and, for a pair, where its index is. */
enum rkind { R_INT, R_FLT, R_CPLX, R_BOOL, R_BYTE, R_PAIR, R_USER_C, R_USER_NC };
struct rtype {
    const char *name;
    int kind, size, sig, ioff,
        fprec; /* fprec: 0 float, 1 double, 2 long double, 3 long, 4 int, 5 short */
};
static const struct rtype rtypes[] = {
    {"schar", R_INT, 1, 1, 0, 0},      {"uchar", R_INT, 1, 1, 0, 0},
    {"short", R_INT, 2, 2, 0, 0},      {"ushort", R_INT, 2, 2, 0, 0},
    {"int", R_INT, 4, 4, 0, 0},        {"unsigned", R_INT, 4, 4, 0, 0},
    {"long", R_INT, 8, 8, 0, 0},       {"ulong", R_INT, 8, 8, 0, 0},
    {"llong", R_INT, 8, 8, 0, 0},      {"ullong", R_INT, 8, 8, 0, 0},
    {"int8", R_INT, 1, 1, 0, 0},       {"uint8", R_INT, 1, 1, 0, 0},
    {"int16", R_INT, 2, 2, 0, 0},      {"uint16", R_INT, 2, 2, 0, 0},
    {"int32", R_INT, 4, 4, 0, 0},      {"uint32", R_INT, 4, 4, 0, 0},
    {"int64", R_INT, 8, 8, 0, 0},      {"uint64", R_INT, 8, 8, 0, 0},
    {"aint", R_INT, 8, 8, 0, 0},       {"offset", R_INT, 8, 8, 0, 0},
    {"count", R_INT, 8, 8, 0, 0},      {"float", R_FLT, 4, 4, 0, 0},
    {"double", R_FLT, 8, 8, 0, 1},     {"ldouble", R_FLT, 16, 10, 0, 2},
    {"cfloat", R_CPLX, 8, 8, 0, 0},    {"cdouble", R_CPLX, 16, 16, 0, 1},
    {"bool", R_BOOL, 1, 1, 0, 0},      {"byte", R_BYTE, 1, 1, 0, 0},
    {"float_int", R_PAIR, 8, 4, 4, 0}, {"double_int", R_PAIR, 16, 8, 8, 1},
    {"long_int", R_PAIR, 16, 8, 8, 3}, {"2int", R_PAIR, 8, 4, 4, 4},
    {"short_int", R_PAIR, 8, 2, 4, 5}, {"ldouble_int", R_PAIR, 32, 10, 16, 2},
    {"u32", R_USER_C, 4, 4, 0, 0},     /* U32 */ {"mat", R_USER_NC, 16, 16, 0, 0},
};
enum { NRTYPES = sizeof rtypes / sizeof rtypes[0], U32 = NRTYPES - 2 };

enum rop {
    O_MAX,
    O_MIN,
    O_SUM,
    O_PROD,
    O_LAND,
    O_LOR,
    O_LXOR,
    O_BAND,
    O_BOR,
    O_BXOR,
    O_MAXLOC,
    O_MINLOC,
    O_USER_C,
    O_USER_NC,
    NOPS
};
static const char *op_name[NOPS] = {"max",    "min",    "sum",       "prod",        "land",
                                    "lor",    "lxor",   "band",      "bor",         "bxor",
                                    "maxloc", "minloc", "user_comm", "user_noncomm"};

static int op_fits(int op, int kind) /* MPI-4.1 6.9.2 */
{
    switch (op) {
    case O_MAX:
    case O_MIN:
        return kind == R_INT || kind == R_FLT;
    case O_SUM:
    case O_PROD:
        return kind == R_INT || kind == R_FLT || kind == R_CPLX;
    case O_LAND:
    case O_LOR:
    case O_LXOR:
        return kind == R_INT || kind == R_BOOL;
    case O_BAND:
    case O_BOR:
    case O_BXOR:
        return kind == R_INT || kind == R_BYTE;
    case O_MAXLOC:
    case O_MINLOC:
        return kind == R_PAIR;
    case O_USER_C:
        return kind == R_USER_C;
    case O_USER_NC:
        return kind == R_USER_NC;
    }
    return 0;
}

/* Float results that depend on the order of evaluation: checked by bounds. */
static int inexact(int op, int kind)
{
    return (kind == R_FLT || kind == R_CPLX) && (op == O_SUM || op == O_PROD);
}

enum bufkind { B_MALLOC, B_STACK, B_STATIC };
static const char bufkind_name[] = "mks";

struct call {
    int coll, comm, thread; /* thread: -1 the main one, else 0 or 1 */
    int type;               /* dtype, or rtype for reductions */
    int op, rvec;           /* rvec: the reduction on a vector of the type (holes) */
    long count;
    int root_draw, inplace, buf, flat, null_insig;
    int nb;       /* the nonblocking form (MPI_Ibcast, ...), waited for at once */
    uint64_t key; /* the call's data and per-rank counts */
};

struct program {
    int ncalls;
    struct call *calls;
};

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

struct rng {
    uint64_t s;
};
static uint64_t next(struct rng *g)
{
    return mix(g->s++ * 0x2545f4914f6cdd1dull + 0x1234567);
}
static long below(struct rng *g, long n)
{
    return n <= 1 ? 0 : (long)(next(g) % (uint64_t)n);
}
static int chance(struct rng *g, int percent)
{
    return below(g, 100) < percent;
}

/* Counts: mostly small, some 0, a few up to ~1 MiB of data. */
static long draw_count(struct rng *g, long max_elems)
{
    long c, b = below(g, 100);
    if (b < 6)
        c = 0;
    else if (b < 36)
        c = 1 + below(g, 8);
    else if (b < 62)
        c = 9 + below(g, 92);
    else if (b < 82)
        c = 101 + below(g, 1900);
    else if (b < 94)
        c = 2001 + below(g, 14000);
    else
        c = 16001 + below(g, max_elems);
    return c > max_elems ? max_elems : c;
}

static void gen_call(struct call *c, struct rng *g, int thread, int comm, int np)
{
    memset(c, 0, sizeof *c);
    c->thread = thread;
    c->comm = comm;
    c->key = next(g);
    /* Reductions and the rooted ones a little more often: wisp serves those first. */
    static const int weight[NCOLLS] = {3, 8, 8, 10, 4, 4, 4, 4, 4, 4, 4, 4, 3, 4, 4, 4, 4};
    int sum = 0;
    for (int i = 0; i < NCOLLS; i++)
        sum += weight[i];
    long w = below(g, sum);
    for (c->coll = 0; w >= weight[c->coll]; c->coll++)
        w -= weight[c->coll];
    c->root_draw = (int)below(g, 64);
    c->buf = chance(g, 70) ? B_MALLOC : chance(g, 50) ? B_STACK : B_STATIC;
    c->null_insig = chance(g, 30);
    long span; /* bytes of one rank's element */
    if (is_reduction(c->coll)) {
        do {
            c->op = (int)below(g, NOPS);
            c->type = (int)below(g, NRTYPES);
        } while (!op_fits(c->op, rtypes[c->type].kind));
        int k = rtypes[c->type].kind;
        c->rvec = k == R_USER_C && chance(g, 50); /* predefined ops: predefined types only */
        span = rtypes[c->type].size * (c->rvec ? 3 : 1);
    } else {
        c->type = (int)below(g, NDTYPES);
        c->flat = c->type == D_VEC && chance(g, 40);
        span = dtype_extent[c->type];
    }
    /* The largest buffer of a rank holds np blocks for most collectives. */
    long max_elems = BIG / span;
    if (c->coll != C_BCAST && c->coll != C_REDUCE && c->coll != C_ALLREDUCE && c->coll != C_SCAN &&
        c->coll != C_EXSCAN && c->coll != C_BARRIER)
        max_elems /= np;
    c->count = c->coll == C_BARRIER ? 0 : draw_count(g, max_elems);
#ifdef MPICH
    /* MPICH 4.0.2 fails natively (MPI_ERR_TRUNCATE) in MPI_Gather, _Scatter
     * and _Alltoallw of the struct type from some KiB up (MPI_Gather, 4
     * processes, 700 elements; docs/testing.md). */
    if (!is_reduction(c->coll) && c->type == D_STRUCT && c->coll != C_BCAST && c->count > 256)
        c->count = 1 + c->count % 256;
#endif
    c->inplace = c->coll != C_BARRIER && c->coll != C_BCAST && chance(g, 30);
    /* From the key, not a draw of its own: the other fields of a seed's
     * calls are the ones they were before the nonblocking forms came. */
    c->nb = mix(c->key ^ 0x6e6f6e626c6f636bull) % 100 < 40;
}

static void generate(struct program *p, uint64_t seed, int np, int threads, int max_calls)
{
    struct rng g = {mix(seed)};
    p->ncalls = 1 + (int)below(&g, max_calls);
    p->calls = calloc((size_t)p->ncalls, sizeof *p->calls);
    int i = 0;
    while (i < p->ncalls) {
        if (threads && p->ncalls - i >= 2 && chance(&g, 25)) { /* a part of two threads */
            int n = 2 + (int)below(&g, 6);
            if (n > p->ncalls - i)
                n = p->ncalls - i;
            for (int k = 0; k < n; k++, i++)
                gen_call(&p->calls[i], &g, k % 2, K_T0 + k % 2, np);
            continue;
        }
        gen_call(&p->calls[i], &g, -1, (int)below(&g, K_T0), np);
        i++;
    }
}

static void describe(char *s, size_t len, const struct call *c, int idx)
{
    int n = snprintf(s, len, "c%d %s%s %s", idx, c->nb ? "i" : "", coll_name[c->coll],
                     kind_name[c->comm]);
    if (c->thread >= 0)
        n += snprintf(s + n, len - (size_t)n, " thread=%d", c->thread);
    if (c->coll == C_BARRIER)
        return;
    if (is_reduction(c->coll))
        n += snprintf(s + n, len - (size_t)n, " %s%s op=%s", c->rvec ? "vec_" : "",
                      rtypes[c->type].name, op_name[c->op]);
    else
        n += snprintf(s + n, len - (size_t)n, " %s%s", dtype_name[c->type], c->flat ? "/flat" : "");
    snprintf(s + n, len - (size_t)n, " count=%ld rootdraw=%d inplace=%d buf=%c null=%d", c->count,
             c->root_draw, c->inplace, bufkind_name[c->buf], c->null_insig);
}

/* ---- MPI state ---- */

static int me, nprocs, threaded;
static FILE *logfile;
static int bad_lines;
static pthread_mutex_t bad_lock = PTHREAD_MUTEX_INITIALIZER;
static MPI_Datatype vec_type, struct_type, mat_type;
static MPI_Datatype rvec_types[NRTYPES];
static MPI_Op user_comm_op, user_noncomm_op;
static MPI_Comm comms[NKINDS];
static int colors[NKINDS];
static unsigned char static_mem[2][2][STATIC_BYTES]; /* [thread][send, recv] */
static volatile uint64_t at_seed;
static volatile int at_call[2];

static void watchdog(int sig)
{
    (void)sig;
    char line[160];
    int n = snprintf(line, sizeof line, "coll_fuzz: rank %d still in seed %" PRIu64 " call %d/%d\n",
                     me, (uint64_t)at_seed, at_call[0], at_call[1]);
    if (write(2, line, (size_t)n) < 0)
        _exit(3);
    alarm(10);
}

static MPI_Datatype dtype_of(int t)
{
    switch (t) {
    case D_BYTE:
        return MPI_BYTE;
    case D_INT:
        return MPI_INT;
    case D_DOUBLE:
        return MPI_DOUBLE;
    case D_VEC:
        return vec_type;
    default:
        return struct_type;
    }
}

static MPI_Datatype rtype_of(int t)
{
    static MPI_Datatype tab[NRTYPES];
    if (tab[0] == 0 || tab[0] == MPI_DATATYPE_NULL) {
        MPI_Datatype v[NRTYPES] = {MPI_SIGNED_CHAR,
                                   MPI_UNSIGNED_CHAR,
                                   MPI_SHORT,
                                   MPI_UNSIGNED_SHORT,
                                   MPI_INT,
                                   MPI_UNSIGNED,
                                   MPI_LONG,
                                   MPI_UNSIGNED_LONG,
                                   MPI_LONG_LONG,
                                   MPI_UNSIGNED_LONG_LONG,
                                   MPI_INT8_T,
                                   MPI_UINT8_T,
                                   MPI_INT16_T,
                                   MPI_UINT16_T,
                                   MPI_INT32_T,
                                   MPI_UINT32_T,
                                   MPI_INT64_T,
                                   MPI_UINT64_T,
                                   MPI_AINT,
                                   MPI_OFFSET,
                                   MPI_COUNT,
                                   MPI_FLOAT,
                                   MPI_DOUBLE,
                                   MPI_LONG_DOUBLE,
                                   MPI_C_FLOAT_COMPLEX,
                                   MPI_C_DOUBLE_COMPLEX,
                                   MPI_C_BOOL,
                                   MPI_BYTE,
                                   MPI_FLOAT_INT,
                                   MPI_DOUBLE_INT,
                                   MPI_LONG_INT,
                                   MPI_2INT,
                                   MPI_SHORT_INT,
                                   MPI_LONG_DOUBLE_INT,
                                   MPI_UINT32_T,
                                   mat_type};
        memcpy(tab, v, sizeof v);
    }
    return tab[t];
}

static MPI_Op op_of(int op)
{
    switch (op) {
    case O_MAX:
        return MPI_MAX;
    case O_MIN:
        return MPI_MIN;
    case O_SUM:
        return MPI_SUM;
    case O_PROD:
        return MPI_PROD;
    case O_LAND:
        return MPI_LAND;
    case O_LOR:
        return MPI_LOR;
    case O_LXOR:
        return MPI_LXOR;
    case O_BAND:
        return MPI_BAND;
    case O_BOR:
        return MPI_BOR;
    case O_BXOR:
        return MPI_BXOR;
    case O_MAXLOC:
        return MPI_MAXLOC;
    case O_MINLOC:
        return MPI_MINLOC;
    case O_USER_C:
        return user_comm_op;
    default:
        return user_noncomm_op;
    }
}

/* x op y = x + y + 2xy (mod 2^32): (1+2x)(1+2y) = 1 + 2(x op y), so
 * associative and commutative; exact, whatever the order. */
static void user_comm_fn(void *in, void *io, int *len, MPI_Datatype *t)
{
    uint32_t *a = in, *b = io;
    int n = *len, step = 1;
    if (*t == rvec_types[U32]) { /* vector(2, 1, 2): words 0 and 2 of every 3 */
        n *= 2;
        step = 2;
    }
    for (int i = 0; i < n; i++) {
        long k = step == 1 ? i : (i / 2) * 3 + (i % 2) * 2;
        b[k] = a[k] + b[k] + 2u * a[k] * b[k];
    }
}

/* 2x2 matrices mod 2^32, io = in * io: associative, not commutative. */
static void user_noncomm_fn(void *in, void *io, int *len, MPI_Datatype *t)
{
    (void)t;
    uint32_t *a = in, *b = io;
    for (int i = 0; i < *len; i++, a += 4, b += 4) {
        uint32_t r[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
                         a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]};
        memcpy(b, r, sizeof r);
    }
}

/* ---- data ---- */

static uint64_t word(uint64_t key, int rank, long i)
{
    return mix(key ^ mix(((uint64_t)rank << 48) ^ (uint64_t)i));
}

/* The significant bytes of element e of a data-moving type at p. */
static void put_moving(unsigned char *p, int t, uint64_t w)
{
    switch (t) {
    case D_VEC: /* two ints, a hole between */
        memcpy(p, &w, 4);
        memset(p + 4, GAP, 4);
        memcpy(p + 8, (char *)&w + 4, 4);
        break;
    case D_STRUCT: /* int at 0, short at 6 */
        memcpy(p, &w, 4);
        memset(p + 4, GAP, 2);
        memcpy(p + 6, (char *)&w + 4, 2);
        break;
    default:
        memcpy(p, &w, (size_t)dtype_size[t]);
    }
}

static void fill_moving(unsigned char *p, int t, long count, uint64_t key, int rank, long first)
{
    for (long e = 0; e < count; e++)
        put_moving(p + e * dtype_extent[t], t, word(key, rank, first + e));
}

/* A floating value of precision prec: sums get mixed signs and magnitudes
 * (cancellation: the order matters), products magnitudes near 1 (no
 * overflow), max/min never zero (+0 and -0 would tie). */
static long double float_value(uint64_t w, int op, int prec)
{
    long double frac = (long double)(w >> 11) / (long double)(1ull << 53);
    long double sign = (w & 1) ? -1 : 1;
    if (op == O_PROD)
        return sign * (0.5L + 1.5L * frac);
    int spread = prec == 0 ? 10 : 20;
    int e = (int)((w >> 2) % (uint64_t)(2 * spread + 1)) - spread;
    return sign * ldexpl(1 + frac, e);
}

static void store_float(unsigned char *p, long double v, int prec)
{
    if (prec == 0) {
        float f = (float)v;
        memcpy(p, &f, 4);
    } else if (prec == 1) {
        double d = (double)v;
        memcpy(p, &d, 8);
    } else {
        memset(p, 0, 16);
        memcpy(p, &v, sizeof v < 16 ? sizeof v : 16);
    }
}

static long double load_float(const unsigned char *p, int prec)
{
    if (prec == 0) {
        float f;
        memcpy(&f, p, 4);
        return f;
    }
    if (prec == 1) {
        double d;
        memcpy(&d, p, 8);
        return d;
    }
    long double v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* Where base element j of a reduction buffer is (rvec: two per element). */
static long roff(const struct call *c, long j)
{
    long sz = rtypes[c->type].size;
    return c->rvec ? (j / 2) * 3 * sz + (j % 2) * 2 * sz : j * sz;
}

static long relems(const struct call *c, long count)
{
    return c->rvec ? 2 * count : count;
}
static long rspan(const struct call *c, long count)
{
    return count * rtypes[c->type].size * (c->rvec ? 3 : 1);
}

/* The MPIs' own failures that inputs can steer around (docs/testing.md):
 * MPI_MAX and MPI_MIN compare unsigned integers as signed ones in MPICH
 * 4.0.2 (every unsigned type: pmodels/mpich#6083, fixed in 4.1) and in Open
 * MPI 4.1.4 (MPI_UNSIGNED_LONG: open-mpi/ompi#10525, fixed in 4.1.5), and
 * Open MPI 4.1.4 compares MPI_OFFSET as unsigned: inputs with the top bit
 * clear, where the two agree. Open MPI 4.1.4's op/avx component adds 8- and
 * 16-bit integers with saturation (200 + 200 = 255 as MPI_UINT8_T;
 * --mca op ^avx wraps): inputs whose sums never overflow. */
static int minmax_sign_blind(const struct rtype *t)
{
#if defined(MPICH)
    return t->name[0] == 'u';
#elif defined(OPEN_MPI)
    return !strcmp(t->name, "ulong") || !strcmp(t->name, "offset");
#else
    return 0;
#endif
}

static int sum_saturates(const struct rtype *t)
{
#if defined(OPEN_MPI)
    return t->size <= 2;
#else
    (void)t;
    return 0;
#endif
}

/* Base element j of rank's input of a reduction. */
static void put_reduce(unsigned char *p, const struct call *c, int rank, long j)
{
    const struct rtype *t = &rtypes[c->type];
    uint64_t w = word(c->key, rank, j);
    switch (t->kind) {
    case R_INT:
        if (c->op >= O_LAND && c->op <= O_LXOR && (w >> 60) < 6)
            w = (w >> 59) & 1; /* logical: zeros and ones often */
        if ((c->op == O_MAX || c->op == O_MIN) && minmax_sign_blind(t))
            w &= ~(1ull << (8 * t->size - 1)); /* the top bit clear: signed = unsigned */
        if (c->op == O_SUM && sum_saturates(t))
            w &= (1ull << (8 * t->size - 3)) - 1; /* 4 of them fit a signed type */
        memcpy(p, &w, (size_t)t->size);
        break;
    case R_FLT:
        store_float(p, float_value(w, c->op, t->fprec), t->fprec);
        break;
    case R_CPLX:
        store_float(p, float_value(w, c->op, t->fprec), t->fprec);
        store_float(p + t->size / 2, float_value(mix(w), c->op, t->fprec), t->fprec);
        break;
    case R_BOOL:
        *p = (unsigned char)(w & 1);
        break;
    case R_BYTE:
        *p = (unsigned char)w;
        break;
    case R_PAIR: { /* values -2..2 and indices 0..6: ties, broken by the index */
        int iv = (int)(w % 5) - 2, idx = (int)((w >> 8) % 7);
        memset(p, 0, (size_t)t->size);
        switch (t->fprec) {
        case 0:
        case 1:
        case 2:
            store_float(p, iv, t->fprec);
            break;
        case 3: {
            long l = iv;
            memcpy(p, &l, 8);
            break;
        }
        case 4:
            memcpy(p, &iv, 4);
            break;
        default: {
            short s = (short)iv;
            memcpy(p, &s, 2);
        }
        }
        memcpy(p + t->ioff, &idx, 4);
        break;
    }
    default: /* user ops: uint32 words */
        memcpy(p, &w, 4);
        if (t->kind == R_USER_NC) {
            uint64_t w2 = mix(w);
            memcpy(p + 4, (char *)&w + 4, 4);
            memcpy(p + 8, &w2, 8);
        }
    }
}

static void fill_reduce(unsigned char *p, const struct call *c, long count, int rank, long first)
{
    for (long j = 0; j < relems(c, count); j++)
        put_reduce(p + roff(c, j), c, rank, first + j);
}

/* The hash of the bytes of a reduction's result that the MPI defines: a
 * whole element, less the padding of long double and of the pairs; the
 * holes of a vector stay as they were, so they are hashed too. */
static void hash_reduce(struct fz_hash *h, const unsigned char *p, const struct call *c, long count)
{
    const struct rtype *t = &rtypes[c->type];
    if (!c->rvec && t->sig == t->size && t->kind != R_PAIR) {
        fz_hash_add(h, p, (size_t)(count * t->size));
        return;
    }
    if (c->rvec) {
        fz_hash_add(h, p, (size_t)rspan(c, count));
        return;
    }
    for (long j = 0; j < count; j++) {
        fz_hash_add(h, p + j * t->size, (size_t)t->sig);
        if (t->kind == R_PAIR)
            fz_hash_add(h, p + j * t->size + t->ioff, 4);
    }
}

/* ---- the log ---- */

struct logbuf {
    char *s;
    size_t len, cap;
};

static void logf_(struct logbuf *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (b->len + (size_t)n < b->cap) {
            b->len += (size_t)n;
            return;
        }
        b->cap = 2 * b->cap + (size_t)n + 256;
        b->s = realloc(b->s, b->cap);
    }
}

static void flush_log(struct logbuf *b)
{
    fwrite(b->s, 1, b->len, logfile);
    fflush(logfile); /* a crash keeps the lines before it */
    b->len = 0;
}

static void mark_bad(void)
{
    pthread_mutex_lock(&bad_lock);
    bad_lines++;
    pthread_mutex_unlock(&bad_lock);
}

/* " name=HASH" of n bytes at p, and their hex when few. */
static void log_bytes(struct logbuf *b, const char *name, const void *p, long n)
{
    struct fz_hash h;
    fz_hash_init(&h);
    fz_hash_add(&h, p, (size_t)n);
    logf_(b, " %s=%016" PRIx64, name, fz_hash_end(&h));
    if (n <= HEX_MAX && n > 0) {
        logf_(b, ":");
        for (long i = 0; i < n; i++)
            logf_(b, "%02x", ((const unsigned char *)p)[i]);
    }
}

/* ---- the float check ---- */

/* Base element j of a float reduction over the inputs of ranks lo..hi-1,
 * at p: within the spread of every order of evaluation? The exact value is
 * computed in long double; any order of a sum of m terms is within
 * gamma(m-1) * sum |x_i| of it, of a product within gamma(m-1) * |product|
 * (Higham, Accuracy and Stability, 3.1 and 3.4), gamma(k) = k u / (1 - k u);
 * twice that covers the long double reference's own error for long double
 * data; complex products: each product of two within 4u of the product of
 * the moduli per component. */
static int float_ok(const unsigned char *p, const struct call *c, int lo, int hi, long j, char *why,
                    size_t whylen)
{
    const struct rtype *t = &rtypes[c->type];
    long double u = t->fprec == 0   ? FLT_EPSILON / 2
                    : t->fprec == 1 ? DBL_EPSILON / 2
                                    : LDBL_EPSILON / 2;
    int m = hi - lo;
    unsigned char in[32];
    long double g = 2 * (m - 1) * u * 1.01L;
    if (t->kind == R_FLT) {
        long double exact = c->op == O_SUM ? 0 : 1, mag = c->op == O_SUM ? 0 : 1;
        for (int r = lo; r < hi; r++) {
            put_reduce(in, c, r, j);
            long double x = load_float(in, t->fprec);
            if (c->op == O_SUM) {
                exact += x;
                mag += fabsl(x);
            } else {
                exact *= x;
                mag *= fabsl(x);
            }
        }
        long double got = load_float(p, t->fprec);
        long double err = fabsl(got - exact), bound = g * mag + LDBL_MIN;
        if (!(err <= bound)) {
            snprintf(why, whylen, "element %ld: %.21Lg, exact %.21Lg, spread %.3Lg", j, got, exact,
                     bound);
            return 0;
        }
        return 1;
    }
    long double complex exact = c->op == O_SUM ? 0 : 1;
    long double mag_re = c->op == O_SUM ? 0 : 1, mag_im = mag_re;
    int half = t->size / 2;
    for (int r = lo; r < hi; r++) {
        put_reduce(in, c, r, j);
        long double re = load_float(in, t->fprec), im = load_float(in + half, t->fprec);
        if (c->op == O_SUM) {
            exact += re + im * I;
            mag_re += fabsl(re);
            mag_im += fabsl(im);
        } else {
            exact *= re + im * I;
            mag_re *= hypotl(re, im);
            mag_im = mag_re;
        }
    }
    if (c->op == O_PROD)
        g *= 4;
    long double re = load_float(p, t->fprec), im = load_float(p + half, t->fprec);
    long double e_re = fabsl(re - creall(exact)), e_im = fabsl(im - cimagl(exact));
    if (!(e_re <= g * mag_re + LDBL_MIN) || !(e_im <= g * mag_im + LDBL_MIN)) {
        snprintf(why, whylen, "element %ld: %.21Lg%+.21Lgi, exact %.21Lg%+.21Lgi", j, re, im,
                 creall(exact), cimagl(exact));
        return 0;
    }
    return 1;
}

/* A reduction's result of `count` elements (first: its first base element
 * in the whole vector) over ranks lo..hi-1: bitwise (its hash) or, for
 * inexact floats, checked here ("~hash ok"). */
static void log_reduce(struct logbuf *b, const char *name, const unsigned char *p,
                       const struct call *c, long count, long first, int lo, int hi)
{
    struct fz_hash h;
    fz_hash_init(&h);
    hash_reduce(&h, p, c, count);
    uint64_t hash = fz_hash_end(&h);
    if (!inexact(c->op, rtypes[c->type].kind)) {
        logf_(b, " %s=%016" PRIx64, name, hash);
        if (rspan(c, count) <= HEX_MAX && count > 0 && !c->rvec &&
            rtypes[c->type].sig == rtypes[c->type].size && rtypes[c->type].kind != R_PAIR) {
            logf_(b, ":");
            for (long i = 0; i < rspan(c, count); i++)
                logf_(b, "%02x", p[i]);
        }
        return;
    }
    char why[256] = "";
    int ok = 1;
    for (long j = 0; j < relems(c, count) && ok; j++)
        ok = float_ok(p + roff(c, j), c, lo, hi, first + j, why, sizeof why);
    if (c->rvec) /* the holes are kept */
        for (long e = 0; e < count && ok; e++)
            for (int k = 0; k < rtypes[c->type].size; k++)
                if (p[e * 3 * rtypes[c->type].size + rtypes[c->type].size + k] != SENTINEL) {
                    snprintf(why, sizeof why, "hole of element %ld written", e);
                    ok = 0;
                    break;
                }
    logf_(b, " %s~%016" PRIx64 " %s%s", name, hash, ok ? "ok" : "BAD: ", why);
    if (!ok)
        mark_bad();
}

/* ---- running a call ---- */

/* Counts and displacements of a v variant, the same on every member: for
 * block i (of n) count cnt[i] (0..count), blocks in a random order with
 * gaps of 0-3 elements; returns the buffer's length in elements. */
static long layout(uint64_t key, int n, long count, int *cnt, int *displ, int same)
{
    struct rng g = {key};
    int order[64];
    for (int i = 0; i < n; i++) {
        cnt[i] = same ? (int)count : (int)below(&g, count + 1);
        order[i] = i;
    }
    for (int i = n - 1; i > 0; i--) {
        int k = (int)below(&g, i + 1), x = order[i];
        order[i] = order[k];
        order[k] = x;
    }
    long at = 0;
    for (int i = 0; i < n; i++) {
        at += below(&g, 4);
        displ[order[i]] = (int)at;
        at += cnt[order[i]];
    }
    return at;
}

/* A buffer of the call's kind (stack: reserved by the caller; too large
 * for the stack or the static area: malloc's); *owned when malloc's. */
static unsigned char *get_buf(int kind, int thread, int which, long bytes, void *stack, int *owned)
{
    *owned = 0;
    if (kind == B_STACK && stack)
        return stack;
    if (kind == B_STATIC && bytes <= STATIC_BYTES)
        return static_mem[thread < 0 ? 0 : thread][which];
    *owned = 1;
    unsigned char *p = malloc((size_t)(bytes ? bytes : 1));
    if (!p) {
        fprintf(stderr, "coll_fuzz: out of memory (%ld bytes)\n", bytes);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

static int stack_bytes(const struct call *c, long bytes)
{
    return c->buf == B_STACK && bytes <= STACK_MAX;
}

/* The byte lengths of a call's send and receive buffers on rank r of n. */
struct lens {
    long send, recv;
};

/* The call itself, on buffers that run_call found (the stack's live in
 * run_call's frame). */
static void run_body(const struct call *c, int idx, struct logbuf *b, unsigned char *sbuf,
                     unsigned char *rbuf, int n, int r, MPI_Comm comm);

static void lens_of(const struct call *c, int n, int r, struct lens *L)
{
    long span = is_reduction(c->coll) ? rspan(c, 1) : dtype_extent[c->type];
    long blk = c->count * span;
    int cnt[64], displ[64];
    L->send = L->recv = 0;
    switch (c->coll) {
    case C_BARRIER:
        break;
    case C_BCAST:
        L->recv = blk;
        break;
    case C_REDUCE:
    case C_ALLREDUCE:
    case C_SCAN:
    case C_EXSCAN:
    case C_REDUCE_SCATTER_BLOCK:
        L->send = c->coll == C_REDUCE_SCATTER_BLOCK ? n * blk : blk;
        L->recv = c->coll == C_REDUCE_SCATTER_BLOCK && !c->inplace ? blk : L->send;
        break;
    case C_REDUCE_SCATTER: {
        long all = 0;
        layout(c->key, n, c->count, cnt, displ, 0);
        for (int i = 0; i < n; i++)
            all += cnt[i];
        L->send = all * span;
        L->recv = c->inplace ? L->send : cnt[r] * span;
        break;
    }
    case C_GATHER:
    case C_SCATTER:
    case C_ALLGATHER:
    case C_ALLTOALL:
        L->send = blk * (c->coll == C_SCATTER || c->coll == C_ALLTOALL ? n : 1);
        L->recv = blk * (c->coll == C_SCATTER ? 1 : n);
        break;
    case C_GATHERV:
    case C_SCATTERV:
    case C_ALLGATHERV:
        L->send = L->recv = layout(c->key, n, c->count, cnt, displ, 0) * span;
        if (c->coll != C_SCATTERV)
            L->send = (long)cnt[r] * span;
        else
            L->recv = (long)cnt[r] * span;
        break;
    default: /* alltoallv, alltoallw: at most count elements a pair */
        L->send = L->recv = n * (c->count + 3) * span * 2 + 64;
    }
}

static void run_call(const struct call *c, int idx, struct logbuf *b)
{
    MPI_Comm comm = comms[c->comm];
    int n, r;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &r);
    struct lens L;
    lens_of(c, n, r, &L);
    /* Stack buffers: here, in this frame. */
    unsigned char *sst = stack_bytes(c, L.send) ? alloca((size_t)L.send + 1) : NULL;
    unsigned char *rst = stack_bytes(c, L.recv) ? alloca((size_t)L.recv + 1) : NULL;
    int sown, rown;
    unsigned char *sbuf = get_buf(c->buf, c->thread, 0, L.send, sst, &sown);
    unsigned char *rbuf = get_buf(c->buf, c->thread, 1, L.recv, rst, &rown);
    memset(sbuf, GAP, (size_t)L.send);
    memset(rbuf, SENTINEL, (size_t)L.recv);
    run_body(c, idx, b, sbuf, rbuf, n, r, comm);
    if (sown)
        free(sbuf);
    if (rown)
        free(rbuf);
}

static void log_err(struct logbuf *b, int rc)
{
    if (rc != MPI_SUCCESS) {
        int cls;
        MPI_Error_class(rc, &cls);
        logf_(b, " error=%d", cls);
    }
}

/* A nonblocking call's request, waited for at once. */
static int nb_wait(int rc, MPI_Request *req)
{
    return rc != MPI_SUCCESS ? rc : MPI_Wait(req, MPI_STATUS_IGNORE);
}
/* The blocking collective B or, where the call says so, its nonblocking
 * form I and its wait. */
#define COLL(B, I, ...) (c->nb ? nb_wait(MPI_##I(__VA_ARGS__, &req), &req) : MPI_##B(__VA_ARGS__))

static void run_body(const struct call *c, int idx, struct logbuf *b, unsigned char *sbuf,
                     unsigned char *rbuf, int n, int r, MPI_Comm comm)
{
    MPI_Request req;
    int root = c->root_draw % n, rc = MPI_SUCCESS;
    int count = (int)c->count;
    char desc[256];
    describe(desc, sizeof desc, c, idx);
    logf_(b, "%s n=%d r=%d g=%d:", desc, n, r, colors[c->comm]);
    struct lens L;
    lens_of(c, n, r, &L);
    int red = is_reduction(c->coll);
    MPI_Datatype t = red ? (c->rvec ? rvec_types[c->type] : rtype_of(c->type)) : dtype_of(c->type);
    MPI_Datatype rt = c->flat ? MPI_INT : t;
    int rmul = c->flat ? 2 : 1; /* receive counts as ints */
    long span = red ? rspan(c, 1) : dtype_extent[c->type];
    MPI_Op op = red ? op_of(c->op) : MPI_OP_NULL;
    int ip = c->inplace;
    int cnt[64], displ[64];
    void *IP = MPI_IN_PLACE;
    switch (c->coll) {
    case C_BARRIER:
        rc = COLL(Barrier, Ibarrier, comm);
        break;
    case C_BCAST:
        if (r == root)
            fill_moving(rbuf, c->type, count, c->key, 0, 0);
        /* flat: the others describe the root's vectors as plain ints (the
         * same signature; wisp's decision is the size alone) */
        if (c->flat && r != root)
            rc = COLL(Bcast, Ibcast, rbuf, 2 * count, MPI_INT, root, comm);
        else
            rc = COLL(Bcast, Ibcast, rbuf, count, t, root, comm);
        if (rc == MPI_SUCCESS)
            log_bytes(b, "buf", rbuf, L.recv);
        break;
    case C_REDUCE:
    case C_ALLREDUCE: {
#ifdef MPICH
        /* MPICH 4.0.2's MPI_Reduce in place at a root other than 0 crashes
         * (a segfault in its memcpy) above 2 KiB, natively: 2056 bytes of
         * MPI_INT64_T, 2 or 3 processes (docs/testing.md). */
        if (c->coll == C_REDUCE && ip && root != 0 && rspan(c, count) > 1024) {
            ip = 0;
            logf_(b, " (not in place: MPICH)");
        }
#endif
        int mine = c->coll == C_ALLREDUCE ? ip : ip && r == root;
        fill_reduce(mine ? rbuf : sbuf, c, count, r, 0);
        void *recv = c->coll == C_REDUCE && r != root && c->null_insig ? NULL : rbuf;
        if (c->coll == C_REDUCE)
            rc = COLL(Reduce, Ireduce, mine ? IP : sbuf, recv, count, t, op, root, comm);
        else
            rc = COLL(Allreduce, Iallreduce, mine ? IP : sbuf, rbuf, count, t, op, comm);
        if (rc != MPI_SUCCESS)
            break;
        if (c->coll == C_ALLREDUCE || r == root)
            log_reduce(b, "res", rbuf, c, count, 0, 0, n);
        if (!mine)
            log_bytes(b, "send", sbuf, L.send);
        break;
    }
    case C_SCAN:
    case C_EXSCAN:
        fill_reduce(ip ? rbuf : sbuf, c, count, r, 0);
        rc = c->coll == C_SCAN ? COLL(Scan, Iscan, ip ? IP : sbuf, rbuf, count, t, op, comm)
                               : COLL(Exscan, Iexscan, ip ? IP : sbuf, rbuf, count, t, op, comm);
        if (rc != MPI_SUCCESS)
            break;
        if (c->coll == C_SCAN || r > 0)
            log_reduce(b, "res", rbuf, c, count, 0, 0, c->coll == C_SCAN ? r + 1 : r);
        if (!ip)
            log_bytes(b, "send", sbuf, L.send);
        break;
    case C_REDUCE_SCATTER_BLOCK:
    case C_REDUCE_SCATTER: {
        long all = 0, mine_at = 0;
        if (c->coll == C_REDUCE_SCATTER) {
            layout(c->key, n, c->count, cnt, displ, 0);
        } else
            for (int i = 0; i < n; i++)
                cnt[i] = count;
        for (int i = 0; i < n; i++) {
            if (i == r)
                mine_at = all;
            all += cnt[i];
        }
#ifdef MPICH
        /* MPICH 4.0.2's MPI_Reduce_scatter in place with counts not all
         * equal fails natively on 3 or 4 processes from some 512 KiB
         * ("memcpy argument memory ranges overlap", typerep_yaksa_pack.c
         * 286: counts 29000 30000 30000 of MPI_LONG; docs/testing.md). */
        if (c->coll == C_REDUCE_SCATTER && ip && all * span > (128 << 10) && n > 2) {
            ip = 0;
            logf_(b, " (not in place: MPICH)");
        }
#endif
        fill_reduce(ip ? rbuf : sbuf, c, all, r, 0);
        if (c->coll == C_REDUCE_SCATTER)
            rc = COLL(Reduce_scatter, Ireduce_scatter, ip ? IP : sbuf, rbuf, cnt, t, op, comm);
        else
            rc = COLL(Reduce_scatter_block, Ireduce_scatter_block, ip ? IP : sbuf, rbuf, count, t,
                      op, comm);
        if (rc != MPI_SUCCESS)
            break;
        log_reduce(b, "res", rbuf, c, cnt[r], relems(c, mine_at), 0, n);
        if (!ip)
            log_bytes(b, "send", sbuf, L.send);
        break;
    }
    case C_GATHER:
    case C_ALLGATHER: {
        int all = c->coll == C_ALLGATHER;
        int mine = ip && (all || r == root) && !c->flat; /* my block already in place */
        if (mine)
            fill_moving(rbuf + (long)r * count * span, c->type, count, c->key, r, 0);
        else
            fill_moving(sbuf, c->type, count, c->key, r, 0);
        void *recv = !all && r != root && c->null_insig ? NULL : rbuf;
        if (all)
            rc = COLL(Allgather, Iallgather, mine ? IP : sbuf, count, t, rbuf, count * rmul, rt,
                      comm);
        else
            rc = COLL(Gather, Igather, mine ? IP : sbuf, count, t, recv, count * rmul, rt, root,
                      comm);
        if (rc != MPI_SUCCESS)
            break;
        if (all || r == root)
            log_bytes(b, "recv", rbuf, L.recv);
        if (!mine)
            log_bytes(b, "send", sbuf, L.send);
        break;
    }
    case C_GATHERV:
    case C_ALLGATHERV: {
        int all = c->coll == C_ALLGATHERV;
        layout(c->key, n, c->count, cnt, displ, 0);
        int mine = ip && (all || r == root) && !c->flat; /* in place: one type, one extent */
        if (mine)
            fill_moving(rbuf + (long)displ[r] * span, c->type, cnt[r], c->key, r, 0);
        else
            fill_moving(sbuf, c->type, cnt[r], c->key, r, 0);
        int rc_[64], rd[64];
        for (int i = 0; i < n; i++) { /* flat: ints, and a vector's extent is 3 of them */
            rc_[i] = cnt[i] * rmul;
            rd[i] = c->flat ? displ[i] * 3 : displ[i];
        }
        void *recv = !all && r != root && c->null_insig ? NULL : rbuf;
        if (all)
            rc =
                COLL(Allgatherv, Iallgatherv, mine ? IP : sbuf, cnt[r], t, rbuf, rc_, rd, rt, comm);
        else
            rc =
                COLL(Gatherv, Igatherv, mine ? IP : sbuf, cnt[r], t, recv, rc_, rd, rt, root, comm);
        if (rc != MPI_SUCCESS)
            break;
        if (all || r == root)
            log_bytes(b, "recv", rbuf, L.recv);
        if (!mine)
            log_bytes(b, "send", sbuf, L.send);
        break;
    }
    case C_SCATTER: {
        int mine = ip && r == root;
        if (r == root)
            for (int i = 0; i < n; i++)
                fill_moving(sbuf + (long)i * count * span, c->type, count, c->key, i, 0);
        void *send = r != root && c->null_insig ? NULL : sbuf;
        /* flat: the root sends vectors, the others receive ints */
        rc = COLL(Scatter, Iscatter, send, count, t, mine ? IP : rbuf,
                  count * (r == root ? 1 : rmul), r == root ? t : rt, root, comm);
        if (rc != MPI_SUCCESS)
            break;
        if (!mine)
            log_bytes(b, "recv", rbuf, c->flat && r != root ? count * 8 : L.recv);
        if (r == root)
            log_bytes(b, "send", sbuf, L.send);
        break;
    }
    case C_SCATTERV: {
        layout(c->key, n, c->count, cnt, displ, 0);
        int mine = ip && r == root;
        if (r == root)
            for (int i = 0; i < n; i++)
                fill_moving(sbuf + (long)displ[i] * span, c->type, cnt[i], c->key, i, 0);
        void *send = r != root && c->null_insig ? NULL : sbuf;
        rc = COLL(Scatterv, Iscatterv, send, cnt, displ, t, mine ? IP : rbuf,
                  cnt[r] * (r == root ? 1 : rmul), r == root ? t : rt, root, comm);
        if (rc != MPI_SUCCESS)
            break;
        if (!mine)
            log_bytes(b, "recv", rbuf, c->flat && r != root ? cnt[r] * 8L : L.recv);
        if (r == root)
            log_bytes(b, "send", sbuf, L.send);
        break;
    }
    case C_ALLTOALL: {
        int mine = ip && !c->flat;
        unsigned char *src = mine ? rbuf : sbuf;
        for (int i = 0; i < n; i++) /* block for i: from rank r, numbered r*n+i */
            fill_moving(src + (long)i * count * span, c->type, count, c->key, r * n + i, 0);
        rc = COLL(Alltoall, Ialltoall, mine ? IP : sbuf, count, t, rbuf, count * rmul, rt, comm);
        if (rc != MPI_SUCCESS)
            break;
        log_bytes(b, "recv", rbuf, c->flat ? (long)n * count * 8 : L.recv);
        if (!mine)
            log_bytes(b, "send", sbuf, L.send);
        break;
    }
    case C_ALLTOALLV:
    case C_ALLTOALLW: {
        /* m[i][j]: elements from i to j (0..count); symmetric in place. */
        struct rng g = {c->key};
        int m[16][16];
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                m[i][j] = (int)below(&g, c->count + 1);
#ifdef OPEN_MPI
        /* Open MPI 4.1.4's MPI_Ialltoallw in place hangs natively where a
         * rank exchanges nothing: counts {0, 0} and {0, 2} on 2 processes,
         * the second never completes (docs/testing.md). */
        if (c->coll == C_ALLTOALLW && c->nb && ip) {
            ip = 0;
            logf_(b, " (not in place: Open MPI)");
        }
#endif
        int mine = ip && !c->flat;
        if (mine)
            for (int i = 0; i < n; i++)
                for (int j = 0; j < i; j++)
                    m[i][j] = m[j][i];
        int sc[16], sd[16], rcn[16], rd[16];
        MPI_Datatype st[16], rtt[16];
        long sat = 0, rat = 0;
        /* Open MPI 4.1.4's MPI_Alltoallw on one process scales the byte
         * displacements by the extent again: it reads and writes outside
         * the buffers (docs/testing.md); there, no gaps. */
        int gaps = 1;
#ifdef OPEN_MPI
        gaps = !(c->coll == C_ALLTOALLW && n == 1);
#endif
        for (int j = 0; j < n; j++) { /* blocks in order, gaps of 0-3 elements */
            sat += below(&g, 4) * gaps;
            rat += below(&g, 4) * gaps;
            sc[j] = m[r][j];
            rcn[j] = m[j][r];
            sd[j] = (int)sat;
            rd[j] = (int)rat;
            sat += sc[j];
            rat += rcn[j];
        }
        unsigned char *src = mine ? rbuf : sbuf;
        int *disp = mine ? rd : sd;
        for (int j = 0; j < n; j++)
            fill_moving(src + (long)disp[j] * span, c->type, mine ? rcn[j] : sc[j], c->key,
                        r * n + j, 0);
        if (c->coll == C_ALLTOALLV) {
            int rc2[16], rd2[16];
            for (int j = 0; j < n; j++) {
                rc2[j] = rcn[j] * rmul;
                rd2[j] = c->flat ? rd[j] * 3 : rd[j];
            }
            rc = COLL(Alltoallv, Ialltoallv, mine ? IP : sbuf, sc, sd, t, rbuf, rc2, rd2, rt, comm);
        } else { /* byte displacements; per peer the type or (vec) its flat form */
            int sdb[16], rdb[16], rc2[16];
            for (int j = 0; j < n; j++) {
                sdb[j] = sd[j] * (int)span;
                rdb[j] = rd[j] * (int)span;
                st[j] = t;
                rtt[j] = t;
                rc2[j] = rcn[j];
                if (c->type == D_VEC && mix(c->key + (uint64_t)(r * n + j)) % 2 && !mine) {
                    rtt[j] = MPI_INT; /* the same signature: 2 ints an element */
                    rc2[j] = 2 * rcn[j];
                }
            }
            rc = COLL(Alltoallw, Ialltoallw, mine ? IP : sbuf, sc, sdb, st, rbuf, rc2, rdb, rtt,
                      comm);
        }
        if (rc != MPI_SUCCESS)
            break;
        log_bytes(b, "recv", rbuf, (rat + 4) * span);
        if (!mine)
            log_bytes(b, "send", sbuf, (sat + 4) * span);
        break;
    }
    }
    log_err(b, rc);
    logf_(b, "\n");
}

/* ---- programs ---- */

struct tjob {
    const struct program *p;
    int thread, from, to; /* its calls: those of the part [from, to) that are its own */
    const char *only;
    struct logbuf log;
};

static int wanted(const char *only, int idx)
{
    if (!only)
        return 1;
    for (const char *s = only; *s;) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s)
            break;
        if (v == idx)
            return 1;
        s = *end == ',' ? end + 1 : end;
    }
    return 0;
}

static void *thread_main(void *arg)
{
    struct tjob *j = arg;
    for (int i = j->from; i < j->to; i++)
        if (j->p->calls[i].thread == j->thread && wanted(j->only, i)) {
            at_call[j->thread] = i;
            run_call(&j->p->calls[i], i, &j->log);
        }
    return NULL;
}

static void make_comms(void)
{
    comms[K_WORLD] = MPI_COMM_WORLD;
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[K_DUP]);
    colors[K_HALF] = me >= nprocs / 2;
    MPI_Comm_split(MPI_COMM_WORLD, colors[K_HALF], me, &comms[K_HALF]);
    colors[K_PARITY] = me % 2;
    MPI_Comm_split(MPI_COMM_WORLD, colors[K_PARITY], me, &comms[K_PARITY]);
    MPI_Comm_split(MPI_COMM_WORLD, 0, nprocs - me, &comms[K_REV]);
    if (threaded) {
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[K_T0]);
        MPI_Comm_split(MPI_COMM_WORLD, 0, nprocs - me, &comms[K_T1]);
    }
    for (int k = 0; k < NKINDS; k++)
        if (k < K_T0 || threaded)
            MPI_Comm_set_errhandler(comms[k], MPI_ERRORS_RETURN);
}

static void free_comms(void)
{
    for (int k = K_DUP; k < NKINDS; k++)
        if (k < K_T0 || threaded)
            MPI_Comm_free(&comms[k]);
}

static void run_program(uint64_t seed, int max_calls, const char *only)
{
    struct program prog;
    at_seed = seed;
    generate(&prog, seed, nprocs, threaded, max_calls);
    fprintf(logfile, "program %" PRIu64 " np=%d calls=%d threads=%d\n", seed, nprocs, prog.ncalls,
            threaded);
    make_comms();
    struct logbuf main_log = {0};
    int i = 0;
    while (i < prog.ncalls) {
        if (prog.calls[i].thread < 0) {
            if (wanted(only, i)) {
                at_call[0] = i;
                run_call(&prog.calls[i], i, &main_log);
                flush_log(&main_log);
            }
            i++;
            continue;
        }
        int end = i; /* a part of two threads, each on its own communicator */
        while (end < prog.ncalls && prog.calls[end].thread >= 0)
            end++;
        struct tjob jobs[2] = {{&prog, 0, i, end, only, {0}}, {&prog, 1, i, end, only, {0}}};
        pthread_t th;
        pthread_create(&th, NULL, thread_main, &jobs[1]);
        thread_main(&jobs[0]);
        pthread_join(th, NULL);
        for (int k = 0; k < 2; k++) { /* thread 0's lines, then thread 1's */
            flush_log(&jobs[k].log);
            free(jobs[k].log.s);
        }
        i = end;
    }
    free(main_log.s);
    free_comms();
    MPI_Barrier(MPI_COMM_WORLD);
    fprintf(logfile, "end %" PRIu64 "\n", seed);
    fflush(logfile);
    free(prog.calls);
}

static void make_types(void)
{
    MPI_Type_vector(2, 1, 2, MPI_INT, &vec_type);
    MPI_Type_commit(&vec_type);
    MPI_Datatype st, parts[2] = {MPI_INT, MPI_SHORT};
    int lens[2] = {1, 1};
    MPI_Aint offs[2] = {0, 6};
    MPI_Type_create_struct(2, lens, offs, parts, &st);
    MPI_Type_create_resized(st, 0, 8, &struct_type);
    MPI_Type_free(&st);
    MPI_Type_commit(&struct_type);
    MPI_Type_contiguous(4, MPI_UINT32_T, &mat_type);
    MPI_Type_commit(&mat_type);
    for (int t = 0; t < NRTYPES; t++) {
        int k = rtypes[t].kind;
        rvec_types[t] = MPI_DATATYPE_NULL;
        if (k == R_USER_C) {
            MPI_Type_vector(2, 1, 2, rtype_of(t), &rvec_types[t]);
            MPI_Type_commit(&rvec_types[t]);
        }
        MPI_Aint lb, ext;
        MPI_Type_get_extent(rtype_of(t), &lb, &ext);
        if (ext != rtypes[t].size) {
            fprintf(stderr, "coll_fuzz: %s has extent %ld, not %d\n", rtypes[t].name, (long)ext,
                    rtypes[t].size);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    MPI_Op_create(user_comm_fn, 1, &user_comm_op);
    MPI_Op_create(user_noncomm_fn, 0, &user_noncomm_op);
}

static void free_types(void)
{
    for (int t = 0; t < NRTYPES; t++)
        if (rvec_types[t] != MPI_DATATYPE_NULL)
            MPI_Type_free(&rvec_types[t]);
    MPI_Type_free(&vec_type);
    MPI_Type_free(&struct_type);
    MPI_Type_free(&mat_type);
    MPI_Op_free(&user_comm_op);
    MPI_Op_free(&user_noncomm_op);
}

int main(int argc, char **argv)
{
    const char *pos[3] = {NULL, NULL, "1"}, *only = NULL;
    int npos = 0, max_calls = 30, watchdog_s = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--threads"))
            threaded = 1;
        else if (!strcmp(argv[i], "--max-calls") && i + 1 < argc)
            max_calls = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = argv[++i];
        else if (!strcmp(argv[i], "--watchdog") && i + 1 < argc)
            watchdog_s = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--dump"))
            pos[npos++] = "--dump";
        else if (npos < 3)
            pos[npos++] = argv[i];
    }
    if (npos >= 3 && !strcmp(pos[0], "--dump")) { /* the program in words; no MPI */
        struct program p;
        int np = atoi(pos[2]);
        generate(&p, strtoull(pos[1], NULL, 10), np, threaded, max_calls < 1 ? 1 : max_calls);
        printf("program %s np=%d calls=%d threads=%d\n", pos[1], np, p.ncalls, threaded);
        for (int i = 0; i < p.ncalls; i++) {
            char s[256];
            describe(s, sizeof s, &p.calls[i], i);
            printf("%s\n", s);
        }
        free(p.calls);
        return 0;
    }
    int provided;
    MPI_Init_thread(&argc, &argv, threaded ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (npos < 2 || max_calls < 1 || nprocs > 16 || (threaded && provided < MPI_THREAD_MULTIPLE)) {
        if (me == 0)
            fprintf(stderr, "usage: coll_fuzz LOGDIR FIRST_SEED [COUNT] [--threads] "
                            "[--max-calls N] [--only CALLS] [--watchdog S]\n"
                            "       coll_fuzz --dump SEED NP [--threads] [--max-calls N]\n"
                            "(at most 16 processes; --threads needs MPI_THREAD_MULTIPLE)\n");
        MPI_Finalize();
        return 2;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    char path[4096];
    snprintf(path, sizeof path, "%s/r%d.log", pos[0], me);
    logfile = fopen(path, "w");
    if (!logfile) {
        perror(path);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (watchdog_s > 0) {
        signal(SIGALRM, watchdog);
        alarm((unsigned)watchdog_s);
    }
    make_types();
    uint64_t first = strtoull(pos[1], NULL, 10);
    long count = atol(pos[2]);
    for (long k = 0; k < count; k++)
        run_program(first + (uint64_t)k, max_calls, only);
    free_types();
    fclose(logfile);
    /* Under wisp, how many calls it served (the driver sums them up). */
    unsigned long long (*counter)(const char *) =
        (unsigned long long (*)(const char *))dlsym(RTLD_DEFAULT, "wisp_coll_counter");
    if (counter && me == 0)
        fprintf(stderr, "coll_fuzz: rank 0: wisp served %llu collectives, passed %llu\n",
                counter("served"), counter("passed"));
    int bad = bad_lines, any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return any ? 1 : 0;
}
