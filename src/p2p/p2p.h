/*
 * The intra-node point-to-point engine, as the other folders see it: the
 * operations behind the MPI functions (routes.def), the engine's start and
 * end, and its progress thread. Inside src/p2p each file includes the
 * headers of the files it uses, from the bottom up (docs/p2p.md).
 *
 * The engine. Messages between processes of one
 * (virtual) node travel through shared memory; everything else goes to the
 * underlying MPI. A communicator is served whole or not at all: once one
 * local message can travel through wisp, every receive, probe and request
 * function on that communicator looks at wisp's queues too.
 *
 * Transport (transport.h; start.c, send.c, recv.c, blocks.c, progress.c):
 * per ordered pair of node processes a fastbox ring
 * (src/shm/fastbox.h); per process a set of rendezvous slots with a staging
 * area, in one node segment. Protocols, by size and by where the send buffer
 * lives: immediate (payload in the ring cells), staged (pipelined two copies
 * through the sender's slot), single copy (the receiver copies straight out
 * of a send buffer in the shared heap) and synergistic (sender and receiver
 * copy blocks claimed from a shared counter).
 *
 * Matching (match.c): per communicator, posted receives and unexpected
 * messages from local senders; receives that may match a remote sender go to
 * the MPI, wildcards through matched probes (queue `remote`), never as a
 * wildcard receive the MPI would have to cancel.
 *
 * Lending (lend/lend.h tells it; the folder src/p2p/lend): around a
 * blocking call the MPI serves alone, the receives that wait for the MPI
 * are posted there; a local message one of them matches is copied aside
 * or sent through the MPI by its sender, so that no sender waits for it.
 *
 * Requests (request.c): wisp's requests travel as MPI_Request values the MPI
 * never produces; complete.c serves every MPI_Wait / MPI_Test form on arrays
 * that mix them with the MPI's.
 *
 * Locking (lock.h): one engine lock, taken when a second thread may enter
 * (the rescuer of progress.c, or the application's under MPI_THREAD_MULTIPLE).
 */
#ifndef WISP_P2P_P2P_H
#define WISP_P2P_P2P_H

#include "p2p/comm.h"      /* communicators made and freed */
#include "p2p/complete.h"  /* MPI_Wait, MPI_Test and their forms */
#include "p2p/datatype.h"  /* MPI_Type_free, MPI_Pack, MPI_Unpack */
#include "p2p/lend/lend.h" /* lending around blocking calls */
#include "p2p/ops.h"       /* sends, receives, probes */
#include "p2p/progress.h"  /* the progress thread */
#include "p2p/request.h"   /* handles to and from Fortran */
#include "p2p/start.h"     /* start and end */
#include "p2p/state.h"
#include "p2p/types.h" /* the send modes */

#pragma GCC visibility push(hidden)

/* Around a blocking call that only the MPI serves (a routes.def route
 * marked `lend`): lend the receives that wait for the MPI to it (true if
 * any), wisp_p2p_reclaim after the call (lend/lend.h tells the story). Inline:
 * every such call asks (a program that polls MPI_Win_flush_local_all,
 * millions of times), and mostly nothing is in flight. */
static inline bool wisp_p2p_lend(void)
{
    return wisp_p2p_busy() && wisp_p2p_lend_waiting();
}

#pragma GCC visibility pop

#endif
