/*
 * datatypes: derived datatypes, type introspection and packing.
 *
 * Builds contiguous, vector, hvector, indexed, indexed_block, hindexed,
 * struct, 2-D and 3-D C-order subarray, darray, resized and dup types and
 * checks MPI_Type_size, MPI_Type_get_extent, MPI_Type_get_true_extent,
 * MPI_Type_get_envelope and MPI_Type_get_contents for them.  Each type's
 * layout is verified by packing a buffer of distinct values with MPI_Pack
 * and printing the selected elements.  Also checks MPI_Pack/MPI_Unpack/
 * MPI_Pack_size on a mixed message, MPI_Pack_external/MPI_Unpack_external
 * ("external32", printed byte by byte since the format is fixed),
 * communication between ranks 0 and 1 with a derived send type and a
 * different but signature-compatible receive type, and MPI_Get_elements
 * for a receive that ends in the middle of a derived type.  Designed for
 * 2..4 processes (ranks above 1 only take part in the final check).
 */
#include <mpi.h>
#include <stddef.h>

#include "check.h"

#define W    MPI_COMM_WORLD
#define NBUF 128

static const char *combiner_name(int c)
{
#define TR_CB(x)                                                                                   \
    if (c == x)                                                                                    \
    return #x
    TR_CB(MPI_COMBINER_NAMED);
    TR_CB(MPI_COMBINER_DUP);
    TR_CB(MPI_COMBINER_CONTIGUOUS);
    TR_CB(MPI_COMBINER_VECTOR);
    TR_CB(MPI_COMBINER_HVECTOR);
    TR_CB(MPI_COMBINER_INDEXED);
    TR_CB(MPI_COMBINER_HINDEXED);
    TR_CB(MPI_COMBINER_INDEXED_BLOCK);
    TR_CB(MPI_COMBINER_HINDEXED_BLOCK);
    TR_CB(MPI_COMBINER_STRUCT);
    TR_CB(MPI_COMBINER_SUBARRAY);
    TR_CB(MPI_COMBINER_DARRAY);
    TR_CB(MPI_COMBINER_RESIZED);
#undef TR_CB
    return "MPI_COMBINER_<other>";
}

/* Packs one element of an int-based type from a buffer holding 0..NBUF-1
 * (starting at the type's lower bound offset lb_ints) and formats the
 * values selected, i.e. the type map as element indices. */
static const char *layout(MPI_Datatype t, int lb_ints)
{
    static int src[NBUF];
    static char line[TR_LINE_MAX];
    for (int i = 0; i < NBUF; i++)
        src[i] = i;
    char packed[NBUF * sizeof(int)];
    int pos = 0, size = 0;
    MPI_Type_size(t, &size);
    REQUIRE(size <= (int)sizeof packed, "type too big");
    MPI_Pack(src + lb_ints, 1, t, packed, (int)sizeof packed, &pos, W);
    CHECK_INT(pos, size);
    size_t len = 0;
    line[0] = '\0';
    for (int i = 0; i < size / (int)sizeof(int) && len < sizeof line - 8; i++) {
        int v;
        memcpy(&v, packed + i * sizeof(int), sizeof v);
        len += (size_t)snprintf(line + len, sizeof line - len, i ? " %d" : "%d", v);
    }
    return line;
}

/* Prints and checks size, extent, true extent and envelope of a type. */
static void describe(const char *name, MPI_Datatype t, int size, MPI_Aint lb, MPI_Aint extent,
                     MPI_Aint true_lb, MPI_Aint true_extent, int combiner)
{
    int sz = -1;
    MPI_Aint l, e, tl, te;
    MPI_Type_size(t, &sz);
    MPI_Type_get_extent(t, &l, &e);
    MPI_Type_get_true_extent(t, &tl, &te);
    int ni, na, nd, comb;
    MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
    CHECK(sz == size, "%s size %d expected %d", name, sz, size);
    CHECK(l == lb && e == extent, "%s lb/extent %ld/%ld", name, (long)l, (long)e);
    CHECK(tl == true_lb && te == true_extent, "%s true lb/extent %ld/%ld", name, (long)tl,
          (long)te);
    CHECK(comb == combiner, "%s combiner %s", name, combiner_name(comb));
    tr_print("%s: size=%d lb=%ld extent=%ld true_lb=%ld true_extent=%ld %s\n", name, sz, (long)l,
             (long)e, (long)tl, (long)te, combiner_name(comb));
}

static void test_constructors(void)
{
    const int I = (int)sizeof(int);
    MPI_Datatype t;

    MPI_Type_contiguous(3, MPI_INT, &t);
    MPI_Type_commit(&t);
    describe("contiguous", t, 3 * I, 0, 3 * I, 0, 3 * I, MPI_COMBINER_CONTIGUOUS);
    tr_print("contiguous: elements %s\n", layout(t, 0));
    MPI_Type_free(&t);

    MPI_Type_vector(3, 2, 4, MPI_INT, &t);
    MPI_Type_commit(&t);
    describe("vector", t, 6 * I, 0, 10 * I, 0, 10 * I, MPI_COMBINER_VECTOR);
    tr_print("vector: elements %s\n", layout(t, 0));
    MPI_Type_free(&t);

    MPI_Type_create_hvector(3, 1, 5 * I, MPI_INT, &t);
    MPI_Type_commit(&t);
    describe("hvector", t, 3 * I, 0, 11 * I, 0, 11 * I, MPI_COMBINER_HVECTOR);
    tr_print("hvector: elements %s\n", layout(t, 0));
    MPI_Type_free(&t);

    int bl[3] = {1, 2, 3}, dis[3] = {0, 3, 7};
    MPI_Type_indexed(3, bl, dis, MPI_INT, &t);
    MPI_Type_commit(&t);
    describe("indexed", t, 6 * I, 0, 10 * I, 0, 10 * I, MPI_COMBINER_INDEXED);
    tr_print("indexed: elements %s\n", layout(t, 0));
    MPI_Type_free(&t);

    /* Lower bound at element 1: displacements start there. */
    int bdis[3] = {1, 5, 8};
    MPI_Type_create_indexed_block(3, 2, bdis, MPI_INT, &t);
    MPI_Type_commit(&t);
    describe("indexed_block", t, 6 * I, I, 9 * I, I, 9 * I, MPI_COMBINER_INDEXED_BLOCK);
    tr_print("indexed_block: elements %s\n", layout(t, 0));
    MPI_Type_free(&t);

    int hbl[2] = {2, 1};
    MPI_Aint hdis[2] = {0, 5 * I};
    MPI_Type_create_hindexed(2, hbl, hdis, MPI_INT, &t);
    MPI_Type_commit(&t);
    describe("hindexed", t, 3 * I, 0, 6 * I, 0, 6 * I, MPI_COMBINER_HINDEXED);
    tr_print("hindexed: elements %s\n", layout(t, 0));
    MPI_Type_free(&t);

    /* Resized: one int with lb -I and extent 3*I; three of them select
     * elements 0, 3, 6 when starting at element 0 (the lb is at -1). */
    MPI_Datatype r;
    MPI_Type_create_resized(MPI_INT, -I, 3 * I, &r);
    MPI_Type_contiguous(3, r, &t);
    MPI_Type_commit(&r);
    MPI_Type_commit(&t);
    describe("resized", r, I, -I, 3 * I, 0, I, MPI_COMBINER_RESIZED);
    describe("contiguous(resized)", t, 3 * I, -I, 9 * I, 0, 7 * I, MPI_COMBINER_CONTIGUOUS);
    tr_print("contiguous(resized): elements %s\n", layout(t, 0));
    MPI_Type_free(&t);
    MPI_Type_free(&r);
}

static void test_subarray_darray(void)
{
    const int I = (int)sizeof(int);
    MPI_Datatype t;

    int sizes2[2] = {4, 5}, sub2[2] = {2, 3}, start2[2] = {1, 1};
    MPI_Type_create_subarray(2, sizes2, sub2, start2, MPI_ORDER_C, MPI_INT, &t);
    MPI_Type_commit(&t);
    describe("subarray2d", t, 6 * I, 0, 20 * I, 6 * I, 8 * I, MPI_COMBINER_SUBARRAY);
    tr_print("subarray2d: elements %s\n", layout(t, 0));
    MPI_Type_free(&t);

    int sizes3[3] = {3, 4, 5}, sub3[3] = {2, 2, 2}, start3[3] = {1, 1, 2};
    MPI_Type_create_subarray(3, sizes3, sub3, start3, MPI_ORDER_C, MPI_INT, &t);
    MPI_Type_commit(&t);
    /* first element (1,1,2) = 27, last (2,2,3) = 53 */
    describe("subarray3d", t, 8 * I, 0, 60 * I, 27 * I, 27 * I, MPI_COMBINER_SUBARRAY);
    tr_print("subarray3d: elements %s\n", layout(t, 0));
    MPI_Type_free(&t);

    /* 4x6 global array over a 2x2 process grid, rows block-distributed and
     * columns cyclic(2); computed for every virtual rank (no communication,
     * so independent of the real process count). */
    int gsizes[2] = {4, 6}, distribs[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC};
    int dargs[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2}, psizes[2] = {2, 2};
    for (int vr = 0; vr < 4; vr++) {
        MPI_Type_create_darray(4, vr, 2, gsizes, distribs, dargs, psizes, MPI_ORDER_C, MPI_INT, &t);
        MPI_Type_commit(&t);
        int sz;
        MPI_Aint lb, ext;
        MPI_Type_size(t, &sz);
        MPI_Type_get_extent(t, &lb, &ext);
        /* columns 0,1,4,5 go to grid column 0, columns 2,3 to column 1 */
        CHECK_INT(sz, 2 * (vr % 2 == 0 ? 4 : 2) * I);
        CHECK(lb == 0 && ext == 24 * I, "darray extent %ld", (long)ext);
        tr_print("darray rank %d: size=%d extent=%ld elements %s\n", vr, sz, (long)ext,
                 layout(t, 0));
        MPI_Type_free(&t);
    }
}

/* struct { char c; double d; int i[2]; } */
struct rec {
    char c;
    double d;
    int i[2];
};

static MPI_Datatype make_rec_type(void)
{
    int bl[3] = {1, 1, 2};
    MPI_Aint dis[3] = {offsetof(struct rec, c), offsetof(struct rec, d), offsetof(struct rec, i)};
    MPI_Datatype types[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT}, s, t;
    MPI_Type_create_struct(3, bl, dis, types, &s);
    MPI_Type_create_resized(s, 0, sizeof(struct rec), &t);
    MPI_Type_free(&s);
    MPI_Type_commit(&t);
    return t;
}

static void test_struct_dup_contents(void)
{
    int bl[3] = {1, 1, 2};
    MPI_Aint dis[3] = {offsetof(struct rec, c), offsetof(struct rec, d), offsetof(struct rec, i)};
    MPI_Datatype types[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT}, s;
    MPI_Type_create_struct(3, bl, dis, types, &s);
    MPI_Type_commit(&s);
    int rsize = (int)(1 + sizeof(double) + 2 * sizeof(int));
    describe("struct", s, rsize, 0, sizeof(struct rec), 0, sizeof(struct rec), MPI_COMBINER_STRUCT);

    int ni, na, nd, comb;
    MPI_Type_get_envelope(s, &ni, &na, &nd, &comb);
    CHECK(ni == 4 && na == 3 && nd == 3, "struct envelope %d %d %d", ni, na, nd);
    int ci[4];
    MPI_Aint ca[3];
    MPI_Datatype ct[3];
    MPI_Type_get_contents(s, 4, 3, 3, ci, ca, ct);
    CHECK(ci[0] == 3 && ci[1] == 1 && ci[2] == 1 && ci[3] == 2, "struct contents ints");
    CHECK(ca[1] == dis[1] && ca[2] == dis[2], "struct contents addresses");
    CHECK(ct[0] == MPI_CHAR && ct[1] == MPI_DOUBLE && ct[2] == MPI_INT, "struct contents types");
    tr_print("struct contents: ints=%d,%d,%d,%d types_match=%d\n", ci[0], ci[1], ci[2], ci[3],
             ct[0] == MPI_CHAR && ct[1] == MPI_DOUBLE && ct[2] == MPI_INT);

    /* Vector contents: ints {count, blocklength, stride}, one datatype. */
    MPI_Datatype v, inner;
    MPI_Type_contiguous(2, MPI_INT, &inner);
    MPI_Type_vector(3, 1, 2, inner, &v);
    MPI_Type_get_envelope(v, &ni, &na, &nd, &comb);
    CHECK(ni == 3 && na == 0 && nd == 1, "vector envelope");
    int vi[3];
    MPI_Datatype vt;
    MPI_Type_get_contents(v, 3, 0, 1, vi, NULL, &vt);
    int vt_comb;
    MPI_Type_get_envelope(vt, &ni, &na, &nd, &vt_comb);
    CHECK(vt_comb == MPI_COMBINER_CONTIGUOUS, "vector inner type combiner");
    tr_print("vector contents: count=%d blocklength=%d stride=%d inner=%s\n", vi[0], vi[1], vi[2],
             combiner_name(vt_comb));
    MPI_Type_free(&vt); /* derived types returned by get_contents are new */

    MPI_Datatype d;
    MPI_Type_dup(s, &d);
    describe("dup(struct)", d, rsize, 0, sizeof(struct rec), 0, sizeof(struct rec),
             MPI_COMBINER_DUP);
    MPI_Type_get_envelope(MPI_INT, &ni, &na, &nd, &comb);
    CHECK(comb == MPI_COMBINER_NAMED, "MPI_INT is named");
    tr_print("MPI_INT envelope: %s\n", combiner_name(comb));

    MPI_Type_free(&d);
    MPI_Type_free(&v);
    MPI_Type_free(&inner);
    MPI_Type_free(&s);
}

/* MPI_Pack a mixed message (3 ints, a double, a vector of 2 ints), unpack it
 * elsewhere and compare. */
static void test_pack(void)
{
    int a[3] = {1, -2, 3}, grid[6] = {10, 11, 12, 13, 14, 15};
    double d = 2.75;
    MPI_Datatype cols;
    MPI_Type_vector(2, 1, 3, MPI_INT, &cols);
    MPI_Type_commit(&cols);

    int s1, s2, s3;
    MPI_Pack_size(3, MPI_INT, W, &s1);
    MPI_Pack_size(1, MPI_DOUBLE, W, &s2);
    MPI_Pack_size(1, cols, W, &s3);
    int total = s1 + s2 + s3;
    char *buf = malloc((size_t)total);
    int pos = 0;
    MPI_Pack(a, 3, MPI_INT, buf, total, &pos, W);
    MPI_Pack(&d, 1, MPI_DOUBLE, buf, total, &pos, W);
    MPI_Pack(grid, 1, cols, buf, total, &pos, W);
    CHECK(pos <= total, "pack position %d within pack_size %d", pos, total);

    int a2[3] = {0}, grid2[6] = {0};
    double d2 = 0;
    int upos = 0;
    MPI_Unpack(buf, pos, &upos, a2, 3, MPI_INT, W);
    MPI_Unpack(buf, pos, &upos, &d2, 1, MPI_DOUBLE, W);
    MPI_Unpack(buf, pos, &upos, grid2, 1, cols, W);
    CHECK_INT(upos, pos);
    CHECK(a2[0] == 1 && a2[1] == -2 && a2[2] == 3 && d2 == 2.75, "unpacked values");
    CHECK(grid2[0] == 10 && grid2[3] == 13 && grid2[1] == 0, "unpacked vector");
    tr_print("pack/unpack: position_within_pack_size=%d a=%d,%d,%d d=%.2f grid=%d,%d\n",
             pos <= total, a2[0], a2[1], a2[2], d2, grid2[0], grid2[3]);
    free(buf);
    MPI_Type_free(&cols);
}

static void test_pack_external(void)
{
    int a[2] = {0x01020304, -2};
    double d = 1.5;
    MPI_Aint isz, dsz;
    MPI_Pack_external_size("external32", 2, MPI_INT, &isz);
    MPI_Pack_external_size("external32", 1, MPI_DOUBLE, &dsz);
    CHECK(isz == 8 && dsz == 8, "external32 sizes %ld %ld", (long)isz, (long)dsz);
    unsigned char buf[16];
    MPI_Aint pos = 0;
    MPI_Pack_external("external32", a, 2, MPI_INT, buf, sizeof buf, &pos);
    MPI_Pack_external("external32", &d, 1, MPI_DOUBLE, buf, sizeof buf, &pos);
    CHECK(pos == 16, "external32 position %ld", (long)pos);
    char hex[64];
    for (int i = 0; i < 16; i++)
        snprintf(hex + 2 * i, 3, "%02x", buf[i]);
    CHECK(strcmp(hex, "01020304fffffffe3ff8000000000000") == 0, "external32 bytes %s", hex);
    tr_print("pack_external: sizes=%ld,%ld bytes=%s\n", (long)isz, (long)dsz, hex);

    int a2[2] = {0, 0};
    double d2 = 0;
    MPI_Aint upos = 0;
    MPI_Unpack_external("external32", buf, sizeof buf, &upos, a2, 2, MPI_INT);
    MPI_Unpack_external("external32", buf, sizeof buf, &upos, &d2, 1, MPI_DOUBLE);
    CHECK(a2[0] == a[0] && a2[1] == -2 && d2 == 1.5 && upos == 16, "unpack_external");
    tr_print("unpack_external: a=0x%08x,%d d=%.1f\n", (unsigned)a2[0], a2[1], d2);
}

/* Rank 0 sends column 2 of a 4x4 grid (vector) and an array of records;
 * rank 1 receives the column through an indexed type with the same
 * signature and the records through one struct type that scatters the
 * fields into separate arrays. */
struct columns {
    char c[3];
    double d[3];
    int i[6];
};

static MPI_Datatype make_columns_type(struct columns *cols)
{
    int bl[9];
    MPI_Aint base, dis[9];
    MPI_Datatype types[9], t;
    MPI_Get_address(cols, &base);
    for (int k = 0; k < 3; k++) {
        MPI_Get_address(&cols->c[k], &dis[3 * k]);
        MPI_Get_address(&cols->d[k], &dis[3 * k + 1]);
        MPI_Get_address(&cols->i[2 * k], &dis[3 * k + 2]);
        for (int j = 0; j < 3; j++)
            dis[3 * k + j] -= base;
        bl[3 * k] = bl[3 * k + 1] = 1;
        bl[3 * k + 2] = 2;
        types[3 * k] = MPI_CHAR;
        types[3 * k + 1] = MPI_DOUBLE;
        types[3 * k + 2] = MPI_INT;
    }
    MPI_Type_create_struct(9, bl, dis, types, &t);
    MPI_Type_commit(&t);
    return t;
}

static void test_send_recv_types(void)
{
    if (tr_rank == 0) {
        int grid[4][4];
        for (int i = 0; i < 16; i++)
            grid[i / 4][i % 4] = i;
        MPI_Datatype col;
        MPI_Type_vector(4, 1, 4, MPI_INT, &col);
        MPI_Type_commit(&col);
        MPI_Send(&grid[0][2], 1, col, 1, 1, W);
        MPI_Type_free(&col);

        struct rec recs[3];
        for (int k = 0; k < 3; k++) {
            recs[k].c = (char)('a' + k);
            recs[k].d = k + 0.5;
            recs[k].i[0] = 10 * k;
            recs[k].i[1] = 10 * k + 1;
        }
        MPI_Datatype rt = make_rec_type();
        MPI_Send(recs, 3, rt, 1, 2, W);
        MPI_Type_free(&rt);

        int report[8];
        MPI_Recv(report, 8, MPI_INT, 1, 3, W, MPI_STATUS_IGNORE);
        tr_print("vector->indexed: column %d %d %d %d\n", report[0], report[1], report[2],
                 report[3]);
        tr_print("struct[3]->struct: c[2]='%c' d[1]*2=%d i[5]=%d elements=%d\n", report[4],
                 report[5], report[6], report[7]);
    } else if (tr_rank == 1) {
        int dst[8];
        for (int i = 0; i < 8; i++)
            dst[i] = -1;
        int bl[4] = {1, 1, 1, 1}, dis[4] = {0, 2, 4, 6};
        MPI_Datatype idx;
        MPI_Type_indexed(4, bl, dis, MPI_INT, &idx);
        MPI_Type_commit(&idx);
        MPI_Status st;
        MPI_Recv(dst, 1, idx, 0, 1, W, &st);
        int count, elems;
        MPI_Get_count(&st, idx, &count);
        MPI_Get_elements(&st, idx, &elems);
        CHECK(count == 1 && elems == 4, "column count %d elements %d", count, elems);
        CHECK(dst[0] == 2 && dst[2] == 6 && dst[4] == 10 && dst[6] == 14 && dst[1] == -1,
              "column values");
        MPI_Type_free(&idx);

        struct columns cols;
        memset(&cols, 0, sizeof cols);
        MPI_Datatype ct = make_columns_type(&cols);
        MPI_Recv(&cols, 1, ct, 0, 2, W, &st);
        MPI_Get_elements(&st, ct, &elems);
        CHECK_INT(elems, 12);
        CHECK(cols.c[0] == 'a' && cols.c[2] == 'c' && cols.d[1] == 1.5 && cols.i[0] == 0 &&
                  cols.i[5] == 21,
              "records");
        MPI_Type_free(&ct);

        int report[8] = {dst[0],    dst[2], dst[4], dst[6], cols.c[2], (int)(cols.d[1] * 2),
                         cols.i[5], elems};
        MPI_Send(report, 8, MPI_INT, 0, 3, W);
    }
}

/* Partial receives: 7 ints received as pairs (count undefined, 7 basic
 * elements), and a {char, double} message received as one record
 * {char, double, int, int} (count undefined, 2 elements). */
static void test_partial_get_elements(void)
{
    struct rec r = {'x', 9.0, {-1, -1}};
    if (tr_rank == 0) {
        int v[7] = {1, 2, 3, 4, 5, 6, 7};
        MPI_Send(v, 7, MPI_INT, 1, 4, W);

        int bl[2] = {1, 1};
        MPI_Aint dis[2] = {offsetof(struct rec, c), offsetof(struct rec, d)};
        MPI_Datatype types[2] = {MPI_CHAR, MPI_DOUBLE}, head;
        MPI_Type_create_struct(2, bl, dis, types, &head);
        MPI_Type_commit(&head);
        MPI_Send(&r, 1, head, 1, 5, W);
        MPI_Type_free(&head);

        int report[5];
        MPI_Recv(report, 5, MPI_INT, 1, 6, W, MPI_STATUS_IGNORE);
        tr_print("partial ints: count_undefined=%d elements=%d elements_x=%d\n", report[0],
                 report[1], report[2]);
        tr_print("partial struct: count_undefined=%d elements=%d\n", report[3], report[4]);
    } else if (tr_rank == 1) {
        MPI_Datatype pair;
        MPI_Type_contiguous(2, MPI_INT, &pair);
        MPI_Type_commit(&pair);
        int buf[8];
        MPI_Status st;
        int count, elems;
        MPI_Recv(buf, 4, pair, 0, 4, W, &st);
        MPI_Get_count(&st, pair, &count);
        MPI_Get_elements(&st, pair, &elems);
        MPI_Count elems_x = 0;
        MPI_Get_elements_x(&st, pair, &elems_x);
        CHECK(count == MPI_UNDEFINED, "pair count %d", count);
        CHECK_INT(elems, 7);
        CHECK_INT(elems_x, 7);
        CHECK_INT(buf[6], 7);
        MPI_Type_free(&pair);

        MPI_Datatype rt = make_rec_type();
        struct rec in = {0, 0.0, {-1, -1}};
        int scount, selems;
        MPI_Recv(&in, 1, rt, 0, 5, W, &st);
        MPI_Get_count(&st, rt, &scount);
        MPI_Get_elements(&st, rt, &selems);
        CHECK(scount == MPI_UNDEFINED, "partial struct count %d", scount);
        CHECK_INT(selems, 2);
        CHECK(in.c == 'x' && in.d == 9.0 && in.i[0] == -1, "partial struct values");
        MPI_Type_free(&rt);

        int report[5] = {count == MPI_UNDEFINED, elems, (int)elems_x, scount == MPI_UNDEFINED,
                         selems};
        MPI_Send(report, 5, MPI_INT, 0, 6, W);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    tr_begin("datatypes", 2, 0);
    test_constructors();
    test_subarray_darray();
    test_struct_dup_contents();
    test_pack();
    test_pack_external();
    test_send_recv_types();
    test_partial_get_elements();
    return tr_finish();
}
