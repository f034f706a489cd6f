/*
 * Open MPI 4.1's osc/rdma, the component of every MPI_Win_create window and
 * so of the ghosts' internal windows, returns wrong results from
 * MPI_Get_accumulate as soon as one of its datatypes is derived (the target
 * is updated correctly; measured with 4.1.4, also with a plain
 * MPI_Win_create window without wisp). On a served window such an operation
 * becomes one MPI_Fetch_and_op per element: MPI's atomicity is per element
 * anyway, and one origin's operations on a target stay in order.
 *
 * The byte offset of every element of (count, datatype) comes from MPI
 * itself: a buffer whose bytes spell their own offsets is packed once per
 * byte of the offsets, and the first packed byte of each element tells that
 * byte of its offset. No datatype needs to be decoded.
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

bool wisp_ghost_getacc_split_needed(MPI_Datatype origin, MPI_Datatype result, MPI_Datatype target,
                                    MPI_Op op)
{
#ifdef OPEN_MPI
    return !is_named(target) || !is_named(result) || (op != MPI_NO_OP && !is_named(origin));
#else
    (void)origin, (void)result, (void)target, (void)op;
    return false;
#endif
}

/* The predefined type a derived type is made of (accumulate types have one). */
static MPI_Datatype basic_of(MPI_Datatype type)
{
    MPI_Datatype t = type;
    for (;;) {
        int ni, na, nd, combiner;
        PMPI_Type_get_envelope(t, &ni, &na, &nd, &combiner);
        if (combiner == MPI_COMBINER_NAMED)
            return t;
        int *ints = malloc(sizeof *ints * (size_t)(ni + 1));
        MPI_Aint *aints = malloc(sizeof *aints * (size_t)(na + 1));
        MPI_Datatype *types = malloc(sizeof *types * (size_t)(nd + 1));
        if (!ints || !aints || !types)
            wisp_fatal("out of memory decoding a datatype");
        PMPI_Type_get_contents(t, ni, na, nd, ints, aints, types);
        for (int i = 1; i < nd; i++)
            if (!is_named(types[i]))
                PMPI_Type_free(&types[i]);
        if (t != type)
            PMPI_Type_free(&t);
        t = types[0];
        free(ints);
        free(aints);
        free(types);
    }
}

/* Offsets from the buffer's address of the *n elements (esize bytes each) of
 * (count, type); NULL when memory is short. */
static MPI_Aint *element_offsets(int count, MPI_Datatype type, int esize, int *n)
{
    int size;
    MPI_Aint lb, extent, true_lb, true_extent;
    PMPI_Type_size(type, &size);
    PMPI_Type_get_extent(type, &lb, &extent);
    PMPI_Type_get_true_extent(type, &true_lb, &true_extent);
    *n = (int)((long)size * count / esize);
    MPI_Aint first = true_lb + (extent < 0 ? (count - 1) * extent : 0);
    MPI_Aint span = true_extent + (count - 1) * (extent < 0 ? -extent : extent);
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
        PMPI_Pack((char *)buf - first, count, type, packed, size * count, &position, MPI_COMM_SELF);
        for (int e = 0; e < *n; e++)
            off[e] |= (MPI_Aint)packed[(size_t)e * (size_t)esize] << (8 * pass);
    }
    for (int e = 0; e < *n; e++)
        off[e] += first;
    free(buf);
    free(packed);
    return off;
}

int wisp_ghost_getacc_split(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                            void *result_addr, int result_count, MPI_Datatype result_datatype,
                            int grank, MPI_Aint gdisp, int target_count,
                            MPI_Datatype target_datatype, MPI_Op op, MPI_Win iwin)
{
    MPI_Datatype basic = basic_of(target_datatype);
    int esize, nt = 0, nr = 0, no = 0;
    PMPI_Type_size(basic, &esize);
    MPI_Aint *toff = element_offsets(target_count, target_datatype, esize, &nt);
    MPI_Aint *roff = element_offsets(result_count, result_datatype, esize, &nr);
    MPI_Aint *ooff =
        op == MPI_NO_OP ? NULL : element_offsets(origin_count, origin_datatype, esize, &no);
    int rc = MPI_SUCCESS;
    if (!toff || !roff || (op != MPI_NO_OP && !ooff))
        rc = MPI_ERR_NO_MEM;
    else if (nr != nt || (op != MPI_NO_OP && no != nt))
        rc = MPI_ERR_COUNT;
    for (int e = 0; e < nt && rc == MPI_SUCCESS; e++) {
        char *result = (char *)result_addr + roff[e];
        const void *origin = ooff ? (const char *)origin_addr + ooff[e] : result;
        rc = PMPI_Fetch_and_op(origin, result, basic, grank, gdisp + toff[e], op, iwin);
    }
    free(toff);
    free(roff);
    free(ooff);
    return rc;
}
