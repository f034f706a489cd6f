/*
 * The sending side of the engine's protocols (send.c): a send into the
 * ring, immediate or with a rendezvous slot, or queued behind others.
 */
#ifndef WISP_P2P_SEND_H
#define WISP_P2P_SEND_H

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

#include "p2p/types.h"

#pragma GCC visibility push(hidden)

/* Start a send to a local peer (node rank `node`, comm->rank for self). Lock held. */
void wisp_p2p_send_start(struct wisp_p2p_req *req, int node);
/* A non-contiguous send its receiver reads in place: true when it goes so
 * (data NULL, send_layout held), false: pack it. */
bool wisp_p2p_send_layout(struct wisp_p2p_req *req);
/* The blocking fast path: an immediate message straight into the ring;
 * false when it does not go that way. Lock held. */
bool wisp_p2p_send_now(struct wisp_p2p_comm *comm, int dest, int tag, const void *buf,
                       MPI_Count count, MPI_Datatype type);
/* Does a send of this process on `comm` still wait in line for its ring,
 * or in a rendezvous slot? */
bool wisp_p2p_sends_on(const struct wisp_p2p_comm *comm);
/* A synchronous send to self was matched. */
void wisp_p2p_send_matched(struct wisp_p2p_req *req);
/* `committed`: this process's slots 0 to committed - 1 are in /dev/shm. */
void wisp_p2p_sends_init(int node_size, int committed);
void wisp_p2p_sends_fini(void);
/* Does no send need this process any more (MPI_Finalize waits for it)? */
bool wisp_p2p_sends_delivered(void *unused);
/* Then the private copies and freed requests that the slots hold go. */
void wisp_p2p_drop_slot_holds(void);
/* Queued sends into the rings, the slots' copies moved on; true if any. */
bool wisp_p2p_advance_sends(void);
/* Forwarded sends whose MPI request completed let go; true if any. */
bool wisp_p2p_finish_forwarded(void);

/* ---- for lending's sender side (lend/forward.c) ---------------------------- */

/* This process's slots in use: their number, their indexes in `*busy`. */
int wisp_p2p_own_slots(const int **busy);
/* The send in this process's slot `index`. */
struct wisp_p2p_req *wisp_p2p_slot_req(int index);
/* Send `req`, read in place so far, packed into `tmp` (`data`). */
void wisp_p2p_send_pack(struct wisp_p2p_req *req);
/* `req` went through the MPI: let go once its MPI request completes
 * (wisp_p2p_finish_forwarded). */
void wisp_p2p_send_by_mpi(struct wisp_p2p_req *req);
/* The receiver matched the copy of synchronous send `seq` (a MATCHED notice). */
void wisp_p2p_sync_done(uint64_t seq);

#pragma GCC visibility pop

#endif
