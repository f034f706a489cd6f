/*
 * Lending's parts of the engine's objects (lend/lend.h tells the story): a
 * message's, below, and a rendezvous slot's; data only, at the ground so
 * that types.h and transport.h can embed them. The files of lend/ alone
 * write and read them; the rest of the engine asks only
 * wisp_p2p_lending_marked, which decides whether matching hands a message
 * to lending (wisp_p2p_up.lending), and raises the events below. Included
 * by types.h after struct wisp_list.
 */
#ifndef WISP_P2P_LEND_PARTS_H
#define WISP_P2P_LEND_PARTS_H

#include <stdbool.h>
#include <stdint.h>

struct wisp_p2p_comm;
struct wisp_p2p_req;
struct wisp_p2p_msg;

/*
 * A message copied aside into private memory (wisp_p2p_spill: its receive
 * is lent, or its sender is out of slots), while the copy fills (lend/message.c,
 * "a copy's life", has every transition; each checks where it comes from
 * in the debug and sanitizer builds):
 *
 *   NONE                    not a copy: its bytes are in `data` or a slot
 *   FILLING -> TAKEN        a receive matched it meanwhile (`taker`)
 *   FILLING -> DROPPED      no one will read it (wisp_p2p_msg_drop)
 *   FILLING | TAKEN | DROPPED -> WHOLE
 *                           filled: an unexpected message like any other;
 *                           TAKEN is then delivered, DROPPED freed
 */
/* The states, each named once: the enum and the names in copy_move's line. */
#define WISP_P2P_COPY_STATES(X) X(NONE) X(FILLING) X(TAKEN) X(DROPPED) X(WHOLE)
enum wisp_p2p_copy {
#define X(state) WISP_P2P_COPY_##state,
    WISP_P2P_COPY_STATES(X)
#undef X
};
/*
 * A local message's way to the MPI, for a receive lent there (lend/message.c,
 * "a message's route", has every transition; each checks where it comes
 * from in the debug and sanitizer builds):
 *
 *   HERE -> ASKED | BATCHED   a synchronous one: its sender is asked to
 *                             send it through the MPI (wisp_p2p_forward);
 *                             BATCHED while earlier ones still wait for
 *                             records, then ASKED
 *   HERE -> QUEUED            an earlier one of its sender, to go before it
 *   QUEUED -> HANDED          named to its sender in a record (handback.c)
 *   QUEUED -> HERE            the synchronous one was recalled
 *   HANDED -> SENT            its sender sent it through the MPI
 *   any -> HERE               recalled by a receive here
 *                             (wisp_p2p_forward_recall)
 *
 * Every state but HERE marks the message among the unexpected ones: the
 * MPI may hold it, or soon will.
 */
/* The states, each named once: the enum and the names in route_move's line. */
#define WISP_P2P_ROUTE_STATES(X) X(HERE) X(QUEUED) X(HANDED) X(SENT) X(ASKED) X(BATCHED)
enum wisp_p2p_route {
#define X(state) WISP_P2P_ROUTE_##state,
    WISP_P2P_ROUTE_STATES(X)
#undef X
};
/* Lending's part of a message: written and read by the files of this
 * folder alone; elsewhere only wisp_p2p_lending_marked asks of it. All
 * zero for a message never lent. */
struct wisp_p2p_msg_lending {
    enum wisp_p2p_copy copy;     /* a private copy's life */
    struct wisp_p2p_req *taker;  /* WISP_P2P_COPY_TAKEN: the receive that matched it */
    uint64_t sync_seq;           /* a synchronous one's copy: its sender's number */
    enum wisp_p2p_route route;   /* its way to the MPI */
    uint32_t ret_index, ret_gen; /* WISP_P2P_ROUTE_HANDED: its record and generation */
    struct wisp_p2p_msg *behind; /* WISP_P2P_ROUTE_QUEUED: the synchronous one it goes before */
    struct wisp_list hlink;      /* WISP_P2P_ROUTE_BATCHED: in lend/message.c's list of those */
};

/* Does lending have a say in what happens to this message: a copy aside,
 * a synchronous copy whose sender waits to hear of its match, or a message
 * on its way to the MPI? Never for a message of a receive never lent. */
static inline bool wisp_p2p_lending_marked(const struct wisp_p2p_msg_lending *lend)
{
    return lend->copy != WISP_P2P_COPY_NONE || lend->sync_seq || lend->route != WISP_P2P_ROUTE_HERE;
}

/* What matching and the transport tell lending: the one way into this
 * folder from below (wisp_p2p_up.lending, state.h; lend/lend.c answers). */
enum wisp_p2p_lend_kind {
    WISP_P2P_LEND_WAITS,    /* `msg`, queued: the first receive it matches is lent */
    WISP_P2P_LEND_TAKEN,    /* receive `req` takes marked `msg`: true if lending delivers it */
    WISP_P2P_LEND_DROPPED,  /* no one reads marked `msg`: true if lending keeps it (freed later) */
    WISP_P2P_LEND_WHOLE,    /* the copy aside that `req` filled (req->spill) is whole */
    WISP_P2P_LEND_FROM_MPI, /* the MPI gave a message of local `source` with `tag` on `comm` */
};
struct wisp_p2p_lend_event {
    enum wisp_p2p_lend_kind kind;
    struct wisp_p2p_comm *comm;
    struct wisp_p2p_req *req;
    struct wisp_p2p_msg *msg;
    int source, tag;
};

/* Earlier messages of one sender that one forwarded message names at once
 * (a batch: more go in further batches), and the most records one process
 * keeps per sender (handback.c). */
#define WISP_P2P_RETURN_MAX 64

/* Lending's part of a rendezvous slot (transport.h): for a message
 * forwarded through the MPI, the earlier ones handed back, to send through
 * the MPI first (written by the receiver, lend/message.c; read by the
 * sender, lend/forward.c). */
struct wisp_p2p_slot_lending {
    uint32_t nbefore;
    uint32_t more; /* further batches follow: wait in HANDING for them */
    struct {
        uint32_t index, gen;
    } before[WISP_P2P_RETURN_MAX];
};

#endif
