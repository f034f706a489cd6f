/*
 * Statuses of calls that wisp serves with several of the MPI's (or its
 * own) operations.
 */
#ifndef WISP_CORE_STATUS_H
#define WISP_CORE_STATUS_H

#include <mpi.h>

/* The status of a single completion made of several (MPI_Sendrecv through
 * two requests): `from`, but MPI_ERROR as the caller left it, as the
 * standard says single completions do. */
static inline void wisp_core_status_single(MPI_Status *status, const MPI_Status *from)
{
    if (status == MPI_STATUS_IGNORE)
        return;
    int error = status->MPI_ERROR;
    *status = *from;
    status->MPI_ERROR = error;
}

#endif
