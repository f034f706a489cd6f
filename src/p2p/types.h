/*
 * What the engine's files share, at the bottom of src/p2p: the list, and the
 * three objects they hand each other (a served communicator, a message from
 * a local sender, a request) with the states a request and a message move
 * through. Each state changes only through its machine's move function: a
 * request's life in request.h (wisp_p2p_req_move, one table), where a
 * receive waits in queues.c (wisp_p2p_recv_move; matching makes the moves);
 * lending's part of a message, its copy aside and its route to the MPI, in
 * lend_parts.h (moved by lend/message.c's copy_move and route_move).
 */
#ifndef WISP_P2P_TYPES_H
#define WISP_P2P_TYPES_H

#include <limits.h>
#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dt/dt.h"
#include "wisp_have.h" /* WISP_HAVE_MPI_*: what the underlying MPI has */

/* MPI-4's large-count forms. MPICH 4 has them; Open MPI 4.1 has none, and
 * then no entry point can pass wisp a count above INT_MAX. WISP_P2P_MPI
 * calls the MPI's `fn`, or `fn_c` when `count` does not fit an int. */
#ifdef WISP_HAVE_MPI_Send_c
#define WISP_P2P_LARGE_COUNTS 1
#define WISP_P2P_MPI(fn, count, ...)                                                               \
    ((count) > INT_MAX ? PMPI_##fn##_c(__VA_ARGS__) : PMPI_##fn(__VA_ARGS__))
#else
#define WISP_P2P_MPI(fn, count, ...) PMPI_##fn(__VA_ARGS__)
#endif

#pragma GCC visibility push(hidden)

/* An intrusive doubly linked list; a list is its own sentinel. */
struct wisp_list {
    struct wisp_list *prev, *next;
};

static inline void wisp_list_init(struct wisp_list *l)
{
    l->prev = l->next = l;
}
static inline bool wisp_list_empty(const struct wisp_list *l)
{
    return l->next == l;
}
static inline void wisp_list_push(struct wisp_list *l, struct wisp_list *item)
{
    item->prev = l->prev;
    item->next = l;
    l->prev->next = item;
    l->prev = item;
}
static inline void wisp_list_remove(struct wisp_list *item)
{
    item->prev->next = item->next;
    item->next->prev = item->prev;
    item->prev = item->next = item;
}
#define wisp_list_entry(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))

struct wisp_p2p_msg;

/* A served communicator (comm.c makes and frees it; contexts.c finds it by
 * its context). */
struct wisp_p2p_comm {
    MPI_Comm handle;
    int ctx; /* the same in every member; unique among this process's comms */
    int rank, size;
    int *node_of;                 /* comm rank -> node rank, -1 when remote */
    int *rank_of;                 /* node rank -> comm rank, -1 when not a member */
    bool has_remote;              /* some member lives on another node */
    struct wisp_list posted;      /* receives waiting for a local message */
    struct wisp_list unexpected;  /* local messages no receive took yet */
    struct wisp_list remote;      /* receives not yet handed to the MPI */
    struct wisp_list remote_link; /* in the engine's list of comms with `remote` work */
    unsigned holds;               /* persistent requests of wisp on it */
    bool freed;                   /* by the user: wisp keeps it while it uses it */
    MPI_Request anchor;           /* the MPI's request that keeps the MPI's comm alive meanwhile */
};

enum wisp_p2p_mode { WISP_P2P_STANDARD, WISP_P2P_SYNC, WISP_P2P_BUFFERED, WISP_P2P_READY };
/* ABOVE: a request of a layer above the engine (form ABOVE). */
enum wisp_p2p_kind { WISP_P2P_SEND = 1, WISP_P2P_RECV, WISP_P2P_MESSAGE, WISP_P2P_ABOVE };

#include "p2p/lend_parts.h" /* lending's part of a message */

/* A message from a local sender that has reached this process. */
struct wisp_p2p_msg {
    struct wisp_list link;
    int source, tag;
    uint64_t size;
    int from;                    /* the sender's node rank */
    int ctx;                     /* its communicator's context (until that is served here) */
    int slot;                    /* its rendezvous slot, or -1: the payload is in data */
    const char *src;             /* rendezvous, single copy: the send buffer */
    uint64_t staged, drained;    /* rendezvous, staged: chunks known ready, chunks copied out */
    struct wisp_p2p_req *waiter; /* a synchronous send to self, done at the match */
    struct wisp_p2p_msg_lending lend;
    unsigned char data[];
};

/*
 * A request's life: where its operation is and who still holds it, the
 * user (through its handle) or the engine (a slot, a line or a list refers
 * to it: sends only). request.h has every move, in one table; a request is
 * released only by a move that leaves nobody holding it.
 *
 *   FREE             in the pool's free list
 *   INACTIVE         persistent, between rounds: the user's
 *   ACTIVE           its operation runs: the user's
 *   ACTIVE_HELD      ... and the engine's
 *   FREED            its operation runs; the user freed it (MPI_Request_free):
 *                    released when it completes
 *   FREED_HELD       ... and the engine holds it: released when the engine
 *                    lets go (a send is the engine's work: nobody completes
 *                    it after that)
 *   DONE             completed, the result below: the user's until reported
 *   DONE_HELD        completed for the user (from a private copy), and the
 *                    engine still sends it
 *   FREED_DONE_HELD  completed and freed: the engine's until it lets go
 *   SENT             the one request of every send completed at once
 *                    (wisp_p2p_req_sent): done, never released
 *
 *   FREE -> ACTIVE | INACTIVE | SENT              made
 *   INACTIVE -> ACTIVE                            start (MPI_Start)
 *   ACTIVE -> ACTIVE_HELD                         hold (the engine)
 *   ACTIVE(_HELD) -> DONE(_HELD),
 *     FREED_HELD -> FREED_DONE_HELD, FREED -> FREE   complete
 *   ACTIVE_HELD -> ACTIVE, DONE_HELD -> DONE,
 *     FREED(_DONE)_HELD -> FREE                   let go (the engine)
 *   ACTIVE(_HELD) -> FREED(_HELD), DONE -> FREE,
 *     DONE_HELD -> FREED_DONE_HELD, INACTIVE -> FREE   free (the user)
 *   DONE -> INACTIVE                              rest (a persistent one reported)
 *   ACTIVE -> FREE                                discard (never handed out)
 *
 * Moves that change nothing are allowed where they happen: hold of a held
 * one, complete of a done one, free of SENT. The done states come last, so
 * that "is it done?" is one comparison.
 */
#define WISP_P2P_LIVES(X)                                                                          \
    X(FREE)                                                                                        \
    X(INACTIVE)                                                                                    \
    X(ACTIVE)                                                                                      \
    X(ACTIVE_HELD)                                                                                 \
    X(FREED)                                                                                       \
    X(FREED_HELD)                                                                                  \
    X(DONE) /* the first done state */                                                             \
    X(DONE_HELD)                                                                                   \
    X(FREED_DONE_HELD)                                                                             \
    X(SENT)
enum wisp_p2p_life {
#define X(life) WISP_P2P_LIFE_##life,
    WISP_P2P_LIVES(X)
#undef X
};

/* What the request stands for: one operation, a persistent one's rounds
 * (MPI_*_init: each round's request is `child`), MPI_Isendrecv(_replace)
 * (a receive, `child`, and a send, `partner`), or an operation of a layer
 * above the engine (`above`: src/coll's nonblocking collectives), which
 * that layer moves (wisp_p2p_up.above_test) and completes. A persistent
 * request of kind ABOVE is such a layer's (src/coll's persistent
 * collectives): `above` its operation, each round's request (form ABOVE)
 * `child`. */
enum wisp_p2p_form { WISP_P2P_PLAIN, WISP_P2P_PERSISTENT, WISP_P2P_PAIR, WISP_P2P_FORM_ABOVE };

/* Whose is `type`: the user's (valid during the call), predefined (nothing
 * to hold), or wisp's own reference (wisp_p2p_type_hold, freed at release). */
enum wisp_p2p_type_ref { WISP_P2P_TYPE_USERS, WISP_P2P_TYPE_PREDEFINED, WISP_P2P_TYPE_HELD };

/*
 * Where a receive waits, and so which of match.c's lists hold it (match.c
 * makes every transition but DEFERRED's, recv.c's, through
 * wisp_p2p_recv_move, queues.c, which checks where it comes from in the
 * debug and sanitizer builds):
 *
 *   IDLE       not started, or not in any list: completed at once
 *   POSTED     in its communicator's `posted` (for a process of this node,
 *              or MPI_ANY_SOURCE where every process is on this node)
 *   WILDCARD   MPI_ANY_SOURCE where other nodes belong: in `posted` and in
 *              `remote`, asking the MPI with matched probes
 *   HELD       for another node, held in `remote` behind a wildcard
 *   MATCHED    a local message is copied in (`msg`), or was
 *   DEFERRED   copied in by the rescuer thread, which cannot call the MPI:
 *              its next test finishes it (the MPI unpacks, or lets its
 *              type go)
 *   FORWARDED  receives from the MPI a local message its sender sent
 *              there (matched: no cancel)
 *   MPI        the MPI has it (`inner`): for another node, or a message a
 *              matched probe found, or a lent one the MPI completed
 *
 *   IDLE -> POSTED | WILDCARD | HELD | MATCHED | FORWARDED | MPI  (start)
 *   POSTED | WILDCARD -> MATCHED | FORWARDED   a local message came (MATCHED
 *                                              also by queues.c: an
 *                                              immediate one, from its cells)
 *   POSTED | WILDCARD | HELD -> MPI            handed to the MPI
 *   POSTED | WILDCARD | HELD -> IDLE           cancelled
 *   MATCHED -> MATCHED                         its copy aside filled
 *   MATCHED <-> DEFERRED                       finished later, finished
 *
 * A receive lent to the MPI for a blocking call is lending's, not a place
 * here: it keeps its place (POSTED, WILDCARD or HELD) and lending's part
 * of the request, `lent`, links it into queues.h's list of the lent ones
 * (lend/loan.c alone links and unlinks it; nothing moves it meanwhile).
 */
/* The states, each named once: the enum and the names in recv_move's line (queues.c). */
#define WISP_P2P_RECV_WHERES(X)                                                                    \
    X(IDLE)                                                                                        \
    X(POSTED)                                                                                      \
    X(WILDCARD)                                                                                    \
    X(HELD)                                                                                        \
    X(MATCHED)                                                                                     \
    X(DEFERRED)                                                                                    \
    X(FORWARDED)                                                                                   \
    X(MPI)
enum wisp_p2p_recv_where {
#define X(where) WISP_P2P_RECV_##where,
    WISP_P2P_RECV_WHERES(X)
#undef X
};
struct wisp_p2p_req {
    struct wisp_list link;  /* posted, pending-send or transfer list */
    struct wisp_list rlink; /* the communicator's `remote` queue */
    struct wisp_list lent;  /* lending's (lend/loan.c): in wisp_p2p_lent while lent to the MPI */
    uint8_t kind, mode;
    enum wisp_p2p_life life; /* moved only by wisp_p2p_req_move (request.h) */
    enum wisp_p2p_form form;
    enum wisp_p2p_recv_where where;  /* a receive: moved only by wisp_p2p_recv_move */
    enum wisp_p2p_type_ref type_ref; /* whose `type` is */
    /* the arguments */
    const void *sbuf;
    void *rbuf;
    MPI_Count count;
    MPI_Datatype type;
    int peer, tag;
    MPI_Comm handle;
    struct wisp_p2p_comm *comm;
    /* when the MPI does the work (remote peer, or a matched probe) */
    MPI_Request inner;
    /* persistent: the request of the current round (wisp's or the MPI's);
     * pair: the receive, and the send until it completed (with its error) */
    MPI_Request child;
    MPI_Request partner;
    /* persistent, on a communicator wisp does not serve: the MPI's own
     * inactive request, which keeps the communicator alive as long */
    MPI_Request anchor;
    int partner_error;
    /* send: the bytes to send (the user's, or a packed copy in tmp), or
     * NULL: the receiver reads send_layout in place */
    const char *data;
    wisp_dt_desc_t *send_layout;
    uint64_t bytes;
    void *tmp;
    int slot;                  /* rendezvous slot in use, -1 */
    uint64_t seq;              /* its number among this process's rendezvous messages */
    bool sync_matched;         /* synchronous, copied aside: the receiver matched the copy */
    unsigned long posted_pass; /* single copy: the progress pass its notice went out in */
    /* receive: where the bytes go: the user's buffer from dst on, or its
     * layout through the datatype engine, or tmp for the MPI to unpack */
    char *dst;
    wisp_dt_desc_t *layout;
    uint64_t cap;
    bool unpack;                /* into tmp: the MPI unpacks it when it completes */
    struct wisp_p2p_msg *msg;   /* the message being copied in */
    struct wisp_p2p_msg *spill; /* wisp's own receive filling this private copy */
    /* the result */
    int st_source, st_tag, st_error;
    bool st_cancelled;
    uint64_t st_bytes;
    MPI_Status inner_status; /* filled when `inner` completed */
    bool from_inner;
    void *above; /* form ABOVE, or kind ABOVE: the layer's operation */
};

/* Does a message from `source` with `tag` match the pattern `want_source`,
 * `want_tag` (MPI_ANY_SOURCE, MPI_ANY_TAG allowed), by MPI's rules? */
static inline bool wisp_p2p_matches(int want_source, int want_tag, int source, int tag)
{
    return (want_source == MPI_ANY_SOURCE || want_source == source) &&
           (want_tag == MPI_ANY_TAG || want_tag == tag);
}
/* Is receive `req` lent to the MPI for a blocking call (lend/loan.c)? */
static inline bool wisp_p2p_recv_lent(const struct wisp_p2p_req *req)
{
    return !wisp_list_empty(&req->lent);
}

#pragma GCC visibility pop

#endif
