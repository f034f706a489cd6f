/*
 * MPI functions that a newer MPI of MPICH's ABI defines and the mpi.h this
 * libwisp was built against does not declare: Intel MPI 2021.19's
 * libmpi.so.12 has MPI-4.1's MPI_Request_get_status_any/_all/_some, which
 * MPICH 4.0.2 lacks. The generated wrappers exist only where the build's
 * mpi.h declares a function (WISP_HAVE_MPI_X), so libwisp-mpich built on
 * MPICH 4.0.2 and preloaded over Intel MPI let these calls reach the MPI
 * with wisp's requests, and Intel MPI stopped with "Invalid MPI_Request"
 * (tests/impi.sh). Defined here, they are served as their routes in
 * src/p2p/routes.def serve them where the build's mpi.h has them (MPICH 5):
 * wisp's requests by wisp, the MPI's by the MPI's own function
 * (p2p/complete.c finds it at run time). The rest of what Intel MPI has
 * beyond MPICH 4.0.2 is the MPI's own, as those routes say: the buffer
 * flushes (pass), the MPI-5 ABI's integer conversions (MPI_Request_toint
 * & co. are casts in Intel MPI, as MPICH's handles are ints: a handle of
 * wisp's goes there and back unchanged). tests/wrap_coverage.sh allows
 * the names exported here.
 */
#include <mpi.h>

#include "core/export.h"
#include "p2p/complete.h"
#include "wisp_have.h" /* generated at configure time: WISP_HAVE_MPI_* */

#if defined(MPICH) && !defined(WISP_HAVE_MPI_Request_get_status_any)
WISP_EXPORT int MPI_Request_get_status_any(int count, const MPI_Request requests[], int *index,
                                           int *flag, MPI_Status *status);
int MPI_Request_get_status_any(int count, const MPI_Request requests[], int *index, int *flag,
                               MPI_Status *status)
{
    return wisp_p2p_request_get_status_any(count, requests, index, flag, status);
}
#endif
#if defined(MPICH) && !defined(WISP_HAVE_MPI_Request_get_status_all)
WISP_EXPORT int MPI_Request_get_status_all(int count, const MPI_Request requests[], int *flag,
                                           MPI_Status statuses[]);
int MPI_Request_get_status_all(int count, const MPI_Request requests[], int *flag,
                               MPI_Status statuses[])
{
    return wisp_p2p_request_get_status_all(count, requests, flag, statuses);
}
#endif
#if defined(MPICH) && !defined(WISP_HAVE_MPI_Request_get_status_some)
WISP_EXPORT int MPI_Request_get_status_some(int incount, const MPI_Request requests[],
                                            int *outcount, int indices[], MPI_Status statuses[]);
int MPI_Request_get_status_some(int incount, const MPI_Request requests[], int *outcount,
                                int indices[], MPI_Status statuses[])
{
    return wisp_p2p_request_get_status_some(incount, requests, outcount, indices, statuses);
}
#endif
