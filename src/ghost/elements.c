/*
 * The elements of (count, datatype): their byte offsets and their
 * predefined type, for the operations that wisp cuts into pieces (split.c,
 * getacc_split.c).
 *
 * The offsets come from the datatype engine's description (src/dt): the
 * pieces of the whole packed stream as iovecs of MPI_BOTTOM, which are
 * offsets from the buffer, and element e begins at packed byte e * esize.
 * A type the engine refuses goes to the MPI itself: a buffer whose bytes
 * spell their own offsets is packed once per byte of the offsets, and the
 * first packed byte of each element tells that byte of its offset (no
 * datatype decoded). Both give the same offsets in the same order; the
 * engine's cost is a walk of the description, the MPI's 8 packs of the
 * type's whole span (tests/mpi/ghost_elements.c compares them).
 *
 * The engine's descriptions keep bytes, not predefined types, so the leaf
 * type still comes from MPI_Type_get_contents.
 */
#include <stdint.h>
#include <stdlib.h>
#include <sys/uio.h>

#include "core/log.h"
#include "dt/dt.h"
#include "ghost/elements.h"

static bool is_named(MPI_Datatype type)
{
    int ni, na, nd, combiner;
    PMPI_Type_get_envelope(type, &ni, &na, &nd, &combiner);
    return combiner == MPI_COMBINER_NAMED;
}

/* The predefined type every leaf of `type` is, or MPI_DATATYPE_NULL when
 * they differ. */
static MPI_Datatype leaves(MPI_Datatype type)
{
    if (is_named(type))
        return type;
    int ni, na, nd, combiner;
    PMPI_Type_get_envelope(type, &ni, &na, &nd, &combiner);
    int *ints = malloc(sizeof *ints * (size_t)(ni + 1));
    MPI_Aint *aints = malloc(sizeof *aints * (size_t)(na + 1));
    MPI_Datatype *types = malloc(sizeof *types * (size_t)(nd + 1));
    if (!ints || !aints || !types)
        wisp_fatal("out of memory decoding a datatype");
    PMPI_Type_get_contents(type, ni, na, nd, ints, aints, types);
    MPI_Datatype basic = MPI_DATATYPE_NULL;
    bool same = true;
    for (int i = 0; i < nd; i++) {
        MPI_Datatype b = leaves(types[i]);
        if (i == 0)
            basic = b;
        same = same && b == basic && b != MPI_DATATYPE_NULL;
        if (!is_named(types[i]))
            PMPI_Type_free(&types[i]);
    }
    free(ints);
    free(aints);
    free(types);
    return same ? basic : MPI_DATATYPE_NULL;
}

MPI_Datatype wisp_ghost_basic_type(MPI_Datatype type)
{
    MPI_Datatype basic = leaves(type);
    return basic == MPI_DATATYPE_NULL ? MPI_BYTE : basic;
}

/* How many elements of esize bytes (count, type) holds; false past 2^30
 * (the offsets are an int's worth). */
static bool element_count(long long size, MPI_Count count, int esize, int *n)
{
    long long elements = esize > 0 ? size * count / esize : 0;
    if (count > 1 << 30 || elements > 1 << 30)
        return false;
    *n = (int)elements;
    return true;
}

MPI_Aint *wisp_ghost_element_offsets_mpi(MPI_Count count, MPI_Datatype type, int esize, int *n)
{
    int size;
    MPI_Aint lb, extent, true_lb, true_extent;
    PMPI_Type_size(type, &size);
    PMPI_Type_get_extent(type, &lb, &extent);
    PMPI_Type_get_true_extent(type, &true_lb, &true_extent);
    if (!element_count(size, count, esize, n))
        return NULL;
    if (*n == 0) /* (a count of 0 would make the span below negative) */
        return calloc(1, sizeof(MPI_Aint));
    MPI_Aint first = true_lb + (extent < 0 ? (MPI_Aint)(count - 1) * extent : 0);
    MPI_Aint span = true_extent + (MPI_Aint)(count - 1) * (extent < 0 ? -extent : extent);
    unsigned char *buf = malloc((size_t)span + 1);
    unsigned char *packed = malloc((size_t)size * (size_t)count + 1);
    MPI_Aint *off = calloc((size_t)*n + 1, sizeof *off);
    if (!buf || !packed || !off) {
        free(buf);
        free(packed);
        free(off);
        return NULL;
    }
    for (int pass = 0; pass < (int)sizeof(MPI_Aint) && (span - 1) >> (8 * pass); pass++) {
        for (MPI_Aint p = 0; p < span; p++)
            buf[p] = (unsigned char)(p >> (8 * pass));
        int position = 0;
        PMPI_Pack((void *)((uintptr_t)buf - (uintptr_t)first), (int)count, type, packed,
                  size * (int)count, &position, MPI_COMM_SELF);
        for (int e = 0; e < *n; e++)
            off[e] |= (MPI_Aint)packed[(size_t)e * (size_t)esize] << (8 * pass);
    }
    for (int e = 0; e < *n; e++)
        off[e] += first;
    free(buf);
    free(packed);
    return off;
}

/* The offsets from the engine's description; NULL when memory is short or
 * the walk ended early (then the MPI answers). */
static MPI_Aint *offsets_of(const wisp_dt_desc_t *d, MPI_Count count, int esize, int n)
{
    MPI_Aint *off = malloc(((size_t)n + 1) * sizeof *off);
    if (!off)
        return NULL;
    enum { PIECES = 256 };
    struct iovec iov[PIECES];
    size_t first = 0, total = (size_t)n * (size_t)esize, at = 0;
    int e = 0;
    while (e < n) {
        int k = 0;
        /* MPI_BOTTOM: the pieces' addresses are offsets from the buffer,
         * negative ones wrapped around */
        if (wisp_dt_layout_iov(NULL, count, d, first, total - first, iov, PIECES, &k) == 0)
            break;
        for (int i = 0; i < k; i++) {
            uintptr_t base = (uintptr_t)iov[i].iov_base;
            size_t end = first + iov[i].iov_len;
            for (; e < n && at < end; e++, at += (size_t)esize)
                off[e] = (MPI_Aint)(intptr_t)(base + (uintptr_t)(at - first));
            first = end;
        }
    }
    if (e < n) {
        free(off);
        return NULL;
    }
    return off;
}

MPI_Aint *wisp_ghost_element_offsets(MPI_Count count, MPI_Datatype type, int esize, int *n)
{
    wisp_dt_desc_t *d;
    if (wisp_dt_desc_get(type, &d) != WISP_DT_OK)
        return wisp_ghost_element_offsets_mpi(count, type, esize, n);
    MPI_Aint *off = NULL;
    if (element_count((long long)wisp_dt_desc_size(d), count, esize, n)) {
        off = offsets_of(d, count, esize, *n);
        if (!off)
            off = wisp_ghost_element_offsets_mpi(count, type, esize, n);
    }
    wisp_dt_desc_release(d);
    return off;
}
