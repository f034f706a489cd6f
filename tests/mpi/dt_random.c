/*
 * wisp's datatype engine (src/dt, compiled into this program) against the
 * MPI's own MPI_Pack and MPI_Unpack, on random nested datatypes from a
 * fixed seed: t_dt_random SEED [SHAPES] (default 10000 shapes).
 *
 * Shapes: every constructor the engine describes, nested up to 4 deep, with
 * zero counts and zero-length blocks, negative strides and displacements,
 * resized types, struct fields of mixed predefined types (the MINLOC pair
 * types with their gaps among them), subarrays in both orders, MPI_LB and
 * MPI_UB markers and the MPI-1 constructors where the MPI still has them,
 * and types of absolute addresses used with MPI_BOTTOM. For each, with a
 * random count of 0-3:
 *   pack:   byte for byte what MPI_Pack makes, whole and in 2-3 chunks;
 *   iov:    the bytes gathered through the iovecs are the packed stream;
 *   unpack: into a zeroed buffer, the whole buffer as MPI_Unpack leaves
 *           it (gaps untouched), in chunks (types whose elements overlap
 *           are left out: the order of the writes decides there);
 *   copy:   into and out of another layout of the same size (bytes, a
 *           random permuted indexed layout, an earlier random shape), as
 *           MPI_Pack then MPI_Unpack leave it, in chunks.
 * Then the cases one at a time: a freed handle that comes back for another
 * type, a description held across wisp_dt_forget_all, positions past 2^32
 * in a stream of a huge count, the fast paths' node shapes, what is
 * refused, and threads sharing the cache. Distributed arrays (block,
 * cyclic, none; both orders) are among the random constructors.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "dt/dt.h"
#include "random_types.h"

static const MPI_Datatype *leaves(int *n)
{
    static MPI_Datatype t[20];
    static int count;
    if (!count) {
        MPI_Datatype all[] = {MPI_CHAR,        MPI_SHORT,
                              MPI_INT,         MPI_LONG,
                              MPI_FLOAT,       MPI_DOUBLE,
                              MPI_LONG_DOUBLE, MPI_BYTE,
                              MPI_INT64_T,     MPI_C_DOUBLE_COMPLEX,
                              MPI_DOUBLE_INT,  MPI_2INT,
                              MPI_FLOAT_INT,   MPI_LONG_INT,
                              MPI_SHORT_INT,   MPI_LONG_DOUBLE_INT,
                              MPI_C_BOOL,      MPI_UNSIGNED_SHORT};
        count = (int)(sizeof all / sizeof *all);
        memcpy(t, all, sizeof all);
    }
    *n = count;
    return t;
}

static MPI_Datatype leaf(void)
{
    int n;
    const MPI_Datatype *t = leaves(&n);
    return t[rr(0, n - 1)];
}

/* Every constructor the engine describes, the MPI-1 ones too. */
static const enum gen_kind all_kinds[] = {
    GEN_CONTIGUOUS,    GEN_VECTOR,        GEN_HVECTOR, GEN_INDEXED, GEN_INDEXED,
    GEN_INDEXED_BLOCK, GEN_INDEXED_BLOCK, GEN_STRUCT,  GEN_STRUCT,  GEN_SUBARRAY,
    GEN_RESIZED,       GEN_DUP,           GEN_DARRAY};
static const struct gen_cases shape_cases = {
    .kinds = all_kinds,
    .nkinds = (int)(sizeof all_kinds / sizeof *all_kinds),
    .max_fields = 5,
    .mpi1 = true,
};

/* ---- layouts: (buf, count, type) over a region they own ---- */

struct layout {
    MPI_Datatype type;
    void *buf; /* NULL: MPI_BOTTOM, the type's displacements absolute */
    int count;
    char *region;
    size_t rsize;
    size_t total;
    bool overlaps; /* some byte is written twice by an unpack */
    wisp_dt_desc_t *desc;
};

/* MPI_Pack and MPI_Unpack refuse a null buffer: MPI_BOTTOM goes as the
 * type shifted by one byte at address 1. */
static MPI_Datatype for_mpi(const struct layout *l, void **buf, int *count)
{
    MPI_Datatype t = l->type;
    *buf = l->buf;
    *count = l->count;
    if (!l->buf) {
        MPI_Type_create_hindexed(1, (int[]){l->count}, (MPI_Aint[]){-1}, l->type, &t);
        MPI_Type_commit(&t);
        *buf = (void *)1;
        *count = 1;
    }
    return t;
}

/* MPICH 4.0.2 divides by zero in MPI_Unpack (and MPI_Pack) of a derived
 * type of size 0: an empty stream is not asked of the MPI. */
static void mpi_pack(const struct layout *l, void *out)
{
    if (l->total == 0)
        return;
    void *buf;
    int count, pos = 0;
    MPI_Datatype t = for_mpi(l, &buf, &count);
    CHECK(PMPI_Pack(buf, count, t, out, (int)l->total + 1, &pos, MPI_COMM_SELF) == MPI_SUCCESS);
    CHECK((size_t)pos == l->total);
    if (t != l->type)
        MPI_Type_free(&t);
}

static void mpi_unpack(const void *in, const struct layout *l)
{
    if (l->total == 0)
        return;
    void *buf;
    int count, pos = 0;
    MPI_Datatype t = for_mpi(l, &buf, &count);
    CHECK(PMPI_Unpack(in, (int)l->total + 1, &pos, buf, count, t, MPI_COMM_SELF) == MPI_SUCCESS);
    CHECK((size_t)pos == l->total);
    if (t != l->type)
        MPI_Type_free(&t);
}

/* The type's constructors as the MPI tells them (failures' diagnostics). */
static void print_type(MPI_Datatype t, int depth)
{
    struct contents c;
    contents_of(t, &c, true);
    MPI_Aint lb, ext;
    MPI_Type_get_extent(t, &lb, &ext);
    fprintf(stderr, "%*scombiner %d lb %ld extent %ld size %lld", 2 * depth, "", c.combiner,
            (long)lb, (long)ext, (long long)type_size(t));
    if (c.combiner == MPI_COMBINER_NAMED) {
        fprintf(stderr, "\n");
        return;
    }
    fprintf(stderr, " ints");
    for (MPI_Count i = 0; i < c.ni; i++)
        fprintf(stderr, " %d", c.ints[i]);
    fprintf(stderr, " addrs");
    for (MPI_Count i = 0; i < c.na; i++)
        fprintf(stderr, " %ld", (long)c.addrs[i]);
    fprintf(stderr, " counts");
    for (MPI_Count i = 0; i < c.nc; i++)
        fprintf(stderr, " %lld", (long long)c.counts[i]);
    fprintf(stderr, "\n");
    for (int i = 0; i < c.nt; i++) {
        print_type(c.types[i], depth + 1);
        release(&c.types[i]);
    }
    free(c.ints);
    free(c.addrs);
    free(c.counts);
    free(c.types);
}

static void fill(struct layout *l)
{
    for (size_t i = 0; i < l->rsize; i++)
        l->region[i] = (char)rnd();
}

static void layout_free(struct layout *l)
{
    if (l->desc)
        wisp_dt_desc_release(l->desc);
    free(l->region);
    release(&l->type);
    memset(l, 0, sizeof *l);
}

/* Commit, size the region, describe; false when too large to test here. */
static bool layout_init(struct layout *l, MPI_Datatype type, int count)
{
    if (!is_named(type))
        MPI_Type_commit(&type);
    MPI_Count size = type_size(type), tlb, text, lb, ext;
    MPI_Type_get_true_extent_x(type, &tlb, &text);
    MPI_Type_get_extent_x(type, &lb, &ext);
    MPI_Count span = text + (count > 1 ? (count - 1) * (ext < 0 ? -ext : ext) : 0);
    if (size * count == 0)
        span = 0;
    if (size * count > 8192 || span > 24576) {
        release(&type);
        return false;
    }
    MPI_Count low = tlb + (count > 1 && ext < 0 ? (count - 1) * ext : 0);
    *l = (struct layout){.type = type, .count = count, .total = (size_t)(size * count)};
    l->rsize = (size_t)span + 64;
    l->region = malloc(l->rsize);
    l->buf = (void *)((uintptr_t)l->region + 32 - (uintptr_t)low);
    wisp_dt_status_t rc = wisp_dt_desc_get(type, &l->desc);
    CHECK(rc == WISP_DT_OK);
    if (rc != WISP_DT_OK) {
        l->desc = NULL;
        layout_free(l);
        return false;
    }
    CHECK(wisp_dt_desc_size(l->desc) == (uint64_t)size);
    CHECK(wisp_dt_desc_extent(l->desc) == ext);
    CHECK(wisp_dt_desc_true_lb(l->desc) == tlb);
    if (getenv("DT_TRACE")) /* the type before the MPI may crash on it */
        print_type(type, 0);
    /* an unpack of all-ones bytes sets `total` bytes unless some overlap */
    char *ones = malloc(l->total + 1);
    memset(ones, 0xff, l->total + 1);
    memset(l->region, 0, l->rsize);
    mpi_unpack(ones, l);
    size_t set = 0;
    for (size_t i = 0; i < l->rsize; i++)
        set += l->region[i] != 0;
    l->overlaps = set != l->total;
    free(ones);
    return true;
}

/* A type of absolute addresses: blocks of random types at addresses
 * inside a region of its own, used with MPI_BOTTOM. */
static bool bottom_init(struct layout *l)
{
    enum { REGION = 8192 };
    char *region = calloc(1, REGION);
    int n = (int)rr(1, 4), blens[4];
    MPI_Aint addrs[4];
    MPI_Datatype types[4];
    bool same = rr(0, 1), ok = true;
    for (int i = 0; i < n; i++) {
        types[i] = i && same ? types[0] : nonempty(gen(&shape_cases, 2));
        blens[i] = (int)rr(0, 2);
        MPI_Aint lb, ext, tlb, text;
        MPI_Type_get_extent(types[i], &lb, &ext);
        MPI_Type_get_true_extent(types[i], &tlb, &text);
        MPI_Aint span = text + (blens[i] > 1 ? (blens[i] - 1) * (ext < 0 ? -ext : ext) : 0);
        MPI_Aint low = tlb + (blens[i] > 1 && ext < 0 ? (blens[i] - 1) * ext : 0);
        if (span > REGION / 4) {
            ok = false;
            blens[i] = 0;
            span = 0;
        }
        MPI_Aint at = rr(0, REGION - span);
        MPI_Get_address(region + at, &addrs[i]);
        addrs[i] -= low;
    }
    MPI_Datatype t;
    if (same)
        MPI_Type_create_hindexed(n, blens, addrs, types[0], &t);
    else
        MPI_Type_create_struct(n, blens, addrs, types, &t);
    for (int i = 0; i < (same ? 1 : n); i++)
        release(&types[i]);
    if (!ok) {
        MPI_Type_free(&t);
        wisp_dt_forget_all();
        free(region);
        return false;
    }
    MPI_Type_commit(&t);
    if (getenv("DT_TRACE"))
        print_type(t, 0);
    *l = (struct layout){.type = t, .count = 1, .total = (size_t)type_size(t)};
    l->region = region;
    l->rsize = REGION;
    CHECK(wisp_dt_desc_get(t, &l->desc) == WISP_DT_OK);
    char *ones = malloc(l->total + 1);
    memset(ones, 0xff, l->total + 1);
    mpi_unpack(ones, l);
    size_t set = 0;
    for (size_t i = 0; i < REGION; i++)
        set += region[i] != 0;
    l->overlaps = set != l->total;
    free(ones);
    return true;
}

/* 1-3 chunks of [0, total): cut points in cuts[0..k], k returned. */
static int chunks(size_t total, size_t cuts[4])
{
    int k = (int)rr(1, 3);
    cuts[0] = 0;
    for (int i = 1; i < k; i++)
        cuts[i] = (size_t)rr(0, (int64_t)total);
    cuts[k] = total;
    for (int i = 1; i < k; i++) /* sort the inner cuts */
        for (int j = i + 1; j < k; j++)
            if (cuts[j] < cuts[i]) {
                size_t x = cuts[i];
                cuts[i] = cuts[j];
                cuts[j] = x;
            }
    return k;
}

static long long shapes_checked, unpacks_checked, copies_checked, left_alone;

/* Whether t holds a long double somewhere. */
static bool has_long_double(MPI_Datatype t)
{
    struct contents c;
    contents_of(t, &c, true);
    if (c.combiner == MPI_COMBINER_NAMED)
        return t == MPI_LONG_DOUBLE || t == MPI_LONG_DOUBLE_INT;
    bool found = false;
    for (int i = 0; i < c.nt; i++) {
        found = found || has_long_double(c.types[i]);
        release(&c.types[i]);
    }
    free(c.ints);
    free(c.addrs);
    free(c.counts);
    free(c.types);
    return found;
}

/* `mine` against what the MPI made: `zeros` from memory that held 0x00,
 * `ones` from memory that held 0xff. A byte the MPI left alone (0x00 in
 * one, 0xff in the other) is not compared, only counted: MPICH 4.0.2
 * copies the 10 bytes of an x87 long double, not its 6 of padding, where
 * it copies piecewise (Open MPI copies all 16, and so does wisp), so with
 * `long_double` (a long double in the types). Returns
 * whether all the others match; prints the first differences. */
static bool same_bytes(const char *what, const struct layout *l, const char *mine,
                       const char *zeros, const char *ones, size_t n, bool long_double)
{
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        if (mine[i] == zeros[i])
            continue;
        if (long_double && zeros[i] == 0 && (ones[i] & 0xff) == 0xff) {
            left_alone++;
            continue;
        }
        if (bad++ == 0) {
            fprintf(stderr, "%s of count %d differs:\n", what, l->count);
            wisp_dt_desc_print(l->desc, stderr);
            print_type(l->type, 1);
        }
        if (bad <= 8)
            fprintf(stderr, "  byte %zu: %02x, the MPI's %02x\n", i, mine[i] & 0xff,
                    zeros[i] & 0xff);
        if (getenv("DT_LOCATE") && bad == 1 && i + 8 <= n)
            for (size_t j = 0; j + 8 <= l->rsize; j++)
                if (memcmp(l->region + j, zeros + i, 8) == 0)
                    fprintf(stderr, "  the MPI's bytes %zu.. are at buf%+ld\n", i,
                            (long)((uintptr_t)l->region + j - (uintptr_t)l->buf));
    }
    return bad == 0;
}

/* MPI_Pack of l into memory prefilled with 0x00 (zeros) and 0xff (ones). */
static void mpi_pack2(const struct layout *l, char *zeros, char *ones)
{
    memset(zeros, 0, l->total + 1);
    memset(ones, 0xff, l->total + 1);
    mpi_pack(l, zeros);
    mpi_pack(l, ones);
}

/* MPI_Unpack of `zeros`, then of `ones`, into l's region prefilled with
 * the same: the region's two results in rz and r1. */
static void mpi_unpack2(const struct layout *l, const char *zeros, const char *ones, char *rz,
                        char *r1)
{
    memset(l->region, 0, l->rsize);
    mpi_unpack(zeros, l);
    memcpy(rz, l->region, l->rsize);
    memset(l->region, 0xff, l->rsize);
    mpi_unpack(ones, l);
    memcpy(r1, l->region, l->rsize);
}

static void check_layout(struct layout *l)
{
    size_t total = l->total, cuts[4];
    char *zeros = malloc(total + 1), *ones = malloc(total + 1), *mine = malloc(total + 1);
    char *rz = malloc(l->rsize), *r1 = malloc(l->rsize);
    bool ld = has_long_double(l->type);
    fill(l);
    mpi_pack2(l, zeros, ones);
    /* pack, whole and in chunks */
    memset(mine, 0, total + 1);
    CHECK(wisp_dt_layout_pack(l->buf, l->count, l->desc, 0, total + 5, mine) == total);
    CHECK(same_bytes("pack", l, mine, zeros, ones, total, ld));
    int k = chunks(total, cuts);
    memset(mine, 0, total + 1);
    for (int i = 0; i < k; i++)
        CHECK(wisp_dt_layout_pack(l->buf, l->count, l->desc, cuts[i], cuts[i + 1] - cuts[i],
                                  mine + cuts[i]) == cuts[i + 1] - cuts[i]);
    CHECK(same_bytes("pack in chunks", l, mine, zeros, ones, total, ld));
    /* iovecs, a few at a time */
    struct iovec iov[8];
    int max = (int)rr(1, 8), n;
    size_t at = 0;
    memset(mine, 0, total + 1);
    while (at < total) {
        size_t got = wisp_dt_layout_iov(l->buf, l->count, l->desc, at, total - at, iov, max, &n);
        CHECK(got > 0 && n > 0 && n <= max);
        if (!got)
            break;
        size_t sum = 0;
        for (int i = 0; i < n; i++) {
            memcpy(mine + at + sum, iov[i].iov_base, iov[i].iov_len);
            sum += iov[i].iov_len;
            CHECK(i == 0 || (char *)iov[i - 1].iov_base + iov[i - 1].iov_len != iov[i].iov_base);
        }
        CHECK(sum == got);
        at += got;
    }
    CHECK(same_bytes("iov", l, mine, zeros, ones, total, ld));
    /* unpack: the whole region as the MPI leaves it, gaps untouched */
    if (!l->overlaps) {
        mpi_unpack2(l, zeros, zeros, rz, r1);
        memset(l->region, 0, l->rsize);
        k = chunks(total, cuts);
        for (int i = 0; i < k; i++)
            CHECK(wisp_dt_layout_unpack(zeros + cuts[i], cuts[i], cuts[i + 1] - cuts[i], l->buf,
                                        l->count, l->desc) == cuts[i + 1] - cuts[i]);
        CHECK(same_bytes("unpack", l, l->region, rz, r1, l->rsize, ld));
        unpacks_checked++;
    }
    shapes_checked++;
    free(zeros);
    free(ones);
    free(mine);
    free(rz);
    free(r1);
}

/* Copy src -> dst (equal totals): as MPI_Pack + MPI_Unpack leave dst. */
static void check_copy(struct layout *src, struct layout *dst)
{
    if (dst->overlaps || src->total != dst->total)
        return;
    size_t total = src->total, cuts[4];
    char *zeros = malloc(total + 1), *ones = malloc(total + 1);
    char *rz = malloc(dst->rsize), *r1 = malloc(dst->rsize);
    fill(src);
    mpi_pack2(src, zeros, ones);
    mpi_unpack2(dst, zeros, ones, rz, r1);
    memset(dst->region, 0, dst->rsize);
    int k = chunks(total, cuts);
    for (int i = 0; i < k; i++)
        CHECK(wisp_dt_layout_copy(src->buf, src->count, src->desc, dst->buf, dst->count, dst->desc,
                                  cuts[i], cuts[i + 1] - cuts[i]) == cuts[i + 1] - cuts[i]);
    bool same = same_bytes("copy", dst, dst->region, rz, r1, dst->rsize,
                           has_long_double(src->type) || has_long_double(dst->type));
    CHECK(same);
    if (!same) {
        fprintf(stderr, "copy of %zu bytes in %d chunks from:\n", total, k);
        wisp_dt_desc_print(src->desc, stderr);
    }
    copies_checked++;
    free(zeros);
    free(ones);
    free(rz);
    free(r1);
}

/* A random layout of `total` bytes: bytes, or elements of a type whose
 * size divides it in permuted blocks with gaps. */
static bool other_layout(struct layout *l, size_t total)
{
    if (rr(0, 2) == 0)
        return layout_init(l, MPI_BYTE, (int)total);
    MPI_Datatype e = leaf();
    size_t es = (size_t)type_size(e);
    if (total % es)
        e = MPI_BYTE, es = 1;
    int n = (int)(total / es), blocks = 0, blens[64];
    int displs[64];
    while (n > 0 && blocks < 63) {
        blens[blocks] = (int)rr(0, n < 5 ? n : 5);
        n -= blens[blocks++];
    }
    blens[blocks++] = n;
    int at = 0;
    for (int i = 0; i < blocks; i++) {
        displs[i] = at;
        at += blens[i] + (int)rr(0, 2);
    }
    for (int i = blocks - 1; i > 0; i--) { /* permute the blocks */
        int j = (int)rr(0, i), x = displs[i];
        displs[i] = displs[j];
        displs[j] = x;
    }
    MPI_Datatype t;
    MPI_Type_indexed(blocks, blens, displs, e, &t);
    return layout_init(l, t, 1);
}

enum { POOL = 16 };

static void random_shapes(long shapes)
{
    struct layout pool[POOL] = {0};
    int next = 0;
    long made = 0;
    while (made < shapes) {
        struct layout l;
        bool ok = rr(0, 7) == 0 ? bottom_init(&l)
                                : layout_init(&l, gen(&shape_cases, (int)rr(1, 4)), (int)rr(0, 3));
        if (!ok)
            continue;
        made++;
        check_layout(&l);
        struct layout o;
        if (other_layout(&o, l.total)) {
            check_copy(&l, &o);
            check_copy(&o, &l);
            layout_free(&o);
        }
        for (int i = 0; i < POOL; i++)
            if (pool[i].type && pool[i].total == l.total && l.total) {
                check_copy(&l, &pool[i]);
                check_copy(&pool[i], &l);
                break;
            }
        if (pool[next].type)
            layout_free(&pool[next]);
        pool[next] = l;
        next = (next + 1) % POOL;
    }
    for (int i = 0; i < POOL; i++)
        if (pool[i].type)
            layout_free(&pool[i]);
}

/* ---- the cases one at a time ---- */

/* A freed handle that comes back for a new type gets the new layout; a
 * description held across the free stays valid. */
static void handle_reuse(void)
{
    int reused = 0;
    for (int i = 0; i < 200; i++) {
        MPI_Datatype a, b;
        MPI_Type_vector(3, 1, 2 + i % 3, MPI_INT, &a);
        MPI_Type_commit(&a);
        wisp_dt_desc_t *da, *db;
        CHECK(wisp_dt_desc_get(a, &da) == WISP_DT_OK);
        MPI_Datatype old = a;
        MPI_Type_free(&a);
        wisp_dt_forget_all();
        MPI_Type_contiguous(5 + i % 4, MPI_DOUBLE, &b);
        MPI_Type_commit(&b);
        reused += b == old;
        CHECK(wisp_dt_desc_get(b, &db) == WISP_DT_OK);
        CHECK(wisp_dt_desc_size(db) == (uint64_t)(8 * (5 + i % 4)));
        CHECK(wisp_dt_desc_dense(db, 2));
        CHECK(wisp_dt_desc_size(da) == 12 && !wisp_dt_desc_dense(da, 1)); /* still the old one */
        wisp_dt_desc_release(da);
        wisp_dt_desc_release(db);
        MPI_Type_free(&b);
        wisp_dt_forget_all();
    }
    printf("handle reuse: the same handle came back %d times of 200\n", reused);
}

/* Positions past 2^32: a type of extent 0 repeated 2^34 times is the same
 * 12 bytes over and over, in a few bytes of memory. */
static void huge_count(void)
{
    MPI_Datatype t;
    MPI_Type_create_hvector(2, 1, 8, MPI_FLOAT_INT, &t); /* 2 x 8 bytes at 0 and 8 */
    MPI_Datatype r;
    MPI_Type_create_resized(t, 0, 0, &r);
    MPI_Type_commit(&r);
    wisp_dt_desc_t *d;
    CHECK(wisp_dt_desc_get(r, &d) == WISP_DT_OK);
    char buf[16], one[16], out[100], expect[100];
    for (int i = 0; i < 16; i++)
        buf[i] = (char)(i + 1);
    int pos = 0;
    PMPI_Pack(buf, 1, r, one, 16, &pos, MPI_COMM_SELF);
    CHECK(pos == 16);
    MPI_Count count = 1ll << 34;
    size_t first = (1ull << 37) + 5;
    for (int i = 0; i < 100; i++)
        expect[i] = one[(first + (size_t)i) % 16];
    CHECK(wisp_dt_layout_pack(buf, count, d, first, 100, out) == 100);
    CHECK(memcmp(out, expect, 100) == 0);
    CHECK(wisp_dt_layout_pack(buf, count, d, (size_t)count * 16 - 10, 100, out) == 10);
    wisp_dt_desc_release(d);
    MPI_Type_free(&t);
    MPI_Type_free(&r);
    wisp_dt_forget_all();
}

/* The description of `t` as text. */
static char *described(MPI_Datatype t)
{
    wisp_dt_desc_t *d;
    char *text = NULL;
    size_t len;
    if (wisp_dt_desc_get(t, &d) != WISP_DT_OK)
        return strdup("refused");
    FILE *f = open_memstream(&text, &len);
    wisp_dt_desc_print(d, f);
    fclose(f);
    wisp_dt_desc_release(d);
    return text;
}

static void expect_shape(MPI_Datatype t, const char *shape)
{
    MPI_Type_commit(&t);
    char *text = described(t);
    bool found = strstr(text, shape) != NULL;
    CHECK(found);
    if (!found)
        fprintf(stderr, "expected '%s' in:\n%s", shape, text);
    free(text);
    MPI_Type_free(&t);
    wisp_dt_forget_all();
}

static void fast_shapes(void)
{
    MPI_Datatype t;
    /* a vector of 4096 blocks of 8 doubles at a stride of 64 */
    MPI_Type_vector(4096, 8, 64, MPI_DOUBLE, &t);
    expect_shape(t, "blocks off 0 size 262144 extent 2096704 count 4096 x 64 B stride 512");
    /* the faces of a 256^3 grid of doubles */
    int sizes[3] = {256, 256, 256}, x[3] = {1, 256, 256}, y[3] = {256, 1, 256},
        z[3] = {256, 256, 1}, at[3] = {0, 7, 0};
    MPI_Type_create_subarray(3, sizes, y, at, MPI_ORDER_C, MPI_DOUBLE, &t);
    expect_shape(t,
                 "blocks off 14336 size 524288 extent 134217728 count 256 x 2048 B stride 524288");
    MPI_Type_create_subarray(3, sizes, z, (int[]){0, 0, 7}, MPI_ORDER_C, MPI_DOUBLE, &t);
    expect_shape(t, "blocks off 56 size 524288 extent 134217728 count 65536 x 8 B stride 2048");
    MPI_Type_create_subarray(3, sizes, x, (int[]){7, 0, 0}, MPI_ORDER_C, MPI_DOUBLE, &t);
    expect_shape(t, "run off 3670016 size 524288");
    /* the same face in Fortran order is the other one */
    MPI_Type_create_subarray(3, sizes, x, (int[]){7, 0, 0}, MPI_ORDER_FORTRAN, MPI_DOUBLE, &t);
    expect_shape(t, "count 65536 x 8 B stride 2048");
    /* a 2-D block of a 3-D block: a vector of blocks */
    int s4[3] = {4, 5, 6}, sub4[3] = {2, 3, 4};
    MPI_Type_create_subarray(3, s4, sub4, (int[]){1, 1, 1}, MPI_ORDER_C, MPI_INT, &t);
    expect_shape(t, "vector off 148 size 96 extent 480 count 2 stride 120\n"
                    "    blocks off 0 size 48 extent 72 count 3 x 16 B stride 24");
    /* pair types: the gap of MPI_DOUBLE_INT */
    MPI_Type_contiguous(3, MPI_DOUBLE_INT, &t);
    expect_shape(t, "blocks off 0 size 36 extent 48 count 3 x 12 B stride 16");
    MPI_Type_contiguous(2, MPI_SHORT_INT, &t);
    expect_shape(t, "vector off 0 size 12 extent 16 count 2 stride 8\n"
                    "    runs off 0 size 6 extent 8 count 2: 2@0 4@4");
    /* a struct of dense fields is runs, touching ones merged */
    MPI_Type_create_struct(3, (int[]){1, 2, 1}, (MPI_Aint[]){0, 4, 16},
                           (MPI_Datatype[]){MPI_INT, MPI_FLOAT, MPI_DOUBLE}, &t);
    expect_shape(t, "runs off 0 size 20 extent 24 count 2: 12@0 8@16");
    /* indexed blocks at a regular stride are blocks */
    MPI_Type_create_indexed_block(4, 2, (int[]){0, 5, 10, 15}, MPI_INT, &t);
    expect_shape(t, "count 4 x 8 B stride 20");
    /* a negative stride stays in stream order */
    MPI_Type_vector(3, 1, -2, MPI_DOUBLE, &t);
    expect_shape(t, "count 3 x 8 B stride -16");
}

/* Types made by MPI-4's large-count constructors: the MPI returns their
 * arguments as large counts (MPI_Type_get_contents_c). */
static void large_count_forms(void)
{
#if MPI_VERSION >= 4
    MPI_Count c[4] = {3, 2, 40, 8}, sizes[2] = {5, 6}, subs[2] = {2, 3}, starts[2] = {1, 2};
    MPI_Datatype ts[2] = {MPI_DOUBLE_INT, MPI_SHORT}, made[7];
    int gsizes[2] = {5, 6}, distribs[2] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK},
        dargs[2] = {2, MPI_DISTRIBUTE_DFLT_DARG}, psizes[2] = {2, 2};
    MPI_Type_vector_c(3, 2, -5, MPI_INT, &made[0]);
    MPI_Type_create_hindexed_c(2, c, c + 2, MPI_FLOAT, &made[1]);
    MPI_Type_create_struct_c(2, c, c + 2, ts, &made[2]);
    MPI_Type_create_subarray_c(2, sizes, subs, starts, MPI_ORDER_FORTRAN, MPI_INT, &made[3]);
    MPI_Type_create_resized_c(MPI_DOUBLE_INT, -4, 24, &made[4]);
    MPI_Type_create_darray_c(4, 2, 2, (MPI_Count[]){5, 6}, distribs, dargs, psizes, MPI_ORDER_C,
                             MPI_INT, &made[5]);
    MPI_Type_create_darray(4, 3, 2, gsizes, distribs, dargs, psizes, MPI_ORDER_FORTRAN, MPI_INT,
                           &made[6]);
    for (int i = 0; i < 7; i++) {
        struct layout l;
        if (layout_init(&l, made[i], 2)) {
            check_layout(&l);
            layout_free(&l);
        }
    }
#endif
}

static void refused(void)
{
    MPI_Datatype t;
    wisp_dt_desc_t *d;
    CHECK(wisp_dt_desc_get(MPI_DATATYPE_NULL, &d) == WISP_DT_MPI_ERROR);
    /* a distributed array: 2 x 4 ints of an 8 x 8 grid on 2 x 2 processes */
    int gsizes[2] = {8, 8}, distribs[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC},
        dargs[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2}, psizes[2] = {2, 2};
    MPI_Type_create_darray(4, 1, 2, gsizes, distribs, dargs, psizes, MPI_ORDER_C, MPI_INT, &t);
    MPI_Type_commit(&t);
    CHECK(wisp_dt_desc_get(t, &d) == WISP_DT_OK);
    if (d) {
        CHECK(wisp_dt_desc_size(d) == 16 * 4);
        wisp_dt_desc_release(d);
    }
    MPI_Type_free(&t);
    /* nesting deeper than the engine goes: refused, and remembered; so is
     * a struct with such a field */
    MPI_Type_contiguous(2, MPI_INT, &t);
    for (int i = 0; i < 70; i++) {
        MPI_Datatype up;
        MPI_Type_create_hvector(1, 1, 0, t, &up);
        MPI_Type_free(&t);
        t = up;
    }
    MPI_Type_commit(&t);
    CHECK(wisp_dt_desc_get(t, &d) == WISP_DT_UNSUPPORTED);
    CHECK(wisp_dt_desc_get(t, &d) == WISP_DT_UNSUPPORTED);
    MPI_Datatype s;
    MPI_Type_create_struct(2, (int[]){1, 1}, (MPI_Aint[]){0, 1024}, (MPI_Datatype[]){MPI_INT, t},
                           &s);
    MPI_Type_commit(&s);
    CHECK(wisp_dt_desc_get(s, &d) == WISP_DT_UNSUPPORTED);
    MPI_Type_free(&s);
    MPI_Type_free(&t);
    wisp_dt_forget_all();
    /* Fortran parameterized types are scalars: one run */
    MPI_Errhandler was;
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &was);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (MPI_Type_create_f90_real(15, MPI_UNDEFINED, &t) == MPI_SUCCESS) {
        CHECK(wisp_dt_desc_get(t, &d) == WISP_DT_OK);
        if (d) {
            CHECK(wisp_dt_desc_size(d) == 8 && wisp_dt_desc_dense(d, 4));
            wisp_dt_desc_release(d);
        }
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, was);
}

/* Threads looking up the same types while one frees and makes types (the
 * sanitizer build checks the references). */
static MPI_Datatype shared_types[4];

static void *lookups(void *arg)
{
    (void)arg;
    for (int i = 0; i < 20000; i++) {
        wisp_dt_desc_t *d;
        MPI_Datatype t = shared_types[i % 4];
        if (wisp_dt_desc_get(t, &d) == WISP_DT_OK) {
            CHECK(wisp_dt_desc_size(d) == (uint64_t)type_size(t));
            wisp_dt_desc_release(d);
        } else {
            CHECK(false);
        }
    }
    return NULL;
}

static void threads(int provided)
{
    if (provided < MPI_THREAD_MULTIPLE)
        return;
    for (int i = 0; i < 4; i++) {
        MPI_Type_vector(2 + i, 1 + i, 5 + i, MPI_INT, &shared_types[i]);
        MPI_Type_commit(&shared_types[i]);
    }
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&th[i], NULL, lookups, NULL);
    for (int i = 0; i < 2000; i++) {
        MPI_Datatype t;
        MPI_Type_contiguous(1 + i % 7, MPI_SHORT, &t);
        MPI_Type_commit(&t);
        wisp_dt_desc_t *d;
        CHECK(wisp_dt_desc_get(t, &d) == WISP_DT_OK);
        CHECK(wisp_dt_desc_size(d) == (uint64_t)(2 * (1 + i % 7)));
        wisp_dt_desc_release(d);
        MPI_Type_free(&t);
        wisp_dt_forget_all();
    }
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < 4; i++)
        MPI_Type_free(&shared_types[i]);
    wisp_dt_forget_all();
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : 1;
    long shapes = argc > 2 ? strtol(argv[2], NULL, 0) : 10000;
    rng = seed * 0x9e3779b97f4a7c15u + 1;
    random_shapes(shapes);
    printf("seed %llu: %lld shapes packed, %lld unpacked, %lld copies; %lld bytes the MPI left "
           "alone\n",
           (unsigned long long)seed, shapes_checked, unpacks_checked, copies_checked, left_alone);
    if (mpi_packs_whole_long_double())
        CHECK(left_alone == 0);
    handle_reuse();
    huge_count();
    fast_shapes();
    large_count_forms();
    refused();
    threads(provided);
    wisp_dt_forget_all();
    printf("%s: %d failed checks\n", failures ? "FAIL" : "ok", failures);
    MPI_Finalize();
    return failures != 0;
}
