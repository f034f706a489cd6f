/* MPI_Request_c2f: wisp's requests get Fortran handles of their own (Open
 * MPI would read them as its request objects; in MPICH it is a macro). */
#include "p2p/p2p.h"
#include "wrap/impls.h"

#ifdef WISP_HAVE_MPI_Request_c2f
MPI_Fint wisp_impl_MPI_Request_c2f(MPI_Request request)
{
    struct wisp_p2p_req *req = wisp_p2p_req_of(request);
    return req ? wisp_p2p_req_c2f(req) : PMPI_Request_c2f(request);
}
#endif
