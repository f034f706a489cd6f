/*
 * The elements of (count, datatype): their byte offsets and their
 * predefined type, for the operations that wisp cuts into pieces (split.c,
 * getacc_split.c).
 *
 * The byte offset of every element comes from MPI itself: a buffer whose
 * bytes spell their own offsets is packed once per byte of the offsets, and
 * the first packed byte of each element tells that byte of its offset. No
 * datatype needs to be decoded.
 */
#include <stdlib.h>

#include "core/log.h"
#include "ghost/win.h"

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

MPI_Aint *wisp_ghost_element_offsets(MPI_Count count, MPI_Datatype type, int esize, int *n)
{
    int size;
    MPI_Aint lb, extent, true_lb, true_extent;
    PMPI_Type_size(type, &size);
    PMPI_Type_get_extent(type, &lb, &extent);
    PMPI_Type_get_true_extent(type, &true_lb, &true_extent);
    long long elements = (long long)size * count / esize;
    if (count > 1 << 30 || elements > 1 << 30)
        return NULL;
    *n = (int)elements;
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
        PMPI_Pack((char *)buf - first, (int)count, type, packed, size * (int)count, &position,
                  MPI_COMM_SELF);
        for (int e = 0; e < *n; e++)
            off[e] |= (MPI_Aint)packed[(size_t)e * (size_t)esize] << (8 * pass);
    }
    for (int e = 0; e < *n; e++)
        off[e] += first;
    free(buf);
    free(packed);
    return off;
}
