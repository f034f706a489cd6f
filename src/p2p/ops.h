/*
 * The point-to-point operations behind the MPI functions (ops.c): sends,
 * receives, probes, persistent requests, the combined send-receives.
 */
#ifndef WISP_P2P_OPS_H
#define WISP_P2P_OPS_H

#include <mpi.h>
#include <stdbool.h>

#include "p2p/comm.h"
#include "p2p/lock.h"
#include "p2p/types.h"

#pragma GCC visibility push(hidden)

int wisp_p2p_isend(const void *buf, MPI_Count count, MPI_Datatype type, int dest, int tag,
                   MPI_Comm comm, int mode, MPI_Request *request);
int wisp_p2p_send_to(const void *buf, MPI_Count count, MPI_Datatype type, int dest, int tag,
                     MPI_Comm comm, int mode);
/* A send to MPI_PROC_NULL carries nothing: straight to the MPI (its checks,
 * its return), at the cost of one comparison (inline: `mode` is a constant
 * in every caller, so one call of the MPI's function remains). */
static inline int wisp_p2p_send(const void *buf, MPI_Count count, MPI_Datatype type, int dest,
                                int tag, MPI_Comm comm, int mode)
{
    if (dest != MPI_PROC_NULL)
        return wisp_p2p_send_to(buf, count, type, dest, tag, comm, mode);
    switch (mode) {
    case WISP_P2P_SYNC:
        return WISP_P2P_MPI(Ssend, count, buf, count, type, dest, tag, comm);
    case WISP_P2P_BUFFERED:
        return WISP_P2P_MPI(Bsend, count, buf, count, type, dest, tag, comm);
    case WISP_P2P_READY:
        return WISP_P2P_MPI(Rsend, count, buf, count, type, dest, tag, comm);
    default:
        return WISP_P2P_MPI(Send, count, buf, count, type, dest, tag, comm);
    }
}
int wisp_p2p_irecv(void *buf, MPI_Count count, MPI_Datatype type, int source, int tag,
                   MPI_Comm comm, MPI_Request *request);
int wisp_p2p_recv(void *buf, MPI_Count count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                  MPI_Status *status);
int wisp_p2p_send_init(const void *buf, MPI_Count count, MPI_Datatype type, int dest, int tag,
                       MPI_Comm comm, int mode, MPI_Request *request);
int wisp_p2p_recv_init(void *buf, MPI_Count count, MPI_Datatype type, int source, int tag,
                       MPI_Comm comm, MPI_Request *request);
/* A persistent request of a layer above the engine (kind ABOVE, form
 * PERSISTENT: src/coll/persist.h) for its operation `op` on `comm`:
 * inactive, the communicator held until it is freed; its handle in
 * *handle. MPI_Start asks the layer for each round (wisp_p2p_up.above_start),
 * MPI_Request_free tells it (above_free). Lock held. */
void wisp_p2p_above_persistent(void *op, MPI_Comm comm, MPI_Request *handle);
int wisp_p2p_start(MPI_Request *request);
int wisp_p2p_startall(int count, MPI_Request requests[]);
int wisp_p2p_iprobe_from(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status);
/* A probe of MPI_PROC_NULL (which finds its empty message at once) or of a
 * communicator wisp does not serve is the MPI's alone: inline, so that it
 * costs the caller a comparison or two before the MPI's own call. */
static inline int wisp_p2p_iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    /* The communicator found unserved last time, read without the lock when
     * no second thread may enter; anything else, the call below asks again
     * (under the lock). */
    if (source == MPI_PROC_NULL || (!wisp_p2p_locking.on && comm == wisp_p2p_comm_cache.unserved))
        return PMPI_Iprobe(source, tag, comm, flag, status);
    return wisp_p2p_iprobe_from(source, tag, comm, flag, status);
}
int wisp_p2p_probe(int source, int tag, MPI_Comm comm, MPI_Status *status);
int wisp_p2p_improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                     MPI_Status *status);
int wisp_p2p_mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status);
int wisp_p2p_imrecv(void *buf, MPI_Count count, MPI_Datatype type, MPI_Message *message,
                    MPI_Request *request);
int wisp_p2p_mrecv(void *buf, MPI_Count count, MPI_Datatype type, MPI_Message *message,
                   MPI_Status *status);
int wisp_p2p_sendrecv(const void *sbuf, MPI_Count scount, MPI_Datatype stype, int dest, int stag,
                      void *rbuf, MPI_Count rcount, MPI_Datatype rtype, int source, int rtag,
                      MPI_Comm comm, MPI_Status *status);
int wisp_p2p_sendrecv_replace(void *buf, MPI_Count count, MPI_Datatype type, int dest, int stag,
                              int source, int rtag, MPI_Comm comm, MPI_Status *status);
/* MPI_Isendrecv and MPI_Isendrecv_replace: one request for a receive and a
 * send that each go through wisp or the MPI, as MPI_Irecv and MPI_Isend
 * would. */
int wisp_p2p_isendrecv(const void *sbuf, MPI_Count scount, MPI_Datatype stype, int dest, int stag,
                       void *rbuf, MPI_Count rcount, MPI_Datatype rtype, int source, int rtag,
                       MPI_Comm comm, MPI_Request *request);
int wisp_p2p_isendrecv_replace(void *buf, MPI_Count count, MPI_Datatype type, int dest, int stag,
                               int source, int rtag, MPI_Comm comm, MPI_Request *request);

#pragma GCC visibility pop

#endif
