/*
 * Served communicators by context number (contexts.c), and the messages
 * that came for a context not served here yet.
 */
#ifndef WISP_P2P_CONTEXTS_H
#define WISP_P2P_CONTEXTS_H

#include "p2p/types.h"

#pragma GCC visibility push(hidden)

enum { WISP_P2P_CONTEXTS = 4096 };
/* The served communicator with context `ctx` here, or NULL. */
struct wisp_p2p_comm *wisp_p2p_comm_of_ctx(int ctx);
/* comm.c serves (`c`) or forgets (NULL) context `ctx`. */
void wisp_p2p_comm_set_ctx(int ctx, struct wisp_p2p_comm *c);
/* A message for a context not served here yet (its communicator is still
 * being created in this process): kept until it is, then delivered in order. */
void wisp_p2p_comm_keep_early(struct wisp_p2p_msg *msg);
/* Those messages, in arrival order (comm.c takes them). */
struct wisp_list *wisp_p2p_comm_early(void);
/* Call `visit` on every queue of unexpected local messages: each served
 * communicator's, and the one of those kept early. */
void wisp_p2p_comm_each_unexpected(void (*visit)(struct wisp_list *queue, void *arg), void *arg);

#pragma GCC visibility pop

#endif
