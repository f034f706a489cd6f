/*
 * Served communicators by context number: the engine and matching find a
 * message's communicator by the context it carries. comm.c makes and frees
 * the communicators and keeps this table; a message whose communicator is
 * not served here yet (its sender finished the agreement first) waits in
 * `early` until comm.c serves it.
 */
#include "p2p/contexts.h"

static struct wisp_p2p_comm *by_ctx[WISP_P2P_CONTEXTS];
/* In arrival order (drained by another thread or the rescuer meanwhile). */
static struct wisp_list early = {&early, &early};

struct wisp_p2p_comm *wisp_p2p_comm_of_ctx(int ctx)
{
    return ctx >= 0 && ctx < WISP_P2P_CONTEXTS ? by_ctx[ctx] : NULL;
}

void wisp_p2p_comm_set_ctx(int ctx, struct wisp_p2p_comm *c)
{
    by_ctx[ctx] = c;
}

void wisp_p2p_comm_keep_early(struct wisp_p2p_msg *msg)
{
    wisp_list_push(&early, &msg->link);
}

struct wisp_list *wisp_p2p_comm_early(void)
{
    return &early;
}

void wisp_p2p_comm_each_unexpected(void (*visit)(struct wisp_list *queue, void *arg), void *arg)
{
    for (int ctx = 0; ctx < WISP_P2P_CONTEXTS; ctx++)
        if (by_ctx[ctx])
            visit(&by_ctx[ctx]->unexpected, arg);
    visit(&early, arg);
}
