/*
 * The receiving side of the engine's protocols (recv.c): the rings drained,
 * each message matched (an immediate one against the posted receives of
 * queues.c, the others handed up through the `incoming` callback) or kept
 * unexpected, and the bytes of a matched one copied in.
 */
#ifndef WISP_P2P_RECV_H
#define WISP_P2P_RECV_H

#include <stdbool.h>
#include <stdint.h>

#include "p2p/types.h"

struct wisp_fastbox_ring;

#pragma GCC visibility push(hidden)

/* Move the bytes of a matched rendezvous message. Lock held. */
void wisp_p2p_recv_advance(struct wisp_p2p_req *req);
/* The receive finished copying: unpack, complete. */
void wisp_p2p_recv_finish(struct wisp_p2p_req *req);
/* Finish the receives the rescuer completed that need the MPI (unpack, a
 * type to give back); the application's threads only. */
void wisp_p2p_finish_deferred(void);
/* Tell the sender of synchronous `copy` (a spilled one: sync_seq) that a
 * receive matched it. Lock held. */
void wisp_p2p_sync_matched(const struct wisp_p2p_msg *copy);
/* Is `msg` a synchronous rendezvous message? */
bool wisp_p2p_msg_sync(const struct wisp_p2p_msg *msg);
/* Take every message waiting in ring `r` from node rank `from`; true if any. */
bool wisp_p2p_drain(struct wisp_fastbox_ring *r, int from);
/* The receives copying a rendezvous message, moved on; true if any. */
bool wisp_p2p_copy_receiving(void);
/* Done with a message of the ring/slot transport that no one will read:
 * its slot back to its sender (lending first, for one it marked). */
void wisp_p2p_msg_drop(struct wisp_p2p_msg *msg);
/* The MATCHED notices that found a full ring, again; true if any went. */
bool wisp_p2p_send_notices(void);

#pragma GCC visibility pop

#endif
