/*
 * Lending, the sender's side (lend.h tells the story): a receiver asked,
 * through a rendezvous slot of this process (SLOT_FORWARD, named by
 * message.c), for a synchronous message through the MPI, where its receive
 * is lent. The messages the receiver handed back first (handback.c) go
 * there before it, then the message itself; more batches of those, and
 * the slot waits in HANDING. The transport (send.c) leaves such slots to
 * this pass and lets the requests go once the MPI completed them.
 */
#include "p2p/lend/lend.h"

#include "p2p/lend/handback.h"
#include "p2p/request.h"
#include "p2p/send.h"
#include "p2p/transport.h"

/* Send a message that receiver `to` handed back (its record `index`,
 * generation `gen`) through the MPI, ahead of forwarded send `fwd`, unless
 * the receiver took it back meanwhile. */
static void send_returned(int to, uint32_t index, uint32_t gen, const struct wisp_p2p_req *fwd)
{
    uint64_t size;
    int tag;
    void *bytes = wisp_p2p_handback_claim(to, index, gen, &size, &tag);
    if (!bytes)
        return;
    struct wisp_p2p_req *req = wisp_p2p_req_new(WISP_P2P_SEND, WISP_P2P_LIFE_ACTIVE);
    req->tmp = bytes;
    wisp_p2p_req_move(req, WISP_P2P_HOLD); /* wisp_p2p_finish_forwarded lets it go */
    wisp_p2p_req_move(req, WISP_P2P_FREE); /* nobody else has it */
    wisp_p2p_req_fail_on(req, WISP_P2P_MPI(Isend, size, req->tmp, (MPI_Count)size, MPI_BYTE,
                                           fwd->peer, tag, fwd->handle, &req->inner));
    wisp_p2p_send_by_mpi(req);
}

/* The receiver asks for a synchronous message through the MPI (its receive
 * is lent there: wisp_p2p_forward). It goes there after every earlier one
 * to the same receiver that was asked for (the MPI matches them in the
 * order they reach it), from a thread that may call the MPI; true if it
 * went, or the receiver took it back meanwhile. Also on a communicator the
 * user has freed: wisp keeps it, and the MPI's, while the send is in a
 * slot (comm.c, in_use), and both MPIs take new calls on its handle then. */
static bool forward(struct slot *s, struct wisp_p2p_req *req, const int *busy, int nbusy)
{
    for (int j = 0; j < nbusy; j++) {
        struct slot *earlier = slot_at(wisp_p2p.node_rank, busy[j]);
        uint32_t state = atomic_load_explicit(&earlier->state, memory_order_acquire);
        if (earlier->to == s->to && earlier->seq < s->seq &&
            (state == SLOT_FORWARD || state == SLOT_HANDING))
            return false;
    }
    for (uint32_t k = 0; k < s->lend.nbefore; k++)
        send_returned(s->to, s->lend.before[k].index, s->lend.before[k].gen, req);
    uint32_t asked = SLOT_FORWARD;
    if (s->lend.more) { /* the receiver names the next batch */
        if (slot_swap(s, &asked, SLOT(FORWARD), SLOT_HANDING))
            wake(s->to);
        return true;
    }
    if (!slot_swap(s, &asked, SLOT(FORWARD), SLOT_FORWARDED))
        return true;
    wisp_p2p_send_pack(req); /* read in place so far: the MPI needs it packed */
    wisp_p2p_req_fail_on(req,
                         WISP_P2P_MPI(Issend, req->bytes, req->data, (MPI_Count)req->bytes,
                                      MPI_BYTE, req->peer, req->tag, req->handle, &req->inner));
    return true;
}

bool wisp_p2p_forward_sends(void)
{
    if (!wisp_p2p.forward_asked || wisp_p2p.rescuing) /* the MPI: the application's threads' */
        return false;
    wisp_p2p.forward_asked = false; /* the transport's next pass sees any still asked */
    const int *busy;
    int nbusy = wisp_p2p_own_slots(&busy);
    bool moved = false;
    for (int i = 0; i < nbusy; i++) {
        struct slot *s = slot_at(wisp_p2p.node_rank, busy[i]);
        if (atomic_load_explicit(&s->state, memory_order_acquire) == SLOT_FORWARD)
            moved |= forward(s, wisp_p2p_slot_req(busy[i]), busy, nbusy);
    }
    return moved;
}
