/*
 * The elements the ghost layer cuts operations into (src/ghost/elements.c,
 * compiled into this program with src/dt): the offsets it takes from the
 * datatype engine against those the MPI's MPI_Pack spells out (the way
 * elements.c found them before the engine, and still does for types the
 * engine refuses), for random nested derived types whose leaves are one
 * predefined type, and some of several (then elements are bytes):
 * t_ghost_elements SEED [SHAPES] (default 3000 shapes).
 *
 * Shapes: contiguous, vectors and hvectors (negative strides), indexed
 * forms with zero-length blocks, structs of one leaf type (MPI_LB/MPI_UB
 * markers where the MPI has them), subarrays in both orders, resized
 * types, the MINLOC pair types as leaves (an element is the pair), and
 * types of absolute addresses used with MPI_BOTTOM; counts 0-3. Every
 * offset, in order, and the element count must agree. Then the figures:
 * microseconds per call of either way for a vector of 4096 doubles at a
 * stride of 2 and faces of a 64^3 grid of doubles (printed, not asserted).
 */
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "dt/dt.h"
#include "ghost/elements.h"
#include "random_types.h"

/* elements.c's way out when memory is short (core/log.c in libwisp). */
_Noreturn void wisp_fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}

static MPI_Datatype any_leaf(void)
{
    const MPI_Datatype all[] = {MPI_CHAR,       MPI_SHORT,       MPI_INT,
                                MPI_DOUBLE,     MPI_LONG_DOUBLE, MPI_C_DOUBLE_COMPLEX,
                                MPI_DOUBLE_INT, MPI_2INT,        MPI_SHORT_INT,
                                MPI_FLOAT_INT,  MPI_BYTE};
    return all[rr(0, (int64_t)(sizeof all / sizeof *all) - 1)];
}

/* The leaf of the shape being built; NULL: a random one each time. */
static MPI_Datatype the_leaf;

/* Whether the shape being built has a long double: MPICH 4.0.2 and Open
 * MPI 5.0.11 pack 10 of its 16 bytes where the layout is not contiguous and
 * leave the other 6 of the stream unwritten (docs/datatypes.md), so
 * MPI_Pack cannot tell the offsets of those bytes: a type of several leaf
 * types (elements of one byte) with a long double is compared on Open MPI
 * 4 only, which packs all 16. */
static bool long_double;

static MPI_Datatype leaf(void)
{
    MPI_Datatype t = the_leaf != MPI_DATATYPE_NULL ? the_leaf : any_leaf();
    long_double |= t == MPI_LONG_DOUBLE;
    return t;
}

/* The shapes' constructors: dt_random's but for distributed arrays and the
 * MPI-1 ones (MPI_LB/MPI_UB markers are among the structs'). */
static const enum gen_kind one_leaf_kinds[] = {
    GEN_CONTIGUOUS, GEN_VECTOR, GEN_HVECTOR,  GEN_INDEXED, GEN_INDEXED_BLOCK,
    GEN_STRUCT,     GEN_STRUCT, GEN_SUBARRAY, GEN_RESIZED, GEN_DUP};
static const struct gen_cases shape_cases = {
    .kinds = one_leaf_kinds,
    .nkinds = (int)(sizeof one_leaf_kinds / sizeof *one_leaf_kinds),
    .max_fields = 4,
    .mpi1 = false,
};

/* The constructors of t, as the MPI says them (to reproduce a failure). */
static void show(MPI_Datatype t, int depth)
{
    int ni, na, nt, combiner;
    MPI_Type_get_envelope(t, &ni, &na, &nt, &combiner);
    if (combiner == MPI_COMBINER_NAMED) {
        char name[MPI_MAX_OBJECT_NAME];
        int len;
        MPI_Type_get_name(t, name, &len);
        fprintf(stderr, "%*s%s\n", 2 * depth, "", name);
        return;
    }
    int *ints = malloc(sizeof *ints * (size_t)(ni + 1));
    MPI_Aint *addrs = malloc(sizeof *addrs * (size_t)(na + 1));
    MPI_Datatype *types = malloc(sizeof *types * (size_t)(nt + 1));
    MPI_Type_get_contents(t, ni, na, nt, ints, addrs, types);
    fprintf(stderr, "%*scombiner %d ints", 2 * depth, "", combiner);
    for (int i = 0; i < ni; i++)
        fprintf(stderr, " %d", ints[i]);
    fprintf(stderr, " addrs");
    for (int i = 0; i < na; i++)
        fprintf(stderr, " %ld", (long)addrs[i]);
    fprintf(stderr, "\n");
    for (int i = 0; i < nt; i++) {
        show(types[i], depth + 1);
        if (!is_named(types[i]))
            MPI_Type_free(&types[i]);
    }
    free(ints);
    free(addrs);
    free(types);
}

static long shapes_checked, offsets_checked, refused, skipped;

/* Both ways for (count, t) at buffer offsets: the same elements, in order. */
static void compare(MPI_Datatype t, MPI_Count count, const char *what)
{
    MPI_Datatype basic = wisp_ghost_basic_type(t);
    int esize = (int)type_size(basic), na = -1, nb = -1;
    MPI_Aint *a = wisp_ghost_element_offsets(count, t, esize, &na);
    MPI_Aint *b = wisp_ghost_element_offsets_mpi(count, t, esize, &nb);
    CHECK(a != NULL && b != NULL);
    if (a && b) {
        CHECK(na == nb);
        bool same = na == nb;
        for (int e = 0; same && e < na; e++)
            same = a[e] == b[e];
        if (!same) {
            fprintf(stderr, "%s, count %lld: %d elements of %d B, engine / MPI_Pack:\n", what,
                    (long long)count, na, esize);
            for (int e = 0; e < na && e < nb && e < 32; e++)
                fprintf(stderr, "  %d: %ld %ld\n", e, (long)a[e], (long)b[e]);
            wisp_dt_desc_t *d;
            if (wisp_dt_desc_get(t, &d) == WISP_DT_OK) {
                wisp_dt_desc_print(d, stderr);
                wisp_dt_desc_release(d);
            }
            show(t, 1);
        }
        CHECK(same);
        offsets_checked += na;
    }
    free(a);
    free(b);
}

static void check_type(MPI_Datatype t, const char *what)
{
    MPI_Type_commit(&t);
    if (long_double && wisp_ghost_basic_type(t) == MPI_BYTE && !mpi_packs_whole_long_double()) {
        skipped++;
        release(&t);
        return;
    }
    wisp_dt_desc_t *d;
    if (wisp_dt_desc_get(t, &d) == WISP_DT_OK)
        wisp_dt_desc_release(d);
    else
        refused++;
    for (MPI_Count count = 0; count <= 3; count++)
        compare(t, count, what);
    shapes_checked++;
    release(&t);
}

/* A type of absolute addresses (MPI_BOTTOM): blocks of a static array. */
static double absolute[64];

static void check_bottom(void)
{
    int n = (int)rr(1, 5), blens[5];
    MPI_Aint addrs[5];
    for (int i = 0; i < n; i++) {
        blens[i] = (int)rr(0, 3);
        MPI_Get_address(&absolute[rr(0, 60)], &addrs[i]);
    }
    MPI_Datatype t;
    MPI_Type_create_hindexed(n, blens, addrs, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    compare(t, 1, "absolute addresses");
    shapes_checked++;
    release(&t);
}

/* The cases named in the task, one at a time. */
static void check_cases(void)
{
    MPI_Datatype t, u, v;
    MPI_Type_vector(4096, 1, 2, MPI_DOUBLE, &t);
    check_type(t, "vector of 4096 doubles at a stride of 2");
    MPI_Type_vector(5, 2, -3, MPI_INT, &t);
    check_type(t, "negative stride");
    MPI_Type_vector(3, 1, 2, MPI_DOUBLE_INT, &t);
    check_type(t, "vector of MPI_DOUBLE_INT");
    MPI_Type_contiguous(3, MPI_SHORT_INT, &t);
    check_type(t, "contiguous MPI_SHORT_INT");
    MPI_Type_vector(3, 2, 4, MPI_DOUBLE, &u);
    MPI_Type_create_resized(u, -8, 40, &t);
    release(&u);
    check_type(t, "resized vector");
    int blens[4] = {2, 0, 3, 1};
    MPI_Aint displs[4] = {0, 16, 24, -16};
    MPI_Datatype types[4] = {MPI_DOUBLE, MPI_DOUBLE, MPI_DOUBLE, MPI_DOUBLE};
    MPI_Type_create_struct(4, blens, displs, types, &t);
    check_type(t, "struct of doubles with a zero-length block");
    int ib[3] = {1, 0, 2}, id[3] = {4, 0, -2};
    MPI_Type_indexed(3, ib, id, MPI_FLOAT, &t);
    check_type(t, "indexed with a zero-length block");
#ifdef HAVE_MPI1
    MPI_Datatype marks[3] = {MPI_LB, MPI_DOUBLE, MPI_UB};
    int mb[3] = {1, 2, 1};
    MPI_Aint md[3] = {-8, 0, 32};
    MPI_Type_create_struct(3, mb, md, marks, &t);
    check_type(t, "MPI_LB and MPI_UB markers");
#endif
    int sizes[3] = {8, 8, 8}, sub[3] = {8, 1, 8}, starts[3] = {0, 7, 0};
    MPI_Type_create_subarray(3, sizes, sub, starts, MPI_ORDER_C, MPI_DOUBLE, &t);
    check_type(t, "Y face of an 8^3 grid");
    MPI_Type_contiguous(2, MPI_INT, &u);
    MPI_Type_create_hvector(3, 1, 20, u, &v);
    release(&u);
    MPI_Type_contiguous(2, v, &t);
    release(&v);
    check_type(t, "nested repeats");
    /* nesting past the engine's 64: refused, the MPI answers */
    long before = refused;
    MPI_Type_vector(3, 1, 2, MPI_INT, &t);
    for (int i = 0; i < 70; i++) {
        MPI_Type_contiguous(1, t, &u);
        release(&t);
        t = u;
    }
    check_type(t, "nested 70 deep");
    CHECK(refused == before + 1);
}

static double per_call_us(MPI_Aint *(*fn)(MPI_Count, MPI_Datatype, int, int *), MPI_Datatype t,
                          int esize, int reps)
{
    int n;
    free(fn(1, t, esize, &n)); /* the engine's description built and cached */
    double t0 = MPI_Wtime();
    for (int r = 0; r < reps; r++)
        free(fn(1, t, esize, &n));
    return (MPI_Wtime() - t0) / reps * 1e6;
}

static void figures(void)
{
    struct {
        const char *name;
        MPI_Datatype type;
    } cases[3];
    MPI_Type_vector(4096, 1, 2, MPI_DOUBLE, &cases[0].type);
    cases[0].name = "vector 4096 x 1 double, stride 2";
    int sizes[3] = {64, 64, 64}, zsub[3] = {64, 64, 1}, ysub[3] = {64, 1, 64}, start[3] = {0, 0, 0};
    MPI_Type_create_subarray(3, sizes, zsub, start, MPI_ORDER_C, MPI_DOUBLE, &cases[1].type);
    cases[1].name = "Z face of a 64^3 grid of doubles (4096 x 8 B)";
    MPI_Type_create_subarray(3, sizes, ysub, start, MPI_ORDER_C, MPI_DOUBLE, &cases[2].type);
    cases[2].name = "Y face of a 64^3 grid of doubles (64 x 512 B)";
    for (int i = 0; i < 3; i++) {
        MPI_Type_commit(&cases[i].type);
        double engine = per_call_us(wisp_ghost_element_offsets, cases[i].type, 8, 200);
        double mpi = per_call_us(wisp_ghost_element_offsets_mpi, cases[i].type, 8, 20);
        printf("elements of %s: engine %.1f us, MPI_Pack %.1f us (%.1fx)\n", cases[i].name, engine,
               mpi, mpi / engine);
        release(&cases[i].type);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int seed = argc > 1 ? atoi(argv[1]) : 1;
    long shapes = argc > 2 ? atol(argv[2]) : 3000;
    rng = 0x9e3779b97f4a7c15u * (uint64_t)(seed + 1);
    check_cases();
    for (long s = 0; s < shapes; s++) {
        if (s % 16 == 15) {
            check_bottom();
            continue;
        }
        the_leaf = s % 8 == 7 ? MPI_DATATYPE_NULL : any_leaf();
        long_double = the_leaf == MPI_LONG_DOUBLE;
        check_type(gen(&shape_cases, (int)rr(1, 4)), "random shape");
    }
    the_leaf = MPI_DATATYPE_NULL;
    printf("%ld shapes, %ld offsets compared; the engine refused %ld; %ld left out (long "
           "doubles in elements of bytes, but over Open MPI 4)\n",
           shapes_checked, offsets_checked, refused, skipped);
    if (seed == 1)
        figures();
    MPI_Finalize();
    return failures ? 1 : 0;
}
