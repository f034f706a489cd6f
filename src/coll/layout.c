/*
 * A collective's bytes (layout.h). A predefined type is one block of
 * count * its size; another type asks the MPI for its size and extents,
 * and is one block when it has no holes and its elements follow each
 * other without gaps.
 */
#include "coll/layout.h"

#include <limits.h>

#include "coll/op.h"
#include "core/log.h"
#include "dt/dt.h"

bool wisp_coll_layout_of(MPI_Datatype type, MPI_Count count, struct wisp_coll_layout *l)
{
    if (count < 0 || type == MPI_DATATYPE_NULL)
        return false;
    size_t known = wisp_coll_type_size(type);
    if (known) {
        l->bytes = (uint64_t)count * known;
        l->lb = 0;
        l->contiguous = true;
        return true;
    }
    int size;
    MPI_Aint lb, extent, true_lb, true_extent;
    if (PMPI_Type_size(type, &size) != MPI_SUCCESS || size == MPI_UNDEFINED ||
        PMPI_Type_get_extent(type, &lb, &extent) != MPI_SUCCESS ||
        PMPI_Type_get_true_extent(type, &true_lb, &true_extent) != MPI_SUCCESS)
        return false;
    l->bytes = (uint64_t)count * (uint64_t)size;
    l->lb = true_lb;
    l->contiguous = (MPI_Aint)size == true_extent && (count <= 1 || extent == true_extent);
    /* MPI_Pack takes an int count and size. */
    return l->contiguous || (count <= INT_MAX && l->bytes <= INT_MAX);
}

bool wisp_coll_pack(const void *buffer, MPI_Count count, MPI_Datatype type, void *packed,
                    uint64_t bytes, MPI_Comm comm)
{
    int position = 0;
    return PMPI_Pack(buffer, (int)count, type, packed, (int)bytes, &position, comm) ==
               MPI_SUCCESS &&
           (uint64_t)position == bytes;
}

bool wisp_coll_unpack(const void *packed, uint64_t bytes, void *buffer, MPI_Count count,
                      MPI_Datatype type, MPI_Comm comm)
{
    int position = 0;
    return PMPI_Unpack(packed, (int)bytes, &position, buffer, (int)count, type, comm) ==
           MPI_SUCCESS;
}

MPI_Datatype wisp_coll_type_keep(MPI_Datatype type, MPI_Comm comm)
{
    MPI_Datatype kept;
    if (wisp_coll_type_size(type))
        return type;
    if (PMPI_Type_dup(type, &kept) != MPI_SUCCESS) {
        wisp_log_error("a nonblocking collective: MPI_Type_dup failed");
        PMPI_Abort(comm, 1);
    }
    return kept;
}

void wisp_coll_type_let_go(MPI_Datatype type)
{
    if (wisp_coll_type_size(type))
        return;
    wisp_dt_forget(type); /* its handle may come back for another type */
    PMPI_Type_free(&type);
}
