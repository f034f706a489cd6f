/* Random nested derived datatypes, as the datatype test programs (tests/mpi/
 * dt_random.c, ghost_elements.c) make them from a fixed seed (rng), and the
 * helpers around them. The including file seeds rng, defines
 *   static MPI_Datatype leaf(void);   a predefined type for a leaf
 * and says which constructors gen() draws from (struct gen_cases). Both
 * programs compile src/dt in: release() forgets the engine's descriptions. */
#ifndef WISP_TESTS_RANDOM_TYPES_H
#define WISP_TESTS_RANDOM_TYPES_H

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dt/dt.h"

/* MPI_LB, MPI_UB and the MPI-1 constructors: MPICH 4.0.2 still has them,
 * Open MPI 4.1 as Debian builds it and the MPI-5 standard ABI do not. */
#if (!defined(OPEN_MPI) || OMPI_ENABLE_MPI1_COMPAT) && !defined(MPI_ABI_VERSION)
#define HAVE_MPI1 1
#endif

static MPI_Datatype leaf(void);

/* Whether the MPI packs every byte of a long double where the layout is not
 * contiguous: Open MPI 4 does; MPICH 4.0.2 and Open MPI 5.0.11 copy its 10
 * bytes and leave the 6 of padding alone (docs/datatypes.md). */
static inline bool mpi_packs_whole_long_double(void)
{
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(version, &len);
    return strncmp(version, "Open MPI v4.", strlen("Open MPI v4.")) == 0;
}

/* The random numbers: xorshift64*, the including file seeds rng. */
static uint64_t rng;

static uint64_t rnd(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 0x2545f4914f6cdd1du;
}

/* A random integer in [lo, hi]. */
static int64_t rr(int64_t lo, int64_t hi)
{
    return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1));
}

/* What the MPI says of t: its combiner, and its constructor's arguments
 * (MPI-4's large-count forms where the MPI has them: types made by the _c
 * constructors are refused by the others). The caller frees c->ints,
 * c->addrs, c->counts and c->types, and the child types with release(). */
struct contents {
    int combiner, nt;
    MPI_Count ni, na, nc;
    int *ints;
    MPI_Aint *addrs;
    MPI_Count *counts;
    MPI_Datatype *types;
};

static void contents_of(MPI_Datatype t, struct contents *c, bool args)
{
    memset(c, 0, sizeof *c);
#if MPI_VERSION >= 4
    MPI_Count nt;
    MPI_Type_get_envelope_c(t, &c->ni, &c->na, &c->nc, &nt, &c->combiner);
#else
    int ni, na, nt;
    MPI_Type_get_envelope(t, &ni, &na, &nt, &c->combiner);
    c->ni = ni;
    c->na = na;
#endif
    if (!args || c->combiner == MPI_COMBINER_NAMED)
        return;
    c->nt = (int)nt;
    c->ints = malloc(sizeof(int) * (size_t)(c->ni + 1));
    c->addrs = malloc(sizeof(MPI_Aint) * (size_t)(c->na + 1));
    c->counts = malloc(sizeof(MPI_Count) * (size_t)(c->nc + 1));
    c->types = malloc(sizeof(MPI_Datatype) * (size_t)(nt + 1));
#if MPI_VERSION >= 4
    MPI_Type_get_contents_c(t, c->ni, c->na, c->nc, nt, c->ints, c->addrs, c->counts, c->types);
#else
    MPI_Type_get_contents(t, ni, na, nt, c->ints, c->addrs, c->types);
#endif
}

static bool is_named(MPI_Datatype t)
{
    struct contents c;
    contents_of(t, &c, false);
    return c.combiner == MPI_COMBINER_NAMED;
}

static void release(MPI_Datatype *t)
{
    if (!is_named(*t)) {
        MPI_Type_free(t);
        wisp_dt_forget_all(); /* this program's copy of the engine, as wisp_p2p_type_free does */
    }
}

static MPI_Aint extent_of(MPI_Datatype t)
{
    MPI_Aint lb, ext;
    MPI_Type_get_extent(t, &lb, &ext);
    return ext;
}

static MPI_Count type_size(MPI_Datatype t)
{
    MPI_Count s;
    MPI_Type_size_x(t, &s);
    return s;
}

/* Open MPI 4.1.4 takes a stride or an extent of -1 byte for "the child's
 * extent" (apparently its internal marker for that): its MPI_Pack then
 * packs other bytes than the type's typemap says. */
static MPI_Aint not_minus_one(MPI_Aint bytes)
{
#ifdef OPEN_MPI
    if (bytes == -1)
        return -2;
#endif
    return bytes;
}

/* A resized type's extent. Negative extents are MPI; but MPICH 4.0.2
 * packs repetitions of types built on them (a subarray of one in a
 * struct, 3 of those) from other addresses than the typemap's, where Open
 * MPI agrees with wisp: negative ones are asked of Open MPI only. */
static MPI_Aint resized_extent(MPI_Aint bytes)
{
#ifndef OPEN_MPI
    if (bytes < 0)
        return -bytes;
#endif
    return not_minus_one(bytes);
}

/* A derived type of no bytes inside another: MPICH 4.0.2's MPI_Unpack
 * divides by zero (SIGFPE) on most such types (a vector of one, a struct
 * field of one), Open MPI 4.1.4 packs 2 elements of a struct with such a
 * field as if the struct's extent were its size. So the MPIs are asked
 * about empty types only at the top (where wisp's answer is checked
 * without them) and about MPI_LB/MPI_UB markers in structs. */
static MPI_Datatype nonempty(MPI_Datatype t)
{
    if (type_size(t) != 0)
        return t;
    release(&t);
    return leaf();
}

/* The constructors gen() draws from. */
enum gen_kind {
    GEN_CONTIGUOUS,
    GEN_VECTOR,
    GEN_HVECTOR,
    GEN_INDEXED,       /* indexed or hindexed, zero-length blocks among them */
    GEN_INDEXED_BLOCK, /* indexed or hindexed blocks */
    GEN_STRUCT,        /* with MPI_LB/MPI_UB markers where the MPI has them */
    GEN_SUBARRAY,
    GEN_DARRAY,
    GEN_RESIZED,
    GEN_DUP,
};

/* A program's choice: each kind is drawn as often as `kinds` lists it. */
struct gen_cases {
    const enum gen_kind *kinds;
    int nkinds;
    int max_fields; /* of a struct, 1-5 (markers aside) */
    /* MPI_Type_struct for half the structs, MPI_Type_hvector or
     * MPI_Type_hindexed for half the dups, where the MPI has them */
    bool mpi1;
};

/* A random type nested up to `depth` constructors deep (not committed). */
static MPI_Datatype gen(const struct gen_cases *cases, int depth)
{
    if (depth == 0 || rr(0, 5) == 0)
        return leaf();
    MPI_Datatype c = nonempty(gen(cases, depth - 1)), t = MPI_DATATYPE_NULL;
    MPI_Aint ext = extent_of(c);
    if (ext <= 0)
        ext = 1;
    int n = (int)rr(0, 4), blens[8], ints[8], one;
    MPI_Aint addrs[8];
    MPI_Datatype types[8];
    switch (cases->kinds[rr(0, cases->nkinds - 1)]) {
    case GEN_CONTIGUOUS:
        MPI_Type_contiguous(n, c, &t);
        break;
    case GEN_VECTOR:
        MPI_Type_vector(n, (int)rr(0, 3), (int)(not_minus_one(rr(-4, 6) * ext) / ext), c, &t);
        break;
    case GEN_HVECTOR:
        MPI_Type_create_hvector(n, (int)rr(0, 3), not_minus_one(rr(-4, 6) * ext + rr(-2, 2)), c,
                                &t);
        break;
    case GEN_INDEXED:
        for (int i = 0; i < n; i++) {
            blens[i] = (int)rr(0, 3);
            ints[i] = (int)rr(-6, 10);
            addrs[i] = ints[i] * ext + rr(-3, 3);
        }
        if (rr(0, 1))
            MPI_Type_indexed(n, blens, ints, c, &t);
        else
            MPI_Type_create_hindexed(n, blens, addrs, c, &t);
        break;
    case GEN_INDEXED_BLOCK:
        one = (int)rr(0, 3);
        for (int i = 0; i < n; i++) {
            ints[i] = (int)rr(-6, 10);
            addrs[i] = ints[i] * ext + rr(-3, 3);
        }
        if (rr(0, 1))
            MPI_Type_create_indexed_block(n, one, ints, c, &t);
        else
            MPI_Type_create_hindexed_block(n, one, addrs, c, &t);
        break;
    case GEN_STRUCT: {
        /* struct: fields mostly in order with gaps, some anywhere */
        n = (int)rr(1, cases->max_fields);
        MPI_Aint at = rr(-8, 8);
        for (int i = 0; i < n; i++) {
            types[i] = i == 0 ? c : rr(0, 1) ? leaf() : nonempty(gen(cases, depth - 1));
            blens[i] = (int)rr(0, 3);
            MPI_Aint e = extent_of(types[i]);
            addrs[i] = rr(0, 4) ? at + rr(0, 8) : rr(-32, 64);
            at = addrs[i] + blens[i] * (e > 0 ? e : 1);
        }
        bool marker = false;
#ifdef HAVE_MPI1
        /* markers: bounds without bytes (in a shape of one leaf type, the
         * leaves then differ: ghost_elements' elements are bytes) */
        if (rr(0, 3) == 0) {
            types[n] = rr(0, 1) ? MPI_LB : MPI_UB;
            blens[n] = 1;
            addrs[n++] = rr(-24, 80);
            marker = true;
        }
#endif
        if (cases->mpi1 && rr(0, 1))
#ifdef HAVE_MPI1
            MPI_Type_struct(n, blens, addrs, types, &t);
#else
            MPI_Type_create_struct(n, blens, addrs, types, &t);
#endif
        else
            MPI_Type_create_struct(n, blens, addrs, types, &t);
        if (marker && extent_of(t) < 0) {
            /* an MPI_LB above the data's end: MPICH 4.0.2 packs a
             * contiguous type of such elements from other addresses than
             * their typemap's (a negative extent made otherwise is fine) */
            MPI_Type_free(&t);
            MPI_Type_create_struct(--n, blens, addrs, types, &t);
        }
        for (int i = 1; i < n; i++)
            release(&types[i]);
        break;
    }
    case GEN_SUBARRAY: {
        int nd = (int)rr(1, 3), sizes[3], subsizes[3], starts[3];
        for (int i = 0; i < nd; i++) {
            sizes[i] = (int)rr(1, 5);
            subsizes[i] = (int)rr(1, sizes[i]);
            starts[i] = (int)rr(0, sizes[i] - subsizes[i]);
        }
        MPI_Type_create_subarray(nd, sizes, subsizes, starts,
                                 rr(0, 1) ? MPI_ORDER_C : MPI_ORDER_FORTRAN, c, &t);
        break;
    }
    case GEN_DARRAY: {
        int nd = (int)rr(1, 3), gsizes[3], distribs[3], dargs[3], psizes[3], size = 1;
        for (int i = 0; i < nd; i++) {
            gsizes[i] = (int)rr(1, 6);
            int64_t kind = rr(0, 2);
            distribs[i] = kind == 0   ? MPI_DISTRIBUTE_NONE
                          : kind == 1 ? MPI_DISTRIBUTE_BLOCK
                                      : MPI_DISTRIBUTE_CYCLIC;
            psizes[i] = kind == 0 ? 1 : (int)rr(1, 3);
            int least = (gsizes[i] + psizes[i] - 1) / psizes[i];
            dargs[i] = kind == 0 || rr(0, 1) ? MPI_DISTRIBUTE_DFLT_DARG
                       : kind == 1           ? least + (int)rr(0, 1)
                                             : (int)rr(1, 3);
            size *= psizes[i];
        }
        MPI_Type_create_darray(size, (int)rr(0, size - 1), nd, gsizes, distribs, dargs, psizes,
                               rr(0, 1) ? MPI_ORDER_C : MPI_ORDER_FORTRAN, c, &t);
        break;
    }
    case GEN_RESIZED:
        MPI_Type_create_resized(c, rr(-16, 16), resized_extent(ext + rr(-4, 16)), &t);
        break;
    case GEN_DUP:
        if (!cases->mpi1 || rr(0, 1)) {
            MPI_Type_dup(c, &t);
            break;
        }
#ifdef HAVE_MPI1
        for (int i = 0; i < n; i++) {
            blens[i] = (int)rr(0, 3);
            addrs[i] = rr(-6, 10) * ext;
        }
        if (rr(0, 1))
            MPI_Type_hvector(n, (int)rr(0, 3), rr(-4, 6) * ext, c, &t);
        else
            MPI_Type_hindexed(n, blens, addrs, c, &t);
#else
        MPI_Type_dup(c, &t);
#endif
    }
    release(&c);
    return t;
}

#endif
