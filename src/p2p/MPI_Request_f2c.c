/* MPI_Request_f2c: the Fortran handles of MPI_Request_c2f back to wisp's
 * requests; the MPI's own to the MPI. */
#include "p2p/p2p.h"
#include "wrap/impls.h"

#ifdef WISP_HAVE_MPI_Request_f2c
MPI_Request wisp_impl_MPI_Request_f2c(MPI_Fint request)
{
    struct wisp_p2p_req *req = wisp_p2p_req_of_fint(request);
    return req ? wisp_p2p_req_handle(req) : PMPI_Request_f2c(request);
}
#endif
