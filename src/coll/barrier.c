/*
 * MPI_Barrier through the area: one phase, every member publishes it and
 * waits until every other one has (area.h).
 */
#include "coll/area.h"
#include "coll/coll.h"
#include "coll/mpi.h"

int wisp_coll_barrier(MPI_Comm comm)
{
    struct wisp_coll_comm *c = wisp_coll.on ? wisp_coll_comm_get(comm) : NULL;
    if (!c)
        return wisp_coll_mpi_barrier(comm);
    wisp_coll_count(&wisp_coll.served);
    uint64_t p = wisp_coll_next(c);
    wisp_coll_publish(c, p);
    wisp_coll_wait_all(c, p);
    return MPI_SUCCESS;
}
