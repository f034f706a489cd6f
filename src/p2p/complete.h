/*
 * MPI_Wait, MPI_Test and their any/some/all forms (complete.c): inline
 * where the MPI serves them alone, so that a poll of the MPI's own requests
 * costs one look at each handle before the MPI's call.
 */
#ifndef WISP_P2P_COMPLETE_H
#define WISP_P2P_COMPLETE_H

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

#include "p2p/lock.h"
#include "p2p/match.h"
#include "p2p/request.h"
#include "p2p/state.h"
#include "p2p/types.h"

#pragma GCC visibility push(hidden)

/* Is it complete (progressing `inner` if any)? Engine lock held (complete.c). */
bool wisp_p2p_req_test_more(struct wisp_p2p_req *req);
static inline bool wisp_p2p_req_test(struct wisp_p2p_req *req)
{
    if (wisp_p2p_req_done(req))
        return true;
    if (req->where != WISP_P2P_RECV_DEFERRED && req->form == WISP_P2P_PLAIN &&
        req->inner == MPI_REQUEST_NULL)
        return false; /* the engine completes it (inline: polls ask this of each) */
    return wisp_p2p_req_test_more(req);
}
/* Wait for one of the MPI's requests while the engine keeps moving. */
int wisp_p2p_wait_mpi(MPI_Request *request, MPI_Status *status);
/* Report `code` through the communicator's error handler. */
static inline int wisp_p2p_error(MPI_Comm comm, int code)
{
    PMPI_Comm_call_errhandler(comm, code);
    return code;
}

/* complete.c: MPI_Wait and MPI_Test, and their all/any/some forms (`test`:
 * the Test form, which sets *flag) over arrays that hold a request of wisp,
 * or while wisp has work in flight that a blocking wait must keep moving. */
int wisp_p2p_waitall_mixed(int n, MPI_Request *reqs, MPI_Status *statuses, bool test, int *flag,
                           bool raise);
int wisp_p2p_waitany_mixed(int n, MPI_Request *reqs, int *index, MPI_Status *status, bool test,
                           int *flag);
int wisp_p2p_waitsome_mixed(int n, MPI_Request *reqs, int *outcount, int *indices,
                            MPI_Status *statuses, bool test);
/* wisp_p2p_waitany_mixed's test, with a fast path for requests that are
 * all wisp's (a poll of receives on a served communicator). */
int wisp_p2p_testany_mixed(int n, MPI_Request *reqs, int *index, int *flag, MPI_Status *status);
int wisp_p2p_wait1_ours(MPI_Request *request, MPI_Status *status, bool test, int *flag);
int wisp_p2p_request_free(MPI_Request *request);
int wisp_p2p_request_get_status(MPI_Request request, int *flag, MPI_Status *status);
/* Also in an MPICH build whose mpi.h lacks them (MPICH 4.0.2): a newer MPI
 * of MPICH's ABI beneath has them (Intel MPI 2021.19, src/wrap/newer.c). */
#if defined(WISP_HAVE_MPI_Request_get_status_any) || defined(MPICH)
int wisp_p2p_request_get_status_any(int n, const MPI_Request reqs[], int *index, int *flag,
                                    MPI_Status *status);
int wisp_p2p_request_get_status_all(int n, const MPI_Request reqs[], int *flag,
                                    MPI_Status statuses[]);
int wisp_p2p_request_get_status_some(int n, const MPI_Request reqs[], int *outcount, int indices[],
                                     MPI_Status statuses[]);
#endif
int wisp_p2p_cancel(MPI_Request *request);

/* Does this array hold any of wisp's requests? One test per handle, no
 * branch (a poll over the MPI's requests pays it before the MPI's call);
 * true for a handle of wisp's form that names none also: the caller then
 * looks closer. (Open MPI: the pool's range is read once, not per handle.) */
static inline bool wisp_p2p_handle_ours(MPI_Request handle, uintptr_t base, uintptr_t span)
{
#if defined(MPICH) /* the tag bits are WISP_P2P_HANDLE_TAG or WISP_P2P_SENT_TAG */
    (void)base, (void)span;
    return ((((unsigned)handle & WISP_P2P_HANDLE_MASK) - WISP_P2P_HANDLE_TAG) &
            ~(unsigned)WISP_P2P_HANDLE_TAG) == 0;
#else
    return (uintptr_t)(const void *)handle - base < span;
#endif
}

static inline bool wisp_p2p_any_ours(int n, const MPI_Request *reqs)
{
#if defined(MPICH)
    uintptr_t base = 0, span = 0;
#else
    uintptr_t base = WISP_P2P_POOL(base), span = WISP_P2P_POOL(span);
#endif
    bool a = false, b = false, c = false, d = false; /* four at a time, independent */
    int i = 0;
    for (; i + 4 <= n; i += 4) {
        a |= wisp_p2p_handle_ours(reqs[i], base, span);
        b |= wisp_p2p_handle_ours(reqs[i + 1], base, span);
        c |= wisp_p2p_handle_ours(reqs[i + 2], base, span);
        d |= wisp_p2p_handle_ours(reqs[i + 3], base, span);
    }
    for (; i < n; i++)
        a |= wisp_p2p_handle_ours(reqs[i], base, span);
    return a | b | c | d;
}

/* The forms the MPI serves alone, inline, so that a poll of the MPI's own
 * requests (MPI_Testany over receives in a loop, say) costs one look at each
 * handle before the MPI's call: requests that are all the MPI's, in a test,
 * or in a wait while wisp has nothing in flight. */
/* A test or probe that the MPI alone answers: natively it would move the
 * MPI, which matches the wildcard receives that wisp keeps for remote
 * senders meanwhile; a program may poll so for a message whose sender
 * waits for one of those (p2p_semantics probe_polls_wildcard). */
static inline void wisp_p2p_mpi_polls(void)
{
    if (wisp_p2p_remote_waiting()) {
        wisp_p2p_lock();
        wisp_p2p_remote_advance();
        wisp_p2p_unlock();
    }
}

static inline int wisp_p2p_wait1(MPI_Request *request, MPI_Status *status, bool test, int *flag)
{
    if (wisp_p2p_req_of(*request))
        return wisp_p2p_wait1_ours(request, status, test, flag);
    if (test) {
        wisp_p2p_mpi_polls();
        return PMPI_Test(request, flag, status);
    }
    return wisp_p2p_busy() ? wisp_p2p_wait_mpi(request, status) : PMPI_Wait(request, status);
}

static inline int wisp_p2p_waitall(int n, MPI_Request *reqs, MPI_Status *statuses, bool test,
                                   int *flag, bool raise)
{
    bool mpi_only = !wisp_p2p_any_ours(n, reqs);
    if (mpi_only && test) {
        wisp_p2p_mpi_polls();
        return PMPI_Testall(n, reqs, flag, statuses);
    }
    if (mpi_only && !wisp_p2p_busy() && !wisp_p2p.waitall_polls)
        return PMPI_Waitall(n, reqs, statuses);
    return wisp_p2p_waitall_mixed(n, reqs, statuses, test, flag, raise);
}

static inline int wisp_p2p_waitany(int n, MPI_Request *reqs, int *index, MPI_Status *status,
                                   bool test, int *flag)
{
    bool mpi_only = !wisp_p2p_any_ours(n, reqs);
    if (mpi_only && test) {
        wisp_p2p_mpi_polls();
        return PMPI_Testany(n, reqs, index, flag, status);
    }
    if (mpi_only && !wisp_p2p_busy())
        return PMPI_Waitany(n, reqs, index, status);
    return test ? wisp_p2p_testany_mixed(n, reqs, index, flag, status)
                : wisp_p2p_waitany_mixed(n, reqs, index, status, false, NULL);
}

static inline int wisp_p2p_waitsome(int n, MPI_Request *reqs, int *outcount, int *indices,
                                    MPI_Status *statuses, bool test)
{
    bool mpi_only = !wisp_p2p_any_ours(n, reqs);
    if (mpi_only && test) {
        wisp_p2p_mpi_polls();
        return PMPI_Testsome(n, reqs, outcount, indices, statuses);
    }
    if (mpi_only && !wisp_p2p_busy())
        return PMPI_Waitsome(n, reqs, outcount, indices, statuses);
    return wisp_p2p_waitsome_mixed(n, reqs, outcount, indices, statuses, test);
}

#pragma GCC visibility pop

#endif
