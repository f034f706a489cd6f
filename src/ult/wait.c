/*
 * The blocking MPI calls of a ULT: test, and between tests run the other
 * ULTs of this kernel thread (after a short spin, WISP_ULT_SPIN tests, as
 * an answer that is about to arrive is cheaper to wait for than a switch).
 * Tests go to wisp_impl (core/wrapper.h), the same implementations the
 * application's own MPI_Test* reach, so requests of wisp and of the MPI mix
 * as they do there, and completion order and statuses are exactly theirs.
 */
#include "ult/ult.h"

#include <limits.h>

#include "core/config.h"
#include "core/status.h"
#include "core/wrapper.h"
#include "wisp_have.h"

/* Poll `test` until it reports completion (or an error), yielding. */
#define WISP_ULT_POLL(test, flag)                                                                  \
    do {                                                                                           \
        for (long polls_ = 0;; polls_++) {                                                         \
            int rc_ = (test);                                                                      \
            if (rc_ != MPI_SUCCESS || (flag))                                                      \
                return rc_;                                                                        \
            if (polls_ >= wisp_config.ULT_SPIN)                                                    \
                wisp_ult_yield_once();                                                             \
        }                                                                                          \
    } while (0)

int wisp_ult_wait(MPI_Request *request, MPI_Status *status)
{
    if (!wisp_ult_may_yield())
        return wisp_core_wrapper.impl->MPI_Wait(request, status);
    int flag = 0;
    WISP_ULT_POLL(wisp_core_wrapper.impl->MPI_Test(request, &flag, status), flag);
}

int wisp_ult_waitall(int count, MPI_Request requests[], MPI_Status statuses[])
{
    int flag = 0;
    WISP_ULT_POLL(wisp_core_wrapper.impl->MPI_Testall(count, requests, &flag, statuses), flag);
}

int wisp_ult_waitany(int count, MPI_Request requests[], int *index, MPI_Status *status)
{
    int flag = 0;
    WISP_ULT_POLL(wisp_core_wrapper.impl->MPI_Testany(count, requests, index, &flag, status), flag);
}

int wisp_ult_waitsome(int count, MPI_Request requests[], int *outcount, int indices[],
                      MPI_Status statuses[])
{
    WISP_ULT_POLL(
        wisp_core_wrapper.impl->MPI_Testsome(count, requests, outcount, indices, statuses),
        *outcount != 0); /* MPI_UNDEFINED: nothing active */
}

int wisp_ult_probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    int flag = 0;
    WISP_ULT_POLL(wisp_core_wrapper.impl->MPI_Iprobe(source, tag, comm, &flag, status), flag);
}

int wisp_ult_mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    int flag = 0;
    WISP_ULT_POLL(wisp_core_wrapper.impl->MPI_Improbe(source, tag, comm, &flag, message, status),
                  flag);
}

int wisp_ult_win_wait(MPI_Win win)
{
    int flag = 0;
    WISP_ULT_POLL(wisp_core_wrapper.impl->MPI_Win_test(win, &flag), flag);
}

/* MPI_Sendrecv as a receive and a send under one wait (Open MPI 4.1 has no
 * MPI_Isendrecv); the status is the receive's, as MPI_Sendrecv's is. */
int wisp_ult_sendrecv(const void *sbuf, MPI_Count scount, MPI_Datatype stype, int dest, int stag,
                      void *rbuf, MPI_Count rcount, MPI_Datatype rtype, int source, int rtag,
                      MPI_Comm comm, MPI_Status *status)
{
    MPI_Request reqs[2];
    MPI_Status statuses[2];
#ifdef WISP_HAVE_MPI_Irecv_c
    int rc = wisp_core_wrapper.impl->MPI_Irecv_c(rbuf, rcount, rtype, source, rtag, comm, &reqs[0]);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = wisp_core_wrapper.impl->MPI_Isend_c(sbuf, scount, stype, dest, stag, comm, &reqs[1]);
#else
    if (scount > INT_MAX || rcount > INT_MAX) /* the MPI reports it */
        return wisp_core_wrapper.impl->MPI_Sendrecv(sbuf, (int)scount, stype, dest, stag, rbuf,
                                                    (int)rcount, rtype, source, rtag, comm, status);
    int rc =
        wisp_core_wrapper.impl->MPI_Irecv(rbuf, (int)rcount, rtype, source, rtag, comm, &reqs[0]);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = wisp_core_wrapper.impl->MPI_Isend(sbuf, (int)scount, stype, dest, stag, comm, &reqs[1]);
#endif
    if (rc != MPI_SUCCESS) { /* no send: take the receive back */
        wisp_core_wrapper.impl->MPI_Cancel(&reqs[0]);
        wisp_core_wrapper.impl->MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
        return rc;
    }
    rc = wisp_ult_waitall(2, reqs, statuses);
    if (rc == MPI_ERR_IN_STATUS)
        rc = statuses[0].MPI_ERROR != MPI_SUCCESS ? statuses[0].MPI_ERROR : statuses[1].MPI_ERROR;
    wisp_core_status_single(status, &statuses[0]);
    return rc;
}
