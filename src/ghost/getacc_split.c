/*
 * Open MPI 4.1's osc/rdma, the component of every MPI_Win_create window and
 * so of the ghosts' internal windows, returns wrong results from
 * MPI_Get_accumulate as soon as one of its datatypes is derived (the target
 * is updated correctly; measured with 4.1.4, also with a plain
 * MPI_Win_create window without wisp). On a served window such an operation
 * becomes one MPI_Fetch_and_op per element: MPI's atomicity is per element
 * anyway, and one origin's operations on a target stay in order. The
 * elements' offsets come from elements.c. Open MPI 5 gets them right (MPICH's
 * get_accumulate_*_derived natively over 5.0.11), and one operation per
 * element took those tests past their limit there: only Open MPI 4 is split.
 */
#include "ghost/getacc_split.h"

#include <stdlib.h>

#include "core/mpi_impl.h"
#include "ghost/elements.h"

#ifdef OPEN_MPI
static bool is_named(MPI_Datatype type)
{
    int ni, na, nd, combiner;
    PMPI_Type_get_envelope(type, &ni, &na, &nd, &combiner);
    return combiner == MPI_COMBINER_NAMED;
}
#endif

bool wisp_ghost_getacc_split_needed(MPI_Datatype origin, MPI_Datatype result, MPI_Datatype target,
                                    MPI_Op op)
{
#ifdef OPEN_MPI
    if (wisp_core_mpi_impl().major >= 5)
        return false;
    return !is_named(target) || !is_named(result) || (op != MPI_NO_OP && !is_named(origin));
#else
    (void)origin, (void)result, (void)target, (void)op;
    return false;
#endif
}

int wisp_ghost_getacc_split(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                            void *result_addr, int result_count, MPI_Datatype result_datatype,
                            int grank, MPI_Aint gdisp, int target_count,
                            MPI_Datatype target_datatype, MPI_Op op, MPI_Win iwin)
{
    MPI_Datatype basic = wisp_ghost_basic_type(target_datatype);
    int esize, nt = 0, nr = 0, no = 0;
    PMPI_Type_size(basic, &esize);
    MPI_Aint *toff = wisp_ghost_element_offsets(target_count, target_datatype, esize, &nt);
    MPI_Aint *roff = wisp_ghost_element_offsets(result_count, result_datatype, esize, &nr);
    MPI_Aint *ooff = op == MPI_NO_OP
                         ? NULL
                         : wisp_ghost_element_offsets(origin_count, origin_datatype, esize, &no);
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
