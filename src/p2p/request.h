/*
 * wisp's requests and messages (request.c): objects of one pool, handed
 * out as handles the MPI never produces; the lookups are inline, as every
 * request function of the MPI asks.
 */
#ifndef WISP_P2P_REQUEST_H
#define WISP_P2P_REQUEST_H

#include <mpi.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "p2p/types.h"

#pragma GCC visibility push(hidden)

/*
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

/* A new request of `kind` in `life` (ACTIVE, or INACTIVE: persistent). */
struct wisp_p2p_req *wisp_p2p_req_new(uint8_t kind, enum wisp_p2p_life life);

/*
 * The moves of a request's life (types.h has the diagram), in one table:
 * to[event][from] is the state `event` leads to from `from`, plus one (0:
 * no such move). A move to FREE releases the request: that is the only way
 * one is released, so "nobody holds it any more" is decided here alone.
 * The events are named once: the enum, and the words a bad move prints.
 */
#define WISP_P2P_REQ_EVENTS(X)                                                                     \
    X(START, "start")       /* MPI_Start on an inactive persistent request */                      \
    X(HOLD, "hold")         /* the engine refers to it (a slot, a line, a list) */                 \
    X(COMPLETE, "complete") /* its operation completed: the result is in it */                     \
    X(LET_GO, "let go")     /* the engine no longer refers to it */                                \
    X(FREE, "free")         /* the user lets go: MPI_Request_free, or completion reported */       \
    X(REST, "rest")         /* a persistent request's round reported: inactive again */            \
    X(DISCARD, "discard")   /* made, but never handed to the user */
enum wisp_p2p_event {
#define X(event, name) WISP_P2P_##event,
    WISP_P2P_REQ_EVENTS(X)
#undef X
        WISP_P2P_EVENTS
};
#define L_(life) (WISP_P2P_LIFE_##life + 1)
static const uint8_t wisp_p2p_life_to[WISP_P2P_EVENTS][WISP_P2P_LIFE_SENT + 1] = {
    [WISP_P2P_START] = {[WISP_P2P_LIFE_INACTIVE] = L_(ACTIVE)},
    [WISP_P2P_HOLD] = {[WISP_P2P_LIFE_ACTIVE] = L_(ACTIVE_HELD),
                       [WISP_P2P_LIFE_ACTIVE_HELD] = L_(ACTIVE_HELD),
                       [WISP_P2P_LIFE_FREED_HELD] = L_(FREED_HELD),
                       [WISP_P2P_LIFE_DONE_HELD] = L_(DONE_HELD),
                       [WISP_P2P_LIFE_FREED_DONE_HELD] = L_(FREED_DONE_HELD)},
    [WISP_P2P_COMPLETE] = {[WISP_P2P_LIFE_ACTIVE] = L_(DONE),
                           [WISP_P2P_LIFE_ACTIVE_HELD] = L_(DONE_HELD),
                           [WISP_P2P_LIFE_FREED] = L_(FREE),
                           [WISP_P2P_LIFE_FREED_HELD] = L_(FREED_DONE_HELD),
                           [WISP_P2P_LIFE_DONE] = L_(DONE),
                           [WISP_P2P_LIFE_DONE_HELD] = L_(DONE_HELD),
                           [WISP_P2P_LIFE_FREED_DONE_HELD] = L_(FREED_DONE_HELD),
                           [WISP_P2P_LIFE_SENT] = L_(SENT)},
    [WISP_P2P_LET_GO] = {[WISP_P2P_LIFE_ACTIVE_HELD] = L_(ACTIVE),
                         [WISP_P2P_LIFE_FREED_HELD] = L_(FREE),
                         [WISP_P2P_LIFE_DONE_HELD] = L_(DONE),
                         [WISP_P2P_LIFE_FREED_DONE_HELD] = L_(FREE)},
    [WISP_P2P_FREE] = {[WISP_P2P_LIFE_INACTIVE] = L_(FREE),
                       [WISP_P2P_LIFE_ACTIVE] = L_(FREED),
                       [WISP_P2P_LIFE_ACTIVE_HELD] = L_(FREED_HELD),
                       [WISP_P2P_LIFE_DONE] = L_(FREE),
                       [WISP_P2P_LIFE_DONE_HELD] = L_(FREED_DONE_HELD),
                       [WISP_P2P_LIFE_SENT] = L_(SENT)},
    [WISP_P2P_REST] = {[WISP_P2P_LIFE_DONE] = L_(INACTIVE)},
    [WISP_P2P_DISCARD] = {[WISP_P2P_LIFE_ACTIVE] = L_(FREE)},
};
#undef L_
void wisp_p2p_req_release(struct wisp_p2p_req *req); /* only from wisp_p2p_req_move */
void wisp_p2p_req_bad_move(const struct wisp_p2p_req *req, enum wisp_p2p_event event);
/* `event` happened to `req`; it may be released (not to be touched after). */
static inline void wisp_p2p_req_move(struct wisp_p2p_req *req, enum wisp_p2p_event event)
{
    unsigned to = wisp_p2p_life_to[event][req->life];
    if (!to) {
        wisp_p2p_req_bad_move(req, event); /* stops the checked builds; else no move */
        return;
    }
    req->life = (enum wisp_p2p_life)(to - 1);
    if (req->life == WISP_P2P_LIFE_FREE)
        wisp_p2p_req_release(req);
}
/* Has its operation completed (the result is in it)? */
static inline bool wisp_p2p_req_done(const struct wisp_p2p_req *req)
{
    return req->life >= WISP_P2P_LIFE_DONE;
}
/* Does the engine refer to it? */
static inline bool wisp_p2p_req_held(const struct wisp_p2p_req *req)
{
    return req->life == WISP_P2P_LIFE_ACTIVE_HELD || req->life == WISP_P2P_LIFE_FREED_HELD ||
           req->life == WISP_P2P_LIFE_DONE_HELD || req->life == WISP_P2P_LIFE_FREED_DONE_HELD;
}
/* The one request behind every send completed at once (immediate): nothing
 * to allocate, fill and free for each; wisp_p2p_req_handle gives each send a
 * handle of its own for it. */
struct wisp_p2p_req *wisp_p2p_req_sent(void);
MPI_Request wisp_p2p_req_handle(const struct wisp_p2p_req *req);
struct wisp_p2p_req *wisp_p2p_msg_of(MPI_Message handle); /* NULL: the MPI's message */
MPI_Message wisp_p2p_msg_handle(const struct wisp_p2p_req *req);
/* Integer (Fortran) handles of wisp's requests, apart from the MPI's. */
int wisp_p2p_req_int(const struct wisp_p2p_req *req);
struct wisp_p2p_req *wisp_p2p_req_of_int(int handle); /* NULL: the MPI's */
/* MPI_Request_c2f, MPI_Request_f2c, MPI_Message_c2f, MPI_Message_f2c (where
 * they are functions, as in Open MPI) and the MPI-5 standard ABI's
 * MPI_Request_toint, ..._fromint, for handles of wisp and of the MPI. */
#ifdef WISP_HAVE_MPI_Request_c2f
MPI_Fint wisp_p2p_request_c2f(MPI_Request request);
MPI_Request wisp_p2p_request_f2c(MPI_Fint request);
MPI_Fint wisp_p2p_message_c2f(MPI_Message message);
MPI_Message wisp_p2p_message_f2c(MPI_Fint message);
#endif
#ifdef WISP_HAVE_MPI_Request_toint
int wisp_p2p_request_toint(MPI_Request request);
MPI_Request wisp_p2p_request_fromint(int request);
int wisp_p2p_message_toint(MPI_Message message);
MPI_Message wisp_p2p_message_fromint(int message);
#endif
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
        wisp_p2p_req_move(req, WISP_P2P_COMPLETE);
        return true;
    }
    return wisp_p2p_req_done(req);
}
/* A call into the MPI made for `req` returned `rc`: a failure completes it
 * with that error, reported by its wait or test. */
static inline void wisp_p2p_req_fail_on(struct wisp_p2p_req *req, int rc)
{
    if (rc != MPI_SUCCESS) {
        req->st_error = rc;
        wisp_p2p_req_move(req, WISP_P2P_COMPLETE);
    }
}
/* A request of a layer above the engine (form ABOVE) for its operation
 * `op` on `comm`: active, held by that layer, counted in flight (the
 * rescuer and the blocking calls then keep the engine moving), its handle
 * in *handle. Lock held. */
struct wisp_p2p_req *wisp_p2p_above_start(void *op, MPI_Comm comm, MPI_Request *handle);
/* Its operation completed with `rc` (an MPI error code): the request is
 * done, and the layer lets go of it. Lock held. */
void wisp_p2p_above_finish(struct wisp_p2p_req *req, int rc);
/* After completion was reported to the user: free or make inactive. */
void wisp_p2p_req_retire(struct wisp_p2p_req *req, MPI_Request *handle);

#pragma GCC visibility pop

#endif
