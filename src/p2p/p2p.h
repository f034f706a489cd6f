/*
 * The intra-node point-to-point engine. Messages between processes of one
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
 * Lending (match.c's lending section, lend.c, handback.c): around a
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

#include <limits.h>
#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "core/stats.h" /* wisp_stats_shm, which the engine counts */
#include "dt/dt.h"
#include "p2p/lock.h"
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

/* ---- communicators (comm.c) ------------------------------------------- */

struct wisp_p2p_msg;

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

/* The communicators looked up last, served and not: most programs use one
 * or two, and every call of a point-to-point function asks. */
struct wisp_p2p_comm_cache {
    struct wisp_p2p_comm *last;
    MPI_Comm unserved;
};
extern struct wisp_p2p_comm_cache wisp_p2p_comm_cache;
struct wisp_p2p_comm *wisp_p2p_comm_lookup(MPI_Comm comm);

/* The served communicator behind `comm`, or NULL (the MPI serves it all). */
static inline struct wisp_p2p_comm *wisp_p2p_comm_of(MPI_Comm comm)
{
    struct wisp_p2p_comm *last = wisp_p2p_comm_cache.last;
    if (last && last->handle == comm)
        return last;
    return comm == wisp_p2p_comm_cache.unserved ? NULL : wisp_p2p_comm_lookup(comm);
}
/* Does wisp serve `comm` (takes the lock)? */
bool wisp_p2p_serves(MPI_Comm comm);

/* ---- communicators by context (contexts.c) ------------------------------ */

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

/* ---- communicators made and freed (comm.c) ------------------------------ */

/* After the MPI created `comm` (collective over it, may be MPI_COMM_NULL):
 * agree on a context and serve it. Returns an MPI error code. */
int wisp_p2p_comm_created(MPI_Comm comm);
/* Before the MPI frees `comm`. */
void wisp_p2p_comm_freeing(MPI_Comm comm);
/* The functions that make a communicator: `rc`, the MPI's return code, and
 * the new communicator; gives it a context (collective, as they are). */
int wisp_p2p_comm_made(int rc, MPI_Comm *newcomm);
/* MPI_Comm_free and MPI_Comm_disconnect: the engine lets go of the
 * communicator first, then `mpi_free` (the MPI's function). */
int wisp_p2p_comm_release(MPI_Comm *comm, int (*mpi_free)(MPI_Comm *));
/* A persistent request of wisp uses `c` (may be NULL) until it is freed. */
void wisp_p2p_comm_hold(struct wisp_p2p_comm *c);
void wisp_p2p_comm_unhold(struct wisp_p2p_comm *c);
void wisp_p2p_comm_init(MPI_Comm world);
void wisp_p2p_comm_fini(void);

/* ---- datatypes (datatype.c) ------------------------------------------- */

/* `count` elements of `type` as bytes: their number, and whether they are one
 * contiguous run starting at `*offset` bytes from the buffer; `predefined`
 * (may be NULL): whether the type is one of the MPI's own. */
int wisp_p2p_type_bytes(MPI_Datatype type, MPI_Count count, uint64_t *bytes, bool *contig,
                        MPI_Aint *offset, bool *predefined);
/* At start, before any other thread calls MPI: ask what the MPI makes of
 * MPI_DATATYPE_NULL. */
void wisp_p2p_type_init(void);
void wisp_p2p_type_fini(void);
void wisp_p2p_type_forget(void);            /* a derived type was freed */
int wisp_p2p_type_free(MPI_Datatype *type); /* MPI_Type_free */
/* MPI_Pack and MPI_Unpack (and their _c forms when `large`: position is
 * then an MPI_Count, else an int). */
int wisp_p2p_user_pack(const void *inbuf, MPI_Count incount, MPI_Datatype type, void *outbuf,
                       MPI_Count outsize, void *position, bool large, MPI_Comm comm);
int wisp_p2p_user_unpack(const void *inbuf, MPI_Count insize, void *position, void *outbuf,
                         MPI_Count outcount, MPI_Datatype type, bool large, MPI_Comm comm);
/* A reference of wisp's own to a derived type (a duplicate, in *held), for a
 * request that outlives its call; false for predefined types (none needed).
 * Given back with wisp_p2p_type_unhold, never by the rescuer (it calls the MPI). */
bool wisp_p2p_type_hold(MPI_Datatype type, MPI_Datatype *held);
void wisp_p2p_type_unhold(MPI_Datatype held);
/* MPI_Pack_size / MPI_Pack / MPI_Unpack on MPI_COMM_SELF, with counts of
 * any size, also for MPI_BOTTOM buffers. */
int wisp_p2p_pack_size(MPI_Count count, MPI_Datatype type, MPI_Count *size);
int wisp_p2p_pack(const void *buf, MPI_Count count, MPI_Datatype type, void *out, MPI_Count size,
                  MPI_Count *position);
int wisp_p2p_unpack(const void *in, MPI_Count size, MPI_Count *position, void *buf, MPI_Count count,
                    MPI_Datatype type);

/* ---- messages and requests -------------------------------------------- */

enum wisp_p2p_mode { WISP_P2P_STANDARD, WISP_P2P_SYNC, WISP_P2P_BUFFERED, WISP_P2P_READY };
enum wisp_p2p_kind { WISP_P2P_SEND = 1, WISP_P2P_RECV, WISP_P2P_MESSAGE };

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
    uint8_t copy;                /* a private copy's life: enum wisp_p2p_copy */
    struct wisp_p2p_req *taker;  /* WISP_P2P_COPY_TAKEN: the receive that matched it */
    uint64_t sync_seq; /* a synchronous one's copy: its sender's number, told at the match */
    uint8_t route;     /* its way to the MPI: enum wisp_p2p_route */
    uint32_t ret_index, ret_gen; /* WISP_P2P_ROUTE_HANDED: its record and generation */
    struct wisp_p2p_msg *behind; /* WISP_P2P_ROUTE_QUEUED: the synchronous one it goes before */
    struct wisp_list hlink;      /* WISP_P2P_ROUTE_BATCHED: in lend.c's list of those */
    unsigned char data[];
};

struct wisp_p2p_req {
    struct wisp_list link;  /* posted, pending-send or transfer list */
    struct wisp_list rlink; /* the communicator's `remote` queue */
    struct wisp_list llink; /* the receives lent to the MPI (match.c) */
    uint8_t kind, mode;
    bool persistent;   /* MPI_*_init: survives completion, inactive until MPI_Start */
    bool active;       /* started and not yet returned complete */
    bool done;         /* the operation completed; the result is below */
    bool user_freed;   /* MPI_Request_free while active */
    bool engine_holds; /* a rendezvous slot still refers to it */
    uint8_t where;     /* a receive: where it waits, enum wisp_p2p_recv_where */
    bool shared;       /* wisp_p2p_req_sent(): never released */
    bool pair;         /* MPI_Isendrecv(_replace): a receive (child) and a send (partner) */
    bool holds_type;   /* `type` is wisp's own reference (wisp_p2p_type_hold) */
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
    bool unpack;
    bool unpack_later;          /* copied by the rescuer; the MPI unpacks it at the next test */
    bool predefined_type;       /* set by wisp_p2p_recv_prepare: nothing to hold */
    struct wisp_p2p_msg *msg;   /* the message being copied in */
    struct wisp_p2p_msg *spill; /* wisp's own receive filling this private copy */
    /* the result */
    int st_source, st_tag, st_error;
    bool st_cancelled;
    uint64_t st_bytes;
    MPI_Status inner_status; /* filled when `inner` completed */
    bool from_inner;
};

/*
 * Where a receive waits, and so which of match.c's lists hold it (match.c,
 * recv_move, has every transition; each checks where it comes from in the
 * debug and sanitizer builds):
 *
 *   IDLE       not started, or not in any list: completed at once
 *   POSTED     in its communicator's `posted` (for a process of this node,
 *              or MPI_ANY_SOURCE where every process is on this node)
 *   WILDCARD   MPI_ANY_SOURCE where other nodes belong: in `posted` and in
 *              `remote`, asking the MPI with matched probes
 *   HELD       for another node, held in `remote` behind a wildcard
 *   LENT_*     the same three, and posted to the MPI for a blocking call
 *              (in match.c's `lent` too): back when the MPI cancels it
 *   MATCHED    a local message is copied in (`msg`), or was
 *   FORWARDED  receives from the MPI a local message its sender sent
 *              there (matched: no cancel)
 *   MPI        the MPI has it (`inner`): for another node, or a message a
 *              matched probe found, or a lent one the MPI completed
 *
 *   IDLE -> POSTED | WILDCARD | HELD | MATCHED | FORWARDED | MPI  (start)
 *   POSTED | WILDCARD -> MATCHED | FORWARDED   a local message came
 *   POSTED | WILDCARD | HELD -> MPI            handed to the MPI
 *   POSTED | WILDCARD | HELD -> IDLE           cancelled
 *   X <-> LENT_X                               lent, taken back
 *   MATCHED -> MATCHED                         its copy aside filled
 */
enum wisp_p2p_recv_where {
    WISP_P2P_RECV_IDLE,
    WISP_P2P_RECV_POSTED,
    WISP_P2P_RECV_WILDCARD,
    WISP_P2P_RECV_HELD,
    WISP_P2P_RECV_LENT_POSTED, /* the LENT_ ones in the same order, 3 apart */
    WISP_P2P_RECV_LENT_WILDCARD,
    WISP_P2P_RECV_LENT_HELD,
    WISP_P2P_RECV_MATCHED,
    WISP_P2P_RECV_FORWARDED,
    WISP_P2P_RECV_MPI,
};
/* Is receive `req` posted to the MPI for a blocking call (LENT_*)? */
static inline bool wisp_p2p_recv_lent(const struct wisp_p2p_req *req)
{
    return req->where >= WISP_P2P_RECV_LENT_POSTED && req->where <= WISP_P2P_RECV_LENT_HELD;
}

/* request.c. wisp's requests and messages are objects of one pool, handed
 * out as handles the MPI never produces (request.c explains); the lookups
 * are inline, as every request function of the MPI asks.
 *
 * The pool's fields are written under the engine lock and read without it
 * by every lookup, from any thread (MPI_THREAD_MULTIPLE): relaxed atomics,
 * plain loads and stores on the machine. Relaxed is enough: a handle of
 * wisp's reached its thread after the request was made (the program passes
 * handles between threads only through its own synchronization), so the
 * values that make it valid are seen; a handle of the MPI's lies outside
 * the pool's one reservation (never moved) whatever values are seen. */
enum { WISP_P2P_POOL_SIZE = 1 << 20 }; /* alive at once; address space until used */
struct wisp_p2p_pool {
    struct wisp_p2p_req *_Atomic reqs; /* NULL until the first request */
    _Atomic size_t used;               /* high-water mark */
    struct wisp_p2p_req *_Atomic sent; /* the shared request of sends completed at once */
    const char
        *_Atomic sent_range;      /* Open MPI: their handles' addresses (reserved, never mapped) */
    _Atomic uintptr_t base, span; /* Open MPI: one reservation holds both (0 before it exists) */
};
extern struct wisp_p2p_pool wisp_p2p_pool;
#define WISP_P2P_POOL(field) atomic_load_explicit(&wisp_p2p_pool.field, memory_order_relaxed)

#if defined(MPICH)
enum {
    WISP_P2P_HANDLE_TAG = 0x04000000, /* wisp's requests and messages | index */
    WISP_P2P_SENT_TAG = 0x08000000,   /* sends completed at once | n; kind 00 too */
    WISP_P2P_HANDLE_MASK = 0xfc000000,
    WISP_P2P_INDEX_MASK = 0x03ffffff
};
static inline struct wisp_p2p_req *wisp_p2p_pool_at(unsigned handle)
{
    if ((handle & WISP_P2P_HANDLE_MASK) != WISP_P2P_HANDLE_TAG)
        return NULL;
    struct wisp_p2p_req *reqs = WISP_P2P_POOL(reqs);
    if (!reqs || (handle & WISP_P2P_INDEX_MASK) >= WISP_P2P_POOL(used))
        return NULL;
    return &reqs[handle & WISP_P2P_INDEX_MASK];
}
/* NULL: the MPI's request. */
static inline struct wisp_p2p_req *wisp_p2p_req_of(MPI_Request handle)
{
    struct wisp_p2p_req *req = wisp_p2p_pool_at((unsigned)handle);
    if (req || ((unsigned)handle & WISP_P2P_HANDLE_MASK) != WISP_P2P_SENT_TAG)
        return req;
    return WISP_P2P_POOL(sent);
}
#else
enum { WISP_P2P_SENT_RANGE = 1 << 24 };
static inline struct wisp_p2p_req *wisp_p2p_pool_at(const void *handle)
{
    const struct wisp_p2p_req *r = handle, *reqs = WISP_P2P_POOL(reqs);
    return reqs && r >= reqs && r < reqs + WISP_P2P_POOL(used) ? (struct wisp_p2p_req *)r : NULL;
}
/* NULL: the MPI's request. */
static inline struct wisp_p2p_req *wisp_p2p_req_of(MPI_Request handle)
{
    struct wisp_p2p_req *req = wisp_p2p_pool_at(handle);
    const char *p = (const char *)handle, *range = WISP_P2P_POOL(sent_range);
    if (req || !range || p < range || p >= range + WISP_P2P_SENT_RANGE)
        return req;
    return WISP_P2P_POOL(sent);
}
#endif

struct wisp_p2p_req *wisp_p2p_req_new(uint8_t kind);
void wisp_p2p_req_release(struct wisp_p2p_req *req); /* when neither user nor engine holds it */
/* The one request behind every send completed at once (immediate): nothing
 * to allocate, fill and free for each; wisp_p2p_req_handle gives each send a
 * handle of its own for it. */
struct wisp_p2p_req *wisp_p2p_req_sent(void);
MPI_Request wisp_p2p_req_handle(const struct wisp_p2p_req *req);
struct wisp_p2p_req *wisp_p2p_msg_of(MPI_Message handle); /* NULL: the MPI's message */
/* Fortran handles of wisp's requests, apart from the MPI's (MPI_Request_c2f
 * where that is a function, as in Open MPI). */
MPI_Fint wisp_p2p_req_c2f(const struct wisp_p2p_req *req);
struct wisp_p2p_req *wisp_p2p_req_of_fint(MPI_Fint handle); /* NULL: the MPI's */
MPI_Message wisp_p2p_msg_handle(const struct wisp_p2p_req *req);
/* MPI_Request_c2f, MPI_Request_f2c, MPI_Message_c2f, MPI_Message_f2c for
 * handles of wisp and of the MPI. */
MPI_Fint wisp_p2p_request_c2f(MPI_Request request);
MPI_Request wisp_p2p_request_f2c(MPI_Fint request);
MPI_Fint wisp_p2p_message_c2f(MPI_Message message);
MPI_Message wisp_p2p_message_f2c(MPI_Fint message);
/* The public fields and the count; single completions leave MPI_ERROR alone. */
void wisp_p2p_status_set(MPI_Status *status, int source, int tag, uint64_t bytes, bool cancelled);
/* A finished request's status, into `status` (may be MPI_STATUS_IGNORE);
 * returns its error code. */
int wisp_p2p_req_status(struct wisp_p2p_req *req, MPI_Status *status);
/* Is a request whose `inner` the MPI has complete (progressing it)? */
static inline bool wisp_p2p_req_test_inner(struct wisp_p2p_req *req)
{
    int flag = 0;
    int rc = PMPI_Test(&req->inner, &flag, &req->inner_status);
    if (rc != MPI_SUCCESS || flag) {
        req->st_error = rc;
        req->from_inner = true;
        req->done = true;
    }
    return req->done;
}
/* Is it complete (progressing `inner` if any)? Engine lock held (complete.c). */
bool wisp_p2p_req_test_more(struct wisp_p2p_req *req);
static inline bool wisp_p2p_req_test(struct wisp_p2p_req *req)
{
    if (req->done)
        return true;
    if (!req->unpack_later && !req->persistent && !req->pair && req->inner == MPI_REQUEST_NULL)
        return false; /* the engine completes it (inline: polls ask this of each) */
    return wisp_p2p_req_test_more(req);
}
/* A call into the MPI made for `req` returned `rc`: a failure completes it
 * with that error, reported by its wait or test. */
static inline void wisp_p2p_req_fail_on(struct wisp_p2p_req *req, int rc)
{
    if (rc != MPI_SUCCESS) {
        req->st_error = rc;
        req->done = true;
    }
}
/* After completion was reported to the user: free or make inactive. */
void wisp_p2p_req_retire(struct wisp_p2p_req *req, MPI_Request *handle);

/* ---- the engine (transport.h and its files) ---------------------------- */

struct wisp_p2p {
    bool on;      /* between MPI_Init and MPI_Finalize, WISP_SHM on */
    bool threads; /* MPI_THREAD_MULTIPLE: application threads share the lock */
    bool sleepy;  /* more processes than cores here: wait in the kernel */
    int node_rank, node_size;
    int tag_ub; /* MPI_TAG_UB: larger tags go to the MPI, which reports them */
    uint64_t immediate_max, stage, single_copy_min, cma_min, synergy_min, block;
    /* Both counted under the lock and looked at without it (the rescuer,
     * the progress thread, blocking calls choosing their path): relaxed
     * atomics, whose loads and stores are plain ones on the machine. */
    _Atomic unsigned outstanding; /* work that needs this process inside wisp */
    _Atomic unsigned deferred;    /* receives the rescuer completed that still need the MPI */
    bool rescuing;                /* the rescuer thread holds the lock: no calls into the MPI */
    bool cma;                     /* private messages are read with process_vm_readv (cma.c) */
    bool ring_always;   /* the node's processes run progress threads: ring after each put */
    bool waitall_polls; /* MPI_Waitall of the MPI's requests polls (wisp_p2p_progress_thread) */
};
extern struct wisp_p2p wisp_p2p;

/* A look at one of the engine's counters, with or without the lock. */
static inline unsigned wisp_p2p_count(const _Atomic unsigned *counter)
{
    return atomic_load_explicit(counter, memory_order_relaxed);
}
/* Lock held (the only writer then): a load and a store, no locked
 * instruction; a look without the lock sees the old or the new value. */
static inline void wisp_p2p_count_add(_Atomic unsigned *counter, int delta)
{
    atomic_store_explicit(counter, wisp_p2p_count(counter) + (unsigned)delta, memory_order_relaxed);
}

/* Has this process work in flight that only it can move? Then its blocking
 * calls into the MPI must keep the engine going. */
static inline bool wisp_p2p_busy(void)
{
    return wisp_p2p.on && wisp_p2p_count(&wisp_p2p.outstanding);
}

/* Collective over the world, after the topology and the heap. */
void wisp_p2p_init(int thread_level);
void wisp_p2p_fini(void);

/* One pass over everything in flight; true when something moved. Lock held. */
bool wisp_p2p_progress(void);
/* The progress thread (src/progress; the MPI is MPI_THREAD_MULTIPLE): one
 * pass, calls into the MPI included, unless an application thread is inside
 * the engine or nothing waits (false then). Takes the lock. */
bool wisp_p2p_progress_async(void);
/* A progress thread moves the engine and the MPI from now on. With `rung`
 * (it has a core of its own), it waits for local work in wisp_p2p_nap: on
 * this process's doorbell, which local peers ring when they give it
 * something, at most `ns`; and this process rings its peers' doorbells
 * after every put (WISP_PROGRESS is read alike by every process of a job,
 * so their threads wait there too; one that does not merely wakes on its
 * timer). Under Open MPI, MPI_Waitall of the MPI's requests then polls
 * MPI_Testall: Open MPI 4.1's MPI_Waitall misses a request that fails (a
 * truncated receive) while another thread moves the MPI, and hangs
 * (reproduced without wisp; MPI_Wait, MPI_Waitany, MPI_Waitsome and
 * MPI_Testall do not). wisp_p2p_nap is false, at once, without the
 * engine. */
void wisp_p2p_progress_thread(bool rung);
bool wisp_p2p_nap(long ns);
void wisp_p2p_nap_end(void); /* wakes the thread from wisp_p2p_nap */

/* Start a send to a local peer (node rank `node`, comm->rank for self). Lock held. */
void wisp_p2p_send_start(struct wisp_p2p_req *req, int node);
/* The blocking fast path: an immediate message straight into the ring;
 * false when it does not go that way. Lock held. */
/* A non-contiguous send its receiver reads in place: true when it goes so
 * (data NULL, send_layout held), false: pack it. */
bool wisp_p2p_send_layout(struct wisp_p2p_req *req);
bool wisp_p2p_send_now(struct wisp_p2p_comm *comm, int dest, int tag, const void *buf,
                       MPI_Count count, MPI_Datatype type);
/* Cross-memory attach (cma.c): collective over the node; true when every
 * process `wanted` it (WISP_SHM_CMA) and may read its neighbour's memory
 * with process_vm_readv. */
bool wisp_p2p_cma_init(MPI_Comm node, bool wanted);
void wisp_p2p_cma_fini(void);
/* Copy `n` bytes at `src` in node process `from` to `dst`. */
void wisp_p2p_cma_copy(int from, void *dst, const void *src, uint64_t n);
/* The same, the other way: `n` bytes from `src` here into `dst` in node rank
 * `to`'s memory (process_vm_writev: a sender's share of a synergistic copy
 * into a private receive buffer). */
void wisp_p2p_cma_write(int to, void *dst, const void *src, uint64_t n);
/* What the kernel moves at once of node rank `from`'s `remote` pieces into
 * the `local` ones, in order (at least a byte; the caller goes on from
 * there). */
uint64_t wisp_p2p_cma_readv(int from, const struct iovec *local, int nlocal,
                            const struct iovec *remote, int nremote);

/* Let the MPI move its own messages (it does only when called). */
void wisp_p2p_poke(void);
/* After a poll (test, probe) that wisp answered alone and found nothing:
 * the same, every so many polls (a poke costs as much as the MPI's own poll). */
void wisp_p2p_poke_idle(void);
/* Does a send of this process on `comm` still wait in line for its ring,
 * or in a rendezvous slot? */
bool wisp_p2p_sends_on(const struct wisp_p2p_comm *comm);
/* A synchronous send to self was matched. */
void wisp_p2p_send_matched(struct wisp_p2p_req *req);
/* Move the bytes of a matched rendezvous message. Lock held. */
void wisp_p2p_recv_advance(struct wisp_p2p_req *req);
/* Done with a message of the ring/slot transport that no one will read (lend.c). */
void wisp_p2p_msg_drop(struct wisp_p2p_msg *msg);
/* Copy unexpected rendezvous message `msg` into a private buffer that takes
 * its place, so that its sender completes (match.c says when); false, the
 * message left as it was, where there is no memory for the copy. Lock held. */
bool wisp_p2p_spill(struct wisp_p2p_msg *msg);
/* Spill every unexpected rendezvous message from node rank `from` (the
 * synchronous ones complete at their match all the same), whose slots it
 * needs for sends waiting behind them (match.c). Lock held. */
void wisp_p2p_spill_held(int from);
/* The copy of wisp_p2p_spill is whole: `fill` is done (match.c). Lock held. */
void wisp_p2p_spilled(struct wisp_p2p_req *fill);
/*
 * A message copied aside into private memory (wisp_p2p_spill: its receive
 * is lent, or its sender is out of slots), while the copy fills (lend.c,
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
enum wisp_p2p_copy {
    WISP_P2P_COPY_NONE,
    WISP_P2P_COPY_FILLING,
    WISP_P2P_COPY_TAKEN,
    WISP_P2P_COPY_DROPPED,
    WISP_P2P_COPY_WHOLE,
};
/* Is `msg` a copy whose bytes are still on their way? */
static inline bool wisp_p2p_copy_filling(const struct wisp_p2p_msg *msg)
{
    return msg->copy != WISP_P2P_COPY_NONE && msg->copy != WISP_P2P_COPY_WHOLE;
}
/* Receive `req` matched `copy` while it fills: FILLING -> TAKEN. */
void wisp_p2p_copy_take(struct wisp_p2p_msg *copy, struct wisp_p2p_req *req);
/* The copy is filled: -> WHOLE; returns the state it left. */
enum wisp_p2p_copy wisp_p2p_copy_whole(struct wisp_p2p_msg *copy);
/* Tell the sender of synchronous `copy` (a spilled one: sync_seq) that a
 * receive matched it. Lock held. */
void wisp_p2p_sync_matched(const struct wisp_p2p_msg *copy);
/* Is `msg` a synchronous rendezvous message? */
bool wisp_p2p_msg_sync(const struct wisp_p2p_msg *msg);
/* Earlier messages of one sender that one forwarded message names at once
 * (a batch: more go in further batches), and the most records one process
 * keeps per sender (handback.c). */
#define WISP_P2P_RETURN_MAX 64
/*
 * A local message's way to the MPI, for a receive lent there (lend.c,
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
enum wisp_p2p_route {
    WISP_P2P_ROUTE_HERE,
    WISP_P2P_ROUTE_QUEUED,
    WISP_P2P_ROUTE_HANDED,
    WISP_P2P_ROUTE_SENT,
    WISP_P2P_ROUTE_ASKED,
    WISP_P2P_ROUTE_BATCHED,
};
/* Is `msg` on its way to the MPI (any route but HERE)? */
static inline bool wisp_p2p_routed(const struct wisp_p2p_msg *msg)
{
    return msg->route != WISP_P2P_ROUTE_HERE;
}
/* Earlier message `earlier` of synchronous `msg`'s sender goes to the MPI
 * before it: HERE -> QUEUED (match.c, before wisp_p2p_forward). */
void wisp_p2p_route_queue(struct wisp_p2p_msg *earlier, struct wisp_p2p_msg *msg);
/* Can this process hand unexpected message `msg` back to its sender (its
 * bytes are here, whole)? */
bool wisp_p2p_returnable(const struct wisp_p2p_msg *msg);
/* Ask the sender of unexpected synchronous message `msg` to send it through
 * the MPI (match.c says when), after the earlier messages of the same
 * sender queued before it (wisp_p2p_route_queue), handed back to it in
 * batches as records free up; each stays among the unexpected ones,
 * routed. Lock held. */
void wisp_p2p_forward(struct wisp_p2p_msg *msg);
/* A receive takes routed `msg`: true if it was recalled (not sent to
 * the MPI yet: it is a rendezvous or returned message again), false if it
 * must be received from the MPI (then drop it). Lock held, from a thread
 * that may call the MPI. */
bool wisp_p2p_forward_recall(struct wisp_p2p_msg *msg);

/* Messages handed back to their sender (handback.c): the node's table of
 * records, the region it takes in the segment, and the records free here. */
size_t wisp_p2p_handback_size(int node_size);
void wisp_p2p_handback_init(void *region, int node_rank, int node_size);
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
 * /dev/shm had no room for their files (that many): true if some moved. */
bool wisp_p2p_handback_pump(void);
extern int wisp_p2p_handback_npiped;
/* The sender claims receiver `owner`'s record: a malloc'd copy of the
 * bytes with their size and tag, or NULL if the receiver took it back. */
void *wisp_p2p_handback_claim(int owner, uint32_t index, uint32_t gen, uint64_t *size, int *tag);

/* Wait, progressing the engine and the MPI, until `done(arg)`; with the lock
 * held on entry and exit (dropped while idle). */
void wisp_p2p_wait_until(bool (*done)(void *), void *arg);

/* ---- matching (match.c) ----------------------------------------------- */

/* A message arrived from a local sender (or self): match or queue it. */
void wisp_p2p_incoming(struct wisp_p2p_comm *comm, struct wisp_p2p_msg *msg);
/* A message in a ring, matched before it is copied out: NULL if no posted
 * receive takes it. */
struct wisp_p2p_req *wisp_p2p_match_posted(struct wisp_p2p_comm *comm, int source, int tag);
/* Give a matched message to a receive (copies, or starts the rendezvous). */
void wisp_p2p_deliver(struct wisp_p2p_req *req, struct wisp_p2p_msg *msg);
/* Set the receive's destination from its buffer, count and type. */
int wisp_p2p_recv_prepare(struct wisp_p2p_req *req);
/* The receive finished copying: unpack, complete (recv.c). */
void wisp_p2p_recv_finish(struct wisp_p2p_req *req);
/* memcpy, shared among idle threads when it is large (layout.c). */
void wisp_p2p_copy(char *dst, const char *src, uint64_t n);
/* Bytes [at, at + n) of a receive's message, from `src` here, or from node
 * rank `from`'s private memory (cross-memory attach), into its buffer
 * (layout.c). */
void wisp_p2p_recv_put(struct wisp_p2p_req *req, uint64_t at, const void *src, uint64_t n);
void wisp_p2p_recv_put_peer(struct wisp_p2p_req *req, uint64_t at, int from, const char *src,
                            uint64_t n);
/* The first `n` bytes of a sender's layout in the heap (base, count,
 * desc) into a receive's buffer: one copy, no packing. */
void wisp_p2p_recv_get_layout(struct wisp_p2p_req *req, const char *base, MPI_Count count,
                              const wisp_dt_desc_t *desc, uint64_t n);
/* Finish the receives the rescuer completed that need the MPI (unpack, a
 * type to give back); the application's threads only (recv.c). */
void wisp_p2p_finish_deferred(void);
/* A receive of wisp still pending after its call holds its derived type
 * (inline: the common receive, of a predefined type, pays one test). */
static inline void wisp_p2p_recv_hold_type(struct wisp_p2p_req *req)
{
    if (req->predefined_type || req->done || req->holds_type)
        return;
    if (req->link.next != &req->link || req->rlink.next != &req->rlink) /* pending */
        req->holds_type = wisp_p2p_type_hold(req->type, &req->type);
}
/* Post a receive (req->peer may be MPI_ANY_SOURCE). */
int wisp_p2p_recv_start(struct wisp_p2p_req *req);
/* The number of communicators with receives waiting in their `remote` queues (state.c). */
extern _Atomic unsigned wisp_p2p_remote_count;
/* Are receives waiting in `remote` queues (a look without the lock)? */
static inline bool wisp_p2p_remote_waiting(void)
{
    return wisp_p2p_count(&wisp_p2p_remote_count) != 0; /* also without the lock */
}
/* Hand receives blocked behind wildcards to the MPI when allowed (inline:
 * every progress pass asks, and mostly none wait). */
bool wisp_p2p_remote_pass(void);
static inline bool wisp_p2p_remote_advance(void)
{
    return wisp_p2p_remote_waiting() && wisp_p2p_remote_pass();
}
/* Around a blocking call that only the MPI serves (a collective): post the
 * receives waiting in `remote` queues to the MPI (true if any), and take
 * them back afterwards (match.c explains). Inline: every such call asks (a
 * program that polls MPI_Win_flush_local_all, millions of times), and
 * mostly nothing is in flight. */
bool wisp_p2p_lend_waiting(void);
static inline bool wisp_p2p_lend(void)
{
    return wisp_p2p_busy() && wisp_p2p_lend_waiting();
}
void wisp_p2p_reclaim(void);
/* Is lent receive `req` complete (another thread tests it while the
 * blocking call of the thread that lent it goes on)? Then it is wisp's
 * again, done. */
bool wisp_p2p_lent_test(struct wisp_p2p_req *req);
/* Probe the MPI (MPI_Iprobe, or MPI_Improbe with `message`) on a
 * communicator whose `remote` queue is not empty: a message that an
 * earlier receive waiting there matches goes to it, not to the probe. */
int wisp_p2p_probe_remote(struct wisp_p2p_comm *comm, int source, int tag, int *flag,
                          MPI_Message *message, MPI_Status *status);
/* Probe: the first matching unexpected local message, or NULL. */
struct wisp_p2p_msg *wisp_p2p_probe_local(struct wisp_p2p_comm *comm, int source, int tag);
/* Cancel a receive not yet matched; false when too late. */
bool wisp_p2p_recv_cancel(struct wisp_p2p_req *req);

/* ---- the operations behind the MPI functions (ops.c) ------------------ */

int wisp_p2p_isend(const void *buf, MPI_Count count, MPI_Datatype type, int dest, int tag,
                   MPI_Comm comm, int mode, MPI_Request *request);
int wisp_p2p_send_to(const void *buf, MPI_Count count, MPI_Datatype type, int dest, int tag,
                     MPI_Comm comm, int mode);
/* A send to MPI_PROC_NULL carries nothing: straight to the MPI (its checks,
 * its return), at the cost of one comparison (inline: `mode` is a constant
 * in every caller, so one call of the MPI's function remains). */
static inline int wisp_p2p_send(const void *buf, MPI_Count count, MPI_Datatype type, int dest,
                                int tag, MPI_Comm comm, int mode)
{
    if (dest != MPI_PROC_NULL)
        return wisp_p2p_send_to(buf, count, type, dest, tag, comm, mode);
    switch (mode) {
    case WISP_P2P_SYNC:
        return WISP_P2P_MPI(Ssend, count, buf, count, type, dest, tag, comm);
    case WISP_P2P_BUFFERED:
        return WISP_P2P_MPI(Bsend, count, buf, count, type, dest, tag, comm);
    case WISP_P2P_READY:
        return WISP_P2P_MPI(Rsend, count, buf, count, type, dest, tag, comm);
    default:
        return WISP_P2P_MPI(Send, count, buf, count, type, dest, tag, comm);
    }
}
int wisp_p2p_irecv(void *buf, MPI_Count count, MPI_Datatype type, int source, int tag,
                   MPI_Comm comm, MPI_Request *request);
int wisp_p2p_recv(void *buf, MPI_Count count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                  MPI_Status *status);
int wisp_p2p_send_init(const void *buf, MPI_Count count, MPI_Datatype type, int dest, int tag,
                       MPI_Comm comm, int mode, MPI_Request *request);
int wisp_p2p_recv_init(void *buf, MPI_Count count, MPI_Datatype type, int source, int tag,
                       MPI_Comm comm, MPI_Request *request);
int wisp_p2p_start(MPI_Request *request);
int wisp_p2p_startall(int count, MPI_Request requests[]);
int wisp_p2p_iprobe_from(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status);
/* A probe of MPI_PROC_NULL (which finds its empty message at once) or of a
 * communicator wisp does not serve is the MPI's alone: inline, so that it
 * costs the caller a comparison or two before the MPI's own call. */
static inline int wisp_p2p_iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    /* The communicator found unserved last time, read without the lock when
     * no second thread may enter; anything else, the call below asks again
     * (under the lock). */
    if (source == MPI_PROC_NULL || (!wisp_p2p_locking.on && comm == wisp_p2p_comm_cache.unserved))
        return PMPI_Iprobe(source, tag, comm, flag, status);
    return wisp_p2p_iprobe_from(source, tag, comm, flag, status);
}
int wisp_p2p_probe(int source, int tag, MPI_Comm comm, MPI_Status *status);
int wisp_p2p_improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                     MPI_Status *status);
int wisp_p2p_mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status);
int wisp_p2p_imrecv(void *buf, MPI_Count count, MPI_Datatype type, MPI_Message *message,
                    MPI_Request *request);
int wisp_p2p_mrecv(void *buf, MPI_Count count, MPI_Datatype type, MPI_Message *message,
                   MPI_Status *status);
int wisp_p2p_sendrecv(const void *sbuf, MPI_Count scount, MPI_Datatype stype, int dest, int stag,
                      void *rbuf, MPI_Count rcount, MPI_Datatype rtype, int source, int rtag,
                      MPI_Comm comm, MPI_Status *status);
int wisp_p2p_sendrecv_replace(void *buf, MPI_Count count, MPI_Datatype type, int dest, int stag,
                              int source, int rtag, MPI_Comm comm, MPI_Status *status);
/* MPI_Isendrecv and MPI_Isendrecv_replace: one request for a receive and a
 * send that each go through wisp or the MPI, as MPI_Irecv and MPI_Isend
 * would. */
int wisp_p2p_isendrecv(const void *sbuf, MPI_Count scount, MPI_Datatype stype, int dest, int stag,
                       void *rbuf, MPI_Count rcount, MPI_Datatype rtype, int source, int rtag,
                       MPI_Comm comm, MPI_Request *request);
int wisp_p2p_isendrecv_replace(void *buf, MPI_Count count, MPI_Datatype type, int dest, int stag,
                               int source, int rtag, MPI_Comm comm, MPI_Request *request);
/* Wait for one of the MPI's requests while the engine keeps moving. */
int wisp_p2p_wait_mpi(MPI_Request *request, MPI_Status *status);
/* Report `code` through the communicator's error handler. */
static inline int wisp_p2p_error(MPI_Comm comm, int code)
{
    PMPI_Comm_call_errhandler(comm, code);
    return code;
}

/* complete.c: MPI_Wait and MPI_Test, and their all/any/some forms (`test`:
 * the Test form, which sets *flag) over arrays that hold a request of wisp,
 * or while wisp has work in flight that a blocking wait must keep moving. */
int wisp_p2p_waitall_mixed(int n, MPI_Request *reqs, MPI_Status *statuses, bool test, int *flag,
                           bool raise);
int wisp_p2p_waitany_mixed(int n, MPI_Request *reqs, int *index, MPI_Status *status, bool test,
                           int *flag);
int wisp_p2p_waitsome_mixed(int n, MPI_Request *reqs, int *outcount, int *indices,
                            MPI_Status *statuses, bool test);
/* wisp_p2p_waitany_mixed's test, with a fast path for requests that are
 * all wisp's (a poll of receives on a served communicator). */
int wisp_p2p_testany_mixed(int n, MPI_Request *reqs, int *index, int *flag, MPI_Status *status);
int wisp_p2p_wait1_ours(MPI_Request *request, MPI_Status *status, bool test, int *flag);
int wisp_p2p_request_free(MPI_Request *request);
int wisp_p2p_request_get_status(MPI_Request request, int *flag, MPI_Status *status);
int wisp_p2p_cancel(MPI_Request *request);

/* Does this array hold any of wisp's requests? One test per handle, no
 * branch (a poll over the MPI's requests pays it before the MPI's call);
 * true for a handle of wisp's form that names none also: the caller then
 * looks closer. (Open MPI: the pool's range is read once, not per handle.) */
static inline bool wisp_p2p_handle_ours(MPI_Request handle, uintptr_t base, uintptr_t span)
{
#if defined(MPICH) /* the tag bits are WISP_P2P_HANDLE_TAG or WISP_P2P_SENT_TAG */
    (void)base, (void)span;
    return ((((unsigned)handle & WISP_P2P_HANDLE_MASK) - WISP_P2P_HANDLE_TAG) &
            ~(unsigned)WISP_P2P_HANDLE_TAG) == 0;
#else
    return (uintptr_t)(const void *)handle - base < span;
#endif
}

static inline bool wisp_p2p_any_ours(int n, const MPI_Request *reqs)
{
#if defined(MPICH)
    uintptr_t base = 0, span = 0;
#else
    uintptr_t base = WISP_P2P_POOL(base), span = WISP_P2P_POOL(span);
#endif
    bool a = false, b = false, c = false, d = false; /* four at a time, independent */
    int i = 0;
    for (; i + 4 <= n; i += 4) {
        a |= wisp_p2p_handle_ours(reqs[i], base, span);
        b |= wisp_p2p_handle_ours(reqs[i + 1], base, span);
        c |= wisp_p2p_handle_ours(reqs[i + 2], base, span);
        d |= wisp_p2p_handle_ours(reqs[i + 3], base, span);
    }
    for (; i < n; i++)
        a |= wisp_p2p_handle_ours(reqs[i], base, span);
    return a | b | c | d;
}

/* The forms the MPI serves alone, inline, so that a poll of the MPI's own
 * requests (MPI_Testany over receives in a loop, say) costs one look at each
 * handle before the MPI's call: requests that are all the MPI's, in a test,
 * or in a wait while wisp has nothing in flight. */
/* A test or probe that the MPI alone answers: natively it would move the
 * MPI, which matches the wildcard receives that wisp keeps for remote
 * senders meanwhile; a program may poll so for a message whose sender
 * waits for one of those (p2p_semantics probe_polls_wildcard). */
static inline void wisp_p2p_mpi_polls(void)
{
    if (wisp_p2p_remote_waiting()) {
        wisp_p2p_lock();
        wisp_p2p_remote_advance();
        wisp_p2p_unlock();
    }
}

static inline int wisp_p2p_wait1(MPI_Request *request, MPI_Status *status, bool test, int *flag)
{
    if (wisp_p2p_req_of(*request))
        return wisp_p2p_wait1_ours(request, status, test, flag);
    if (test) {
        wisp_p2p_mpi_polls();
        return PMPI_Test(request, flag, status);
    }
    return wisp_p2p_busy() ? wisp_p2p_wait_mpi(request, status) : PMPI_Wait(request, status);
}

static inline int wisp_p2p_waitall(int n, MPI_Request *reqs, MPI_Status *statuses, bool test,
                                   int *flag, bool raise)
{
    bool mpi_only = !wisp_p2p_any_ours(n, reqs);
    if (mpi_only && test) {
        wisp_p2p_mpi_polls();
        return PMPI_Testall(n, reqs, flag, statuses);
    }
    if (mpi_only && !wisp_p2p_busy() && !wisp_p2p.waitall_polls)
        return PMPI_Waitall(n, reqs, statuses);
    return wisp_p2p_waitall_mixed(n, reqs, statuses, test, flag, raise);
}

static inline int wisp_p2p_waitany(int n, MPI_Request *reqs, int *index, MPI_Status *status,
                                   bool test, int *flag)
{
    bool mpi_only = !wisp_p2p_any_ours(n, reqs);
    if (mpi_only && test) {
        wisp_p2p_mpi_polls();
        return PMPI_Testany(n, reqs, index, flag, status);
    }
    if (mpi_only && !wisp_p2p_busy())
        return PMPI_Waitany(n, reqs, index, status);
    return test ? wisp_p2p_testany_mixed(n, reqs, index, flag, status)
                : wisp_p2p_waitany_mixed(n, reqs, index, status, false, NULL);
}

static inline int wisp_p2p_waitsome(int n, MPI_Request *reqs, int *outcount, int *indices,
                                    MPI_Status *statuses, bool test)
{
    bool mpi_only = !wisp_p2p_any_ours(n, reqs);
    if (mpi_only && test) {
        wisp_p2p_mpi_polls();
        return PMPI_Testsome(n, reqs, outcount, indices, statuses);
    }
    if (mpi_only && !wisp_p2p_busy())
        return PMPI_Waitsome(n, reqs, outcount, indices, statuses);
    return wisp_p2p_waitsome_mixed(n, reqs, outcount, indices, statuses, test);
}

#pragma GCC visibility pop

#endif
