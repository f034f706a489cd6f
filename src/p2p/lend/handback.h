/*
 * Messages handed back to their sender (handback.c): the node's table of
 * records, which a receiver fills and its senders claim. Why and when a
 * message goes back is lending's story (lend.h).
 */
#ifndef WISP_P2P_HANDBACK_H
#define WISP_P2P_HANDBACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "p2p/types.h"

#pragma GCC visibility push(hidden)

/* Records free here for messages of sender `sender` (a node rank). */
int wisp_p2p_handback_free(int sender);
/* Hand `msg` back: its record's index and generation in `msg`; false if
 * none is free or its bytes cannot be put where the sender reads them. */
bool wisp_p2p_handback_put(struct wisp_p2p_msg *msg);
/* A receive here takes it: true if recalled before its sender claimed it
 * (else wait until the sender copied it); the record is free again. */
bool wisp_p2p_handback_recall(const struct wisp_p2p_msg *msg);
/* Free the records of `sender` that it sent; their messages into `sent`
 * (a share is at most WISP_P2P_RETURN_MAX), their number returned. */
int wisp_p2p_handback_reclaim(int sender, struct wisp_p2p_msg *sent[WISP_P2P_RETURN_MAX]);
/* Stream the bytes of messages handed back through the pipes, where
 * /dev/shm had no room for their files (wisp_p2p_handback_npiped, lend.h,
 * counts them): true if some moved. */
bool wisp_p2p_handback_pump(void);
/* The sender claims receiver `owner`'s record: a malloc'd copy of the
 * bytes with their size and tag, or NULL if the receiver took it back. */
void *wisp_p2p_handback_claim(int owner, uint32_t index, uint32_t gen, uint64_t *size, int *tag);

#pragma GCC visibility pop

#endif
