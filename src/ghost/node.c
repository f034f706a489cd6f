/*
 * What carve.c sets up for the rest of the ghost layer (board.h), defined
 * here at the bottom, so that the files that read it (async.c, binding.c,
 * win.c, ...) do not depend on carve.c, which starts them; and a command
 * posted on the node's board for its ghosts.
 */
#include "ghost/board.h"

#include <sched.h>
#include <stdatomic.h>

struct wisp_ghost_node wisp_ghost_node = {.all = MPI_COMM_NULL};

void wisp_ghost_post(enum wisp_ghost_cmd cmd, uint32_t arg)
{
    struct wisp_ghost_board *b = wisp_ghost_node.board;
    uint32_t seq = atomic_load_explicit(&b->seq, memory_order_relaxed);
    for (int g = 0; g < wisp_ghost_node.ghosts; g++)
        while (atomic_load_explicit(&b->taken[g], memory_order_acquire) != seq)
            sched_yield();
    b->cmd = (uint32_t)cmd;
    b->arg = arg;
    atomic_fetch_add_explicit(&b->seq, 1, memory_order_release);
    for (int g = 0; g < wisp_ghost_node.ghosts; g++)
        wisp_doorbell_ring(&b->bells[g]);
}
