/*
 * The point-to-point operations behind the MPI functions. Each decides
 * first who carries the message: wisp when the peer is on this node and the
 * communicator is served, the MPI otherwise, and the MPI also for anything
 * malformed (a bad rank, tag, count or type), so its checks and error
 * messages stay exactly the MPI's.
 */
#include "p2p/ops.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/status.h"
#include "p2p/comm.h"
#include "p2p/complete.h"
#include "p2p/datatype.h"
#include "p2p/lock.h"
#include "p2p/match.h"
#include "p2p/progress.h"
#include "p2p/request.h"
#include "p2p/send.h"
#include "p2p/state.h"

/* `type` becomes wisp's own reference, where it is a derived type. */
static void type_hold(struct wisp_p2p_req *req)
{
    if (wisp_p2p_type_hold(req->type, &req->type))
        req->type_ref = WISP_P2P_TYPE_HELD;
}

/* A receive of wisp still pending after its call holds its derived type
 * (the common receive, of a predefined type, pays one test). */
static void recv_hold_type(struct wisp_p2p_req *req)
{
    if (req->type_ref != WISP_P2P_TYPE_USERS || wisp_p2p_req_done(req))
        return;
    if (req->link.next != &req->link || req->rlink.next != &req->rlink) /* pending */
        type_hold(req);
}

/* The MPI's functions of each send mode, indexed by enum wisp_p2p_mode;
 * BY_MODE picks the large-count form when the count needs it. */
_Static_assert(WISP_P2P_STANDARD == 0 && WISP_P2P_SYNC == 1 && WISP_P2P_BUFFERED == 2 &&
                   WISP_P2P_READY == 3,
               "the tables below follow the modes' order");
static __typeof__(PMPI_Send) *const mpi_sends[] = {PMPI_Send, PMPI_Ssend, PMPI_Bsend, PMPI_Rsend};
static __typeof__(PMPI_Isend) *const mpi_isends[] = {PMPI_Isend, PMPI_Issend, PMPI_Ibsend,
                                                     PMPI_Irsend};
static __typeof__(PMPI_Send_init) *const mpi_send_inits[] = {PMPI_Send_init, PMPI_Ssend_init,
                                                             PMPI_Bsend_init, PMPI_Rsend_init};
#ifdef WISP_P2P_LARGE_COUNTS
static __typeof__(PMPI_Send_c) *const mpi_sends_c[] = {PMPI_Send_c, PMPI_Ssend_c, PMPI_Bsend_c,
                                                       PMPI_Rsend_c};
static __typeof__(PMPI_Isend_c) *const mpi_isends_c[] = {PMPI_Isend_c, PMPI_Issend_c, PMPI_Ibsend_c,
                                                         PMPI_Irsend_c};
static __typeof__(PMPI_Send_init_c) *const mpi_send_inits_c[] = {
    PMPI_Send_init_c, PMPI_Ssend_init_c, PMPI_Bsend_init_c, PMPI_Rsend_init_c};
#define BY_MODE(table, mode, count, ...)                                                           \
    ((count) > INT_MAX ? table##_c[mode](__VA_ARGS__) : table[mode](__VA_ARGS__))
#else
#define BY_MODE(table, mode, count, ...) table[mode](__VA_ARGS__)
#endif

static int mpi_isend(int mode, const void *buf, MPI_Count count, MPI_Datatype type, int dest,
                     int tag, MPI_Comm comm, MPI_Request *request)
{
    return BY_MODE(mpi_isends, mode, count, buf, count, type, dest, tag, comm, request);
}

static int mpi_send(int mode, const void *buf, MPI_Count count, MPI_Datatype type, int dest,
                    int tag, MPI_Comm comm)
{
    if (wisp_p2p_busy()) { /* keep wisp's messages moving meanwhile */
        MPI_Request request;
        int rc = mpi_isend(mode, buf, count, type, dest, tag, comm, &request);
        return rc != MPI_SUCCESS ? rc : wisp_p2p_wait_mpi(&request, MPI_STATUS_IGNORE);
    }
    return BY_MODE(mpi_sends, mode, count, buf, count, type, dest, tag, comm);
}

/* The served communicator when wisp carries a message to or from `peer`
 * with `tag` (MPI_ANY_* allowed for receives); NULL: the MPI does. */
static struct wisp_p2p_comm *carrier(MPI_Comm comm, int peer, int tag, MPI_Count count,
                                     bool receive)
{
    struct wisp_p2p_comm *c = wisp_p2p_comm_of(comm);
    if (!c || count < 0 || tag > wisp_p2p.tag_ub || (tag < 0 && !(receive && tag == MPI_ANY_TAG)))
        return NULL;
    if (receive && peer == MPI_ANY_SOURCE)
        return c;
    if (peer < 0 || peer >= c->size)
        return NULL; /* MPI_PROC_NULL or a bad rank */
    if (c->node_of[peer] >= 0)
        return c;
    /* A remote receive may still have to wait behind a wildcard. */
    return receive && !wisp_list_empty(&c->remote) ? c : NULL;
}

static int prepare_send(struct wisp_p2p_req *req)
{
    bool contig;
    MPI_Aint offset;
    int rc = wisp_p2p_type_bytes(req->type, req->count, &req->bytes, &contig, &offset, NULL);
    if (rc != MPI_SUCCESS)
        return rc;
    if (contig) {
        req->data = (const char *)req->sbuf + offset;
    } else if (!wisp_p2p_send_layout(req)) {
        MPI_Count size = 0, position = 0;
        wisp_p2p_pack_size(req->count, req->type, &size);
        if (!(req->tmp = malloc(size ? (size_t)size : 1)))
            return MPI_ERR_NO_MEM;
        wisp_p2p_pack(req->sbuf, req->count, req->type, req->tmp, size, &position);
        req->data = req->tmp;
        req->bytes = (uint64_t)position;
    }
    if (req->mode == WISP_P2P_BUFFERED && req->bytes && !req->tmp) {
        /* Buffered: the user may reuse the buffer at once, whatever the size
         * (the MPI's copies it into the attached buffer too). Also a small
         * one: from the shared heap it goes single copy, the receiver reading
         * the user's buffer later (fuzz seeds 103 and 104 in one job). */
        if (!(req->tmp = malloc(req->bytes)))
            return MPI_ERR_NO_MEM;
        memcpy(req->tmp, req->data, req->bytes);
        req->data = req->tmp;
    }
    return MPI_SUCCESS;
}

/* Lock held; `c` carries it. Returns MPI_ERR_NO_MEM, not yet reported
 * (the error handler may call MPI: not under the lock), when wisp has no
 * memory for its copy of the message: the MPI must not take it instead, as
 * the receiver looks only in wisp for a local sender. */
static int isend_locked(struct wisp_p2p_comm *c, const void *buf, MPI_Count count,
                        MPI_Datatype type, int dest, int tag, MPI_Comm comm, int mode,
                        MPI_Request *request)
{
    struct wisp_p2p_req *req = wisp_p2p_req_new(WISP_P2P_SEND, WISP_P2P_LIFE_ACTIVE);
    req->mode = (uint8_t)mode;
    req->sbuf = buf;
    req->count = count;
    req->type = type;
    req->peer = dest;
    req->tag = tag;
    req->handle = comm;
    req->comm = c;
    int rc = prepare_send(req);
    if (rc != MPI_SUCCESS) {
        wisp_p2p_req_move(req, WISP_P2P_DISCARD);
        if (rc == MPI_ERR_NO_MEM) {
            *request = MPI_REQUEST_NULL;
            return rc;
        }
        return mpi_isend(mode, buf, count, type, dest, tag, comm, request); /* a bad type */
    }
    wisp_p2p_send_start(req, c->rank == dest ? wisp_p2p.node_rank : c->node_of[dest]);
    if (mode == WISP_P2P_BUFFERED && !wisp_p2p_req_done(req)) {
        req->st_error = MPI_SUCCESS; /* from wisp's own copy; the engine finishes the rest */
        wisp_p2p_req_move(req, WISP_P2P_COMPLETE);
    }
    *request = wisp_p2p_req_handle(req);
    return MPI_SUCCESS;
}

int wisp_p2p_isend(const void *buf, MPI_Count count, MPI_Datatype type, int dest, int tag,
                   MPI_Comm comm, int mode, MPI_Request *request)
{
    wisp_p2p_lock();
    struct wisp_p2p_comm *c = carrier(comm, dest, tag, count, false);
    int rc = MPI_SUCCESS;
    bool no_mem = false;
    if (!c)
        rc = mpi_isend(mode, buf, count, type, dest, tag, comm, request);
    else if (mode != WISP_P2P_SYNC && dest != c->rank &&
             wisp_p2p_send_now(c, dest, tag, buf, count, type))
        *request = wisp_p2p_req_handle(wisp_p2p_req_sent());
    else if ((rc = isend_locked(c, buf, count, type, dest, tag, comm, mode, request)) ==
             MPI_ERR_NO_MEM)
        no_mem = true;
    wisp_p2p_unlock();
    return no_mem ? wisp_p2p_error(comm, rc) : rc;
}

static bool req_done(void *req)
{
    return wisp_p2p_req_test(req);
}

/* Wait for `req`, report its status, retire it; lock held. */
static int finish(struct wisp_p2p_req *req, MPI_Status *status, MPI_Comm comm)
{
    wisp_p2p_wait_until(req_done, req);
    int rc = wisp_p2p_req_status(req, status);
    bool raised = req->from_inner; /* the MPI already called the error handler */
    MPI_Request handle = wisp_p2p_req_handle(req);
    wisp_p2p_req_retire(req, &handle);
    wisp_p2p_unlock();
    return rc != MPI_SUCCESS && !raised ? wisp_p2p_error(comm, rc) : rc;
}

int wisp_p2p_send_to(const void *buf, MPI_Count count, MPI_Datatype type, int dest, int tag,
                     MPI_Comm comm, int mode)
{
    wisp_p2p_lock();
    struct wisp_p2p_comm *c = carrier(comm, dest, tag, count, false);
    if (!c) {
        wisp_p2p_unlock();
        return mpi_send(mode, buf, count, type, dest, tag, comm);
    }
    if (mode != WISP_P2P_SYNC && dest != c->rank &&
        wisp_p2p_send_now(c, dest, tag, buf, count, type)) {
        wisp_p2p_unlock();
        return MPI_SUCCESS;
    }
    MPI_Request handle;
    int rc = isend_locked(c, buf, count, type, dest, tag, comm, mode, &handle);
    struct wisp_p2p_req *req = wisp_p2p_req_of(handle);
    if (rc != MPI_SUCCESS || !req) { /* out of memory, or the MPI took it */
        wisp_p2p_unlock();
        if (rc == MPI_ERR_NO_MEM)
            return wisp_p2p_error(comm, rc);
        return rc != MPI_SUCCESS ? rc : wisp_p2p_wait_mpi(&handle, MPI_STATUS_IGNORE);
    }
    return finish(req, MPI_STATUS_IGNORE, comm);
}

/* Lock held. Returns the MPI's request when it took the receive. */
static int irecv_locked(struct wisp_p2p_comm *c, void *buf, MPI_Count count, MPI_Datatype type,
                        int source, int tag, MPI_Comm comm, MPI_Request *request)
{
    struct wisp_p2p_req *req = wisp_p2p_req_new(WISP_P2P_RECV, WISP_P2P_LIFE_ACTIVE);
    req->rbuf = buf;
    req->count = count;
    req->type = type;
    req->peer = source;
    req->tag = tag;
    req->handle = comm;
    req->comm = c;
    int rc = wisp_p2p_recv_start(req);
    if (rc != MPI_SUCCESS) {
        wisp_p2p_req_move(req, WISP_P2P_DISCARD);
        return rc;
    }
    recv_hold_type(req);
    if ((req->where == WISP_P2P_RECV_MPI || req->where == WISP_P2P_RECV_FORWARDED) &&
        !wisp_p2p_req_done(req)) {
        *request = req->inner; /* straight to the MPI: hand its request over */
        wisp_p2p_req_move(req, WISP_P2P_DISCARD);
        return MPI_SUCCESS;
    }
    *request = wisp_p2p_req_handle(req);
    return MPI_SUCCESS;
}

int wisp_p2p_irecv(void *buf, MPI_Count count, MPI_Datatype type, int source, int tag,
                   MPI_Comm comm, MPI_Request *request)
{
    wisp_p2p_lock();
    struct wisp_p2p_comm *c = carrier(comm, source, tag, count, true);
    int rc = c ? irecv_locked(c, buf, count, type, source, tag, comm, request)
               : WISP_P2P_MPI(Irecv, count, buf, count, type, source, tag, comm, request);
    wisp_p2p_unlock();
    return rc;
}

int wisp_p2p_recv(void *buf, MPI_Count count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                  MPI_Status *status)
{
    wisp_p2p_lock();
    struct wisp_p2p_comm *c = carrier(comm, source, tag, count, true);
    MPI_Request handle;
    int rc = c ? irecv_locked(c, buf, count, type, source, tag, comm, &handle) : MPI_SUCCESS;
    struct wisp_p2p_req *req = c && rc == MPI_SUCCESS ? wisp_p2p_req_of(handle) : NULL;
    if (req)
        return finish(req, status, comm);
    wisp_p2p_unlock();
    if (rc != MPI_SUCCESS)
        return wisp_p2p_error(comm, rc);
    if (c)
        return wisp_p2p_wait_mpi(&handle, status);
    if (wisp_p2p_busy()) {
        rc = WISP_P2P_MPI(Irecv, count, buf, count, type, source, tag, comm, &handle);
        return rc != MPI_SUCCESS ? rc : wisp_p2p_wait_mpi(&handle, status);
    }
    return WISP_P2P_MPI(Recv, count, buf, count, type, source, tag, comm, status);
}

/* ---- persistent requests ----------------------------------------------- */

static int persistent(uint8_t kind, int mode, const void *sbuf, void *rbuf, MPI_Count count,
                      MPI_Datatype type, int peer, int tag, MPI_Comm comm, MPI_Request *request)
{
    struct wisp_p2p_req *req = wisp_p2p_req_new(kind, WISP_P2P_LIFE_INACTIVE);
    req->form = WISP_P2P_PERSISTENT;
    req->mode = (uint8_t)mode;
    req->sbuf = sbuf;
    req->rbuf = rbuf;
    req->count = count;
    req->type = type;
    req->peer = peer;
    req->tag = tag;
    req->handle = comm;
    req->child = MPI_REQUEST_NULL;
    /* Each MPI_Start needs them: the user may free both meanwhile. */
    type_hold(req);
    req->comm = wisp_p2p_comm_of(comm);
    wisp_p2p_comm_hold(req->comm);
    *request = wisp_p2p_req_handle(req);
    return MPI_SUCCESS;
}

/* Persistent requests are wisp's on every communicator, also one the MPI
 * serves whole: so MPI_Start of an active one is reported through the
 * communicator's handler everywhere alike (MPICH's own aborts on the
 * world's). Where wisp does not serve, the MPI's own request checks the
 * arguments first and then, inactive, keeps the communicator alive for
 * wisp's (the user may free it meanwhile). */

int wisp_p2p_send_init(const void *buf, MPI_Count count, MPI_Datatype type, int dest, int tag,
                       MPI_Comm comm, int mode, MPI_Request *request)
{
    wisp_p2p_lock();
    bool served = wisp_p2p_comm_of(comm) != NULL;
    wisp_p2p_unlock();
    MPI_Request mpi_request = MPI_REQUEST_NULL;
    if (count < 0 || !served) {
        int rc =
            BY_MODE(mpi_send_inits, mode, count, buf, count, type, dest, tag, comm, &mpi_request);
        if (count < 0 || rc != MPI_SUCCESS) {
            *request = mpi_request;
            return rc;
        }
    }
    wisp_p2p_lock();
    persistent(WISP_P2P_SEND, mode, buf, NULL, count, type, dest, tag, comm, request);
    wisp_p2p_req_of(*request)->anchor = mpi_request;
    wisp_p2p_unlock();
    return MPI_SUCCESS;
}

int wisp_p2p_recv_init(void *buf, MPI_Count count, MPI_Datatype type, int source, int tag,
                       MPI_Comm comm, MPI_Request *request)
{
    wisp_p2p_lock();
    bool served = wisp_p2p_comm_of(comm) != NULL;
    wisp_p2p_unlock();
    MPI_Request mpi_request = MPI_REQUEST_NULL;
    if (count < 0 || !served) {
        int rc = WISP_P2P_MPI(Recv_init, count, buf, count, type, source, tag, comm, &mpi_request);
        if (count < 0 || rc != MPI_SUCCESS) {
            *request = mpi_request;
            return rc;
        }
    }
    wisp_p2p_lock();
    persistent(WISP_P2P_RECV, 0, NULL, buf, count, type, source, tag, comm, request);
    wisp_p2p_req_of(*request)->anchor = mpi_request;
    wisp_p2p_unlock();
    return MPI_SUCCESS;
}

void wisp_p2p_above_persistent(void *op, MPI_Comm comm, MPI_Request *handle)
{
    struct wisp_p2p_req *req = wisp_p2p_req_new(WISP_P2P_ABOVE, WISP_P2P_LIFE_INACTIVE);
    req->form = WISP_P2P_PERSISTENT;
    req->above = op;
    req->handle = comm;
    req->child = MPI_REQUEST_NULL;
    req->comm = wisp_p2p_comm_of(comm); /* its handle outlives the user's free */
    wisp_p2p_comm_hold(req->comm);
    *handle = wisp_p2p_req_handle(req);
}

int wisp_p2p_start(MPI_Request *request)
{
    struct wisp_p2p_req *req = wisp_p2p_req_of(*request);
    if (!req)
        return PMPI_Start(request);
    if (req->life != WISP_P2P_LIFE_INACTIVE) /* MPI_Start on an active request is erroneous */
        return wisp_p2p_error(req->handle, MPI_ERR_REQUEST);
    int rc;
    if (req->kind == WISP_P2P_ABOVE)
        rc = wisp_p2p_up.above_start(req->above, &req->child);
    else if (req->kind == WISP_P2P_SEND)
        rc = wisp_p2p_isend(req->sbuf, req->count, req->type, req->peer, req->tag, req->handle,
                            req->mode, &req->child);
    else
        rc = wisp_p2p_irecv(req->rbuf, req->count, req->type, req->peer, req->tag, req->handle,
                            &req->child);
    wisp_p2p_lock();
    req->from_inner = false;
    if (rc == MPI_SUCCESS)
        wisp_p2p_req_move(req, WISP_P2P_START);
    wisp_p2p_unlock();
    return rc;
}

int wisp_p2p_startall(int count, MPI_Request requests[])
{
    for (int i = 0; i < count; i++) {
        int rc = wisp_p2p_start(&requests[i]);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

/* ---- probes -------------------------------------------------------------- */

/* A probe as wisp answers it, lock held: from its queues, or from the
 * MPI's through a communicator's `remote` queue (*rc, *flag set). False:
 * the MPI alone answers (not served, a remote source, malformed, or nothing
 * here on a communicator with remote members). With `message` (MPI_Improbe)
 * a message found leaves matching. */
static bool probe_wisp(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                       MPI_Status *status, int *rc)
{
    struct wisp_p2p_comm *c = carrier(comm, source, tag, 0, true);
    if (!c)
        return false;
    bool local = !(source >= 0 && c->node_of[source] < 0);
    struct wisp_p2p_msg *msg = NULL;
    if (local) {
        wisp_p2p_progress();
        msg = wisp_p2p_probe_local(c, source, tag);
    }
    if (msg) {
        wisp_p2p_status_set(status, msg->source, msg->tag, msg->size, false);
        if (message) {
            wisp_list_remove(&msg->link);
            struct wisp_p2p_req *req = wisp_p2p_req_new(WISP_P2P_MESSAGE, WISP_P2P_LIFE_ACTIVE);
            req->msg = msg;
            req->comm = c;
            req->handle = comm;
            *message = wisp_p2p_msg_handle(req);
        }
    }
    /* A communicator with every member on this node needs no MPI call. */
    bool ask_mpi = !local || (!msg && source == MPI_ANY_SOURCE && c->has_remote);
    if (ask_mpi && !wisp_list_empty(&c->remote)) {
        *rc = wisp_p2p_probe_remote(c, source, tag, flag, message, status);
        return true;
    }
    if (ask_mpi)
        return false;
    *flag = msg != NULL;
    *rc = MPI_SUCCESS;
    return true;
}

static int mpi_probe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                     MPI_Status *status)
{
    return message ? PMPI_Improbe(source, tag, comm, flag, message, status)
                   : PMPI_Iprobe(source, tag, comm, flag, status);
}

/* MPI_Iprobe, or MPI_Improbe when `message` is not NULL. */
static int probe_once(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                      MPI_Status *status)
{
    int rc = MPI_SUCCESS;
    wisp_p2p_lock();
    bool answered = probe_wisp(source, tag, comm, flag, message, status, &rc);
    wisp_p2p_unlock();
    if (!answered) {
        wisp_p2p_mpi_polls();
        return mpi_probe(source, tag, comm, flag, message, status);
    }
    if (!*flag)
        wisp_p2p_poke_idle();
    return rc;
}

struct probe_wait {
    int source, tag;
    MPI_Comm comm;
    MPI_Message *message;
    MPI_Status *status;
    int flag, rc;
};

static bool probe_found(void *arg)
{
    struct probe_wait *w = arg;
    if (!probe_wisp(w->source, w->tag, w->comm, &w->flag, w->message, w->status, &w->rc))
        w->rc = mpi_probe(w->source, w->tag, w->comm, &w->flag, w->message, w->status);
    return w->flag || w->rc != MPI_SUCCESS;
}

/* MPI_Probe, or MPI_Mprobe when `message` is not NULL: the MPI's own when
 * it alone can answer and wisp has nothing in flight, else a wait of the
 * engine's (which backs off on an oversubscribed node). */
static int probe_until_found(int source, int tag, MPI_Comm comm, MPI_Message *message,
                             MPI_Status *status)
{
    wisp_p2p_lock();
    bool mpi = !carrier(comm, source, tag, 0, true) && !wisp_p2p_busy();
    if (mpi) {
        wisp_p2p_unlock();
        return message ? PMPI_Mprobe(source, tag, comm, message, status)
                       : PMPI_Probe(source, tag, comm, status);
    }
    struct probe_wait w = {source, tag, comm, message, status, 0, MPI_SUCCESS};
    wisp_p2p_wait_until(probe_found, &w);
    wisp_p2p_unlock();
    return w.rc;
}

int wisp_p2p_iprobe_from(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    return probe_once(source, tag, comm, flag, NULL, status);
}

int wisp_p2p_probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    return probe_until_found(source, tag, comm, NULL, status);
}

int wisp_p2p_improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                     MPI_Status *status)
{
    return probe_once(source, tag, comm, flag, message, status);
}

int wisp_p2p_mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    return probe_until_found(source, tag, comm, message, status);
}

int wisp_p2p_imrecv(void *buf, MPI_Count count, MPI_Datatype type, MPI_Message *message,
                    MPI_Request *request)
{
    struct wisp_p2p_req *req = wisp_p2p_msg_of(*message);
    if (!req || req->kind != WISP_P2P_MESSAGE)
        return WISP_P2P_MPI(Imrecv, count, buf, count, type, message, request);
    wisp_p2p_lock();
    struct wisp_p2p_msg *msg = req->msg;
    req->msg = NULL;
    req->kind = WISP_P2P_RECV;
    req->rbuf = buf;
    req->count = count;
    req->type = type;
    req->peer = msg->source;
    req->tag = msg->tag;
    int rc = wisp_p2p_recv_prepare(req);
    if (rc != MPI_SUCCESS) { /* keep the message for another try */
        req->kind = WISP_P2P_MESSAGE;
        req->msg = msg;
        wisp_p2p_unlock();
        return wisp_p2p_error(req->handle, rc);
    }
    wisp_p2p_deliver(req, msg);
    if (!wisp_p2p_req_done(req) && req->type_ref == WISP_P2P_TYPE_USERS)
        type_hold(req);
    *message = MPI_MESSAGE_NULL;
    *request = wisp_p2p_req_handle(req);
    wisp_p2p_unlock();
    return MPI_SUCCESS;
}

int wisp_p2p_mrecv(void *buf, MPI_Count count, MPI_Datatype type, MPI_Message *message,
                   MPI_Status *status)
{
    struct wisp_p2p_req *req = wisp_p2p_msg_of(*message);
    if (!req || req->kind != WISP_P2P_MESSAGE)
        return WISP_P2P_MPI(Mrecv, count, buf, count, type, message, status);
    MPI_Request handle;
    MPI_Comm comm = req->handle;
    int rc = wisp_p2p_imrecv(buf, count, type, message, &handle);
    if (rc != MPI_SUCCESS)
        return rc;
    wisp_p2p_lock();
    return finish(wisp_p2p_req_of(handle), status, comm);
}

/* ---- combined ------------------------------------------------------------ */

static int pair(MPI_Request r[2], MPI_Status *status, MPI_Comm comm)
{
    MPI_Status st[2];
    int rc = wisp_p2p_waitall(2, r, st, false, NULL, false);
    wisp_core_status_single(status, &st[0]);
    if (rc == MPI_ERR_IN_STATUS) {
        rc = st[0].MPI_ERROR != MPI_SUCCESS ? st[0].MPI_ERROR : st[1].MPI_ERROR;
        return wisp_p2p_error(comm, rc);
    }
    return rc;
}

int wisp_p2p_sendrecv(const void *sbuf, MPI_Count scount, MPI_Datatype stype, int dest, int stag,
                      void *rbuf, MPI_Count rcount, MPI_Datatype rtype, int source, int rtag,
                      MPI_Comm comm, MPI_Status *status)
{
    wisp_p2p_lock();
    bool served =
        carrier(comm, dest, stag, scount, false) || carrier(comm, source, rtag, rcount, true);
    wisp_p2p_unlock();
    if (!served && !wisp_p2p_busy())
        return WISP_P2P_MPI(Sendrecv, scount > rcount ? scount : rcount, sbuf, scount, stype, dest,
                            stag, rbuf, rcount, rtype, source, rtag, comm, status);
    MPI_Request r[2];
    int rc = wisp_p2p_irecv(rbuf, rcount, rtype, source, rtag, comm, &r[0]);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = wisp_p2p_isend(sbuf, scount, stype, dest, stag, comm, WISP_P2P_STANDARD, &r[1]);
    if (rc != MPI_SUCCESS) {
        wisp_p2p_cancel(&r[0]);
        wisp_p2p_wait1(&r[0], MPI_STATUS_IGNORE, false, NULL);
        return rc;
    }
    return pair(r, status, comm);
}

/* A packed copy of `count` elements of `type` at `buf`, for a send that
 * must not read the buffer a receive overwrites; NULL when out of memory. */
static void *packed_copy(const void *buf, MPI_Count count, MPI_Datatype type, MPI_Count *bytes)
{
    MPI_Count size = 0;
    *bytes = 0;
    if (wisp_p2p_pack_size(count, type, &size) != MPI_SUCCESS)
        return NULL;
    void *copy = malloc(size ? (size_t)size : 1);
    if (copy)
        wisp_p2p_pack(buf, count, type, copy, size, bytes);
    return copy;
}

int wisp_p2p_sendrecv_replace(void *buf, MPI_Count count, MPI_Datatype type, int dest, int stag,
                              int source, int rtag, MPI_Comm comm, MPI_Status *status)
{
    wisp_p2p_lock();
    bool served =
        carrier(comm, dest, stag, count, false) || carrier(comm, source, rtag, count, true);
    wisp_p2p_unlock();
    if ((!served && !wisp_p2p_busy()) || count < 0)
        return WISP_P2P_MPI(Sendrecv_replace, count, buf, count, type, dest, stag, source, rtag,
                            comm, status);
    MPI_Count bytes;
    void *copy = packed_copy(buf, count, type, &bytes);
    if (!copy)
        return wisp_p2p_error(comm, MPI_ERR_NO_MEM);
    MPI_Request r[2];
    int rc = wisp_p2p_irecv(buf, count, type, source, rtag, comm, &r[0]);
    if (rc == MPI_SUCCESS) {
        rc = wisp_p2p_isend(copy, bytes, MPI_PACKED, dest, stag, comm, WISP_P2P_STANDARD, &r[1]);
        rc = rc == MPI_SUCCESS ? pair(r, status, comm) : rc;
    }
    free(copy);
    return rc;
}

/* The request of MPI_Isendrecv(_replace) over a posted receive and send;
 * `copy`: the packed send buffer of the replace form, freed with it. */
static int pair_request(MPI_Request recv, MPI_Request send, void *copy, MPI_Request *request)
{
    wisp_p2p_lock();
    struct wisp_p2p_req *req = wisp_p2p_req_new(WISP_P2P_RECV, WISP_P2P_LIFE_ACTIVE);
    req->form = WISP_P2P_PAIR;
    req->child = recv;
    req->partner = send;
    req->partner_error = MPI_SUCCESS;
    req->tmp = copy;
    *request = wisp_p2p_req_handle(req);
    wisp_p2p_unlock();
    return MPI_SUCCESS;
}

/* Post the receive, then the send; when the send cannot start, take the
 * receive back. */
static int post_pair(const void *sbuf, MPI_Count scount, MPI_Datatype stype, int dest, int stag,
                     void *rbuf, MPI_Count rcount, MPI_Datatype rtype, int source, int rtag,
                     MPI_Comm comm, MPI_Request r[2])
{
    int rc = wisp_p2p_irecv(rbuf, rcount, rtype, source, rtag, comm, &r[0]);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = wisp_p2p_isend(sbuf, scount, stype, dest, stag, comm, WISP_P2P_STANDARD, &r[1]);
    if (rc != MPI_SUCCESS) {
        wisp_p2p_cancel(&r[0]);
        wisp_p2p_wait1(&r[0], MPI_STATUS_IGNORE, false, NULL);
    }
    return rc;
}

int wisp_p2p_isendrecv(const void *sbuf, MPI_Count scount, MPI_Datatype stype, int dest, int stag,
                       void *rbuf, MPI_Count rcount, MPI_Datatype rtype, int source, int rtag,
                       MPI_Comm comm, MPI_Request *request)
{
    MPI_Request r[2];
    int rc = post_pair(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm, r);
    return rc == MPI_SUCCESS ? pair_request(r[0], r[1], NULL, request) : rc;
}

int wisp_p2p_isendrecv_replace(void *buf, MPI_Count count, MPI_Datatype type, int dest, int stag,
                               int source, int rtag, MPI_Comm comm, MPI_Request *request)
{
    MPI_Count bytes;
    void *copy = packed_copy(buf, count, type, &bytes);
    if (!copy)
        return wisp_p2p_error(comm, MPI_ERR_NO_MEM);
    MPI_Request r[2];
    int rc =
        post_pair(copy, bytes, MPI_PACKED, dest, stag, buf, count, type, source, rtag, comm, r);
    if (rc != MPI_SUCCESS) {
        free(copy);
        return rc;
    }
    return pair_request(r[0], r[1], copy, request);
}
