/*
 * User-level threads inside wisp (seed 003): the scheduler (sched.c) and
 * the blocking MPI calls that yield instead of blocking the kernel thread
 * (yields.def, wait.c, rma.c; docs/ult.md).
 */
#ifndef WISP_ULT_ULT_H
#define WISP_ULT_ULT_H

#include <mpi.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "core/init.h"
#include "wisp.h"

#pragma GCC visibility push(hidden)

/* ULTs forked and not finished, in the whole process: 0 in a program
 * that never forks one, which then pays a load for each blocking call. */
extern _Atomic unsigned wisp_ult_alive;

/* Start the streams (once; reads WISP_ULT_*). 0 or an errno value. */
int wisp_ult_start(void);
/* Run another ULT of this thread's stream, if one is ready: true if it did. */
bool wisp_ult_yield_once(void);
/* Does this kernel thread run ULTs other than the caller? */
bool wisp_ult_here_shared(void);

/* Should a blocking MPI call made here yield while it waits? */
static inline bool wisp_ult_may_yield(void)
{
    return atomic_load_explicit(&wisp_ult_alive, memory_order_relaxed) && wisp_ult_here_shared();
}

/* The waits of MPI, polling and yielding (wait.c). */
int wisp_ult_wait(MPI_Request *request, MPI_Status *status);
int wisp_ult_waitall(int count, MPI_Request requests[], MPI_Status statuses[]);
int wisp_ult_waitany(int count, MPI_Request requests[], int *index, MPI_Status *status);
int wisp_ult_waitsome(int count, MPI_Request requests[], int *outcount, int indices[],
                      MPI_Status statuses[]);
int wisp_ult_probe(int source, int tag, MPI_Comm comm, MPI_Status *status);
int wisp_ult_mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status);
int wisp_ult_sendrecv(const void *sbuf, MPI_Count scount, MPI_Datatype stype, int dest, int stag,
                      void *rbuf, MPI_Count rcount, MPI_Datatype rtype, int source, int rtag,
                      MPI_Comm comm, MPI_Status *status);
int wisp_ult_win_wait(MPI_Win win);

/* One-sided communication from ULTs (rma.c). Inside a passive-target epoch,
 * operations of ULTs become request-based (tracked here);
 * a flush or an unlock first waits for the requests of its targets while
 * yielding, then calls the MPI's (`next`), which has only remote completion
 * left to do. */
extern _Atomic int wisp_ult_rma_windows;  /* windows with an entry here */
extern _Atomic int wisp_ult_rma_requests; /* requests of ULTs' operations kept here */
bool wisp_ult_rma_open(MPI_Win win);
int wisp_ult_rma_track(MPI_Win win, int target, MPI_Request request);
int wisp_ult_win_lock(int type, int rank, int assert, MPI_Win win,
                      int (*next)(int, int, int, MPI_Win));
int wisp_ult_win_lock_all(int assert, MPI_Win win, int (*next)(int, MPI_Win));
/* flush, flush_local, unlock (`closes` the epoch) of one target */
int wisp_ult_win_settle(int rank, MPI_Win win, bool closes, int (*next)(int, MPI_Win));
/* the same for every target */
int wisp_ult_win_settle_all(MPI_Win win, bool closes, int (*next)(MPI_Win));

#pragma GCC visibility pop

#endif
