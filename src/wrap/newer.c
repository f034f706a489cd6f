/*
 * MPI functions that a newer MPI of MPICH's ABI defines and the mpi.h this
 * libwisp was built against does not declare: Intel MPI 2021.19's
 * libmpi.so.12 has MPI-4.1's MPI_Request_get_status_any/_all/_some and
 * buffer flushes, which MPICH 4.0.2 lacks. The generated wrappers exist
 * only where the build's mpi.h declares a function (WISP_HAVE_MPI_X), so
 * libwisp-mpich built on MPICH 4.0.2 and preloaded over Intel MPI would let
 * these calls reach the MPI with wisp's requests, and Intel MPI stops with
 * "Invalid MPI_Request" (tests/impi.sh). Defined here, they stop with the
 * one line that their `absent` route in src/p2p/routes.def gives where the
 * build's mpi.h has them (MPICH 5). The integer conversions of the MPI-5
 * ABI (MPI_Request_toint & co.) are casts in Intel MPI, as in MPICH's
 * handles: a handle of wisp's goes there and back unchanged, so they are
 * left to the MPI. tests/wrap_coverage.sh allows these names.
 */
#include <mpi.h>

#include "core/export.h"
#include "core/log.h"
#include "wisp_have.h" /* generated at configure time: WISP_HAVE_MPI_* */

#if defined(MPICH)
#define REFUSE(f, why)                                                                             \
    wisp_fatal(#f " is not supported under wisp yet: " why " (src/p2p/routes.def); run the "       \
                  "program without wisp (wisprun --native)")

#if !defined(WISP_HAVE_MPI_Request_get_status_any)
WISP_EXPORT int MPI_Request_get_status_any(int count, const MPI_Request requests[], int *index,
                                           int *flag, MPI_Status *status);
int MPI_Request_get_status_any(int count, const MPI_Request requests[], int *index, int *flag,
                               MPI_Status *status)
{
    (void)count, (void)requests, (void)index, (void)flag, (void)status;
    REFUSE(MPI_Request_get_status_any, "MPI-4.1; would have to look at wisp's requests too");
}
#endif
#if !defined(WISP_HAVE_MPI_Request_get_status_all)
WISP_EXPORT int MPI_Request_get_status_all(int count, const MPI_Request requests[], int *flag,
                                           MPI_Status statuses[]);
int MPI_Request_get_status_all(int count, const MPI_Request requests[], int *flag,
                               MPI_Status statuses[])
{
    (void)count, (void)requests, (void)flag, (void)statuses;
    REFUSE(MPI_Request_get_status_all, "MPI-4.1; would have to look at wisp's requests too");
}
#endif
#if !defined(WISP_HAVE_MPI_Request_get_status_some)
WISP_EXPORT int MPI_Request_get_status_some(int incount, const MPI_Request requests[],
                                            int *outcount, int indices[], MPI_Status statuses[]);
int MPI_Request_get_status_some(int incount, const MPI_Request requests[], int *outcount,
                                int indices[], MPI_Status statuses[])
{
    (void)incount, (void)requests, (void)outcount, (void)indices, (void)statuses;
    REFUSE(MPI_Request_get_status_some, "MPI-4.1; would have to look at wisp's requests too");
}
#endif
#if !defined(WISP_HAVE_MPI_Buffer_iflush)
WISP_EXPORT int MPI_Buffer_iflush(MPI_Request *request);
int MPI_Buffer_iflush(MPI_Request *request)
{
    (void)request;
    REFUSE(MPI_Buffer_iflush, "MPI-4.1 buffer flushes would have to flush wisp's buffered sends");
}
#endif
#if !defined(WISP_HAVE_MPI_Comm_iflush_buffer)
WISP_EXPORT int MPI_Comm_iflush_buffer(MPI_Comm comm, MPI_Request *request);
int MPI_Comm_iflush_buffer(MPI_Comm comm, MPI_Request *request)
{
    (void)comm, (void)request;
    REFUSE(MPI_Comm_iflush_buffer,
           "MPI-4.1 buffer flushes would have to flush wisp's buffered sends");
}
#endif
#if !defined(WISP_HAVE_MPI_Session_iflush_buffer)
WISP_EXPORT int MPI_Session_iflush_buffer(MPI_Session session, MPI_Request *request);
int MPI_Session_iflush_buffer(MPI_Session session, MPI_Request *request)
{
    (void)session, (void)request;
    REFUSE(MPI_Session_iflush_buffer,
           "MPI-4.1 buffer flushes would have to flush wisp's buffered sends");
}
#endif
#endif
