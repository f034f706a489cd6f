/*
 * MPI_Wait, MPI_Test and their any/some/all forms over arrays that mix
 * wisp's requests with the MPI's. Arrays of the MPI's requests alone go
 * straight to the MPI unless wisp has work in flight that must keep moving.
 * Otherwise the MPI's part is handed to the MPI's own Test* function as one
 * sub-array, so null and inactive requests, error codes and statuses keep
 * the MPI's exact rules; wisp's part follows the same rules here.
 */
#include "p2p/complete.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/mpi_impl.h"
#include "p2p/comm.h"
#include "p2p/lend/lend.h"
#include "p2p/lock.h"
#include "p2p/match.h"
#include "p2p/progress.h"
#include "p2p/recv.h"
#include "p2p/request.h"

/* A part of a persistent or paired request (wisp's or the MPI's): is it
 * complete? Then its result is req's, and *part is MPI_REQUEST_NULL. */
static bool part_done(struct wisp_p2p_req *req, MPI_Request *part)
{
    struct wisp_p2p_req *child = wisp_p2p_req_of(*part);
    if (child) {
        if (!wisp_p2p_req_test(child))
            return false;
        req->st_source = child->st_source;
        req->st_tag = child->st_tag;
        req->st_error = child->st_error;
        req->st_bytes = child->st_bytes;
        req->st_cancelled = child->st_cancelled;
        req->from_inner = child->from_inner;
        req->inner_status = child->inner_status;
        wisp_p2p_req_retire(child, part);
        return true;
    }
    int flag = 1, rc = MPI_SUCCESS;
    if (*part != MPI_REQUEST_NULL)
        rc = PMPI_Test(part, &flag, &req->inner_status);
    else
        wisp_p2p_status_set(&req->inner_status, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, false);
    if (rc != MPI_SUCCESS || flag) {
        req->st_error = rc;
        req->from_inner = true;
    }
    return rc != MPI_SUCCESS || flag;
}

/* MPI_Isendrecv: the send first (its error kept), then the receive, whose
 * status is the request's. */
static bool test_pair(struct wisp_p2p_req *req)
{
    if (req->partner != MPI_REQUEST_NULL) {
        if (!part_done(req, &req->partner))
            return false;
        req->partner_error = req->st_error;
        req->partner = MPI_REQUEST_NULL;
    }
    if (!part_done(req, &req->child))
        return false;
    if (req->st_error == MPI_SUCCESS)
        req->st_error = req->partner_error;
    wisp_p2p_req_move(req, WISP_P2P_COMPLETE);
    return true;
}

bool wisp_p2p_req_test_more(struct wisp_p2p_req *req)
{
    if (req->where == WISP_P2P_RECV_DEFERRED) {
        wisp_p2p_recv_finish(req);
        return true;
    }
    if (req->form == WISP_P2P_PERSISTENT) {
        if (!part_done(req, &req->child))
            return false;
        wisp_p2p_req_move(req, WISP_P2P_COMPLETE);
        return true;
    }
    if (req->form == WISP_P2P_PAIR)
        return test_pair(req);
    if (req->form == WISP_P2P_FORM_ABOVE)
        return wisp_p2p_up.above_test(req);
    if (req->inner == MPI_REQUEST_NULL)
        return false;
    if (wisp_p2p_recv_lent(req))
        return wisp_p2p_lent_test(req);
    return wisp_p2p_req_test_inner(req);
}

static bool inactive(const struct wisp_p2p_req *req)
{
    return req->life == WISP_P2P_LIFE_INACTIVE;
}

static void empty_status(MPI_Status *status)
{
    wisp_p2p_status_set(status, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, false);
    if (status != MPI_STATUS_IGNORE)
        status->MPI_ERROR = MPI_SUCCESS;
}

/* Finish a completed request of wisp for the user: status, retire. Returns
 * its error code; `raise` says whether wisp must still report it. */
static int hand_over(struct wisp_p2p_req *req, MPI_Request *handle, MPI_Status *status,
                     MPI_Comm *raise)
{
    int rc = wisp_p2p_req_status(req, status);
    if (rc != MPI_SUCCESS && !req->from_inner && raise && *raise == MPI_COMM_NULL)
        *raise = req->handle;
    wisp_p2p_req_retire(req, handle);
    return rc;
}

enum { SMALL = 64 }; /* arrays up to this size need no malloc */

/* The MPI's requests of `reqs`, compacted, with their positions. */
struct split {
    int n;
    int *at;
    MPI_Request *reqs;
    MPI_Status *statuses;
    bool small;
    int at_small[SMALL];
    MPI_Request reqs_small[SMALL];
    MPI_Status statuses_small[SMALL];
};

static bool split(int n, MPI_Request *reqs, struct split *s)
{
    s->n = 0;
    s->small = n <= SMALL;
    s->at = s->small ? s->at_small : malloc(sizeof(int) * (size_t)n + 1);
    s->reqs = s->small ? s->reqs_small : malloc(sizeof(MPI_Request) * (size_t)n + 1);
    s->statuses = s->small ? s->statuses_small : malloc(sizeof(MPI_Status) * (size_t)n + 1);
    if (!s->at || !s->reqs || !s->statuses)
        return false;
    for (int i = 0; i < n; i++)
        if (!wisp_p2p_req_of(reqs[i])) {
            s->at[s->n] = i;
            s->reqs[s->n++] = reqs[i];
        }
    return true;
}

static void split_back(struct split *s, MPI_Request *reqs)
{
    for (int k = 0; k < s->n; k++)
        reqs[s->at[k]] = s->reqs[k];
}

static void split_free(struct split *s)
{
    if (s->small)
        return;
    free(s->at);
    free(s->reqs);
    free(s->statuses);
}

/* The callers' MPI_ERROR fields of a multiple completion: only one that
 * returns MPI_ERR_IN_STATUS sets them (native MPICH leaves them alone). */
struct kept_errors {
    int *v;
    int small[SMALL];
};

static void errors_keep(struct kept_errors *k, const MPI_Status *statuses, int n)
{
    k->v = NULL;
    if (statuses == MPI_STATUSES_IGNORE)
        return;
    k->v = n <= SMALL ? k->small : malloc(sizeof(int) * (size_t)n + 1);
    for (int i = 0; k->v && i < n; i++)
        k->v[i] = statuses[i].MPI_ERROR;
}

/* After the call set them: back to the callers' unless it `failed`. */
static void errors_restore(struct kept_errors *k, MPI_Status *statuses, int n, bool failed)
{
    for (int i = 0; k->v && !failed && i < n; i++)
        statuses[i].MPI_ERROR = k->v[i];
    if (k->v != k->small)
        free(k->v);
}

static int raise_if(MPI_Comm comm, int rc)
{
    return comm != MPI_COMM_NULL ? wisp_p2p_error(comm, rc) : rc;
}

/* ---- one request ----------------------------------------------------------- */

static bool req_done(void *req)
{
    return wisp_p2p_req_test(req);
}

int wisp_p2p_wait1_ours(MPI_Request *request, MPI_Status *status, bool test, int *flag)
{
    struct wisp_p2p_req *req = wisp_p2p_req_of(*request);
    wisp_p2p_lock();
    if (inactive(req)) {
        wisp_p2p_unlock();
        empty_status(status);
        if (flag)
            *flag = 1;
        return MPI_SUCCESS;
    }
    if (test) {
        wisp_p2p_progress_test();
        if (!wisp_p2p_req_test(req)) {
            wisp_p2p_unlock();
            wisp_p2p_poke_idle();
            *flag = 0;
            return MPI_SUCCESS;
        }
        *flag = 1;
    } else {
        wisp_p2p_wait_until(req_done, req);
    }
    MPI_Comm raise = MPI_COMM_NULL;
    int rc = hand_over(req, request, status, &raise);
    wisp_p2p_unlock();
    return raise_if(raise, rc);
}

/* ---- all --------------------------------------------------------------------- */

struct all {
    int n;
    int checked; /* reqs[0 .. checked) are known complete or not ours */
    MPI_Request *reqs;
    struct split mpi;
    bool mpi_done;
    int mpi_rc;
    int mpi_checked; /* mpi.reqs[0 .. mpi_checked) seen complete (mpi_careful) */
};

/*
 * MPICH 4.0.2's MPI_Testall fails over one of its persistent collective
 * requests (MPI_Allgather_init and the others, that wisp leaves to it) in
 * the call that completes it: MPI_ERR_IN_STATUS, every status MPI_SUCCESS,
 * through the error handler of MPI_COMM_WORLD, which by default aborts the
 * job (natively too; its MPI_Waitall is right). So a mixed MPI_Waitall that
 * polled the MPI's part with PMPI_Testall failed or killed the job where
 * natively it worked, and no answer of Testall's can be repaired after the
 * fact. Over MPICH the MPI's part is polled without completing anything:
 * MPI_Request_get_status of each request from the first not yet seen
 * complete on (they complete mostly in order, so a poll costs one call, as
 * one Testall did), and once all are complete, each is completed alone
 * with PMPI_Wait, which returns at once; its error, if any, goes into its
 * status and the call's answer is MPI_ERR_IN_STATUS, as Testall's would
 * be. MPI_Testall keeps its rule: nothing changes unless all are complete.
 */
static bool mpi_careful(void)
{
    return wisp_core_mpi_impl().family == WISP_IMPL_MPICH; /* read once, there */
}

static bool mpi_part_done(struct all *a)
{
    for (; a->mpi_checked < a->mpi.n; a->mpi_checked++) {
        int flag = 0;
        MPI_Request r = a->mpi.reqs[a->mpi_checked];
        if (PMPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && !flag)
            return false; /* (an error: PMPI_Wait below reports it) */
    }
    a->mpi_rc = MPI_SUCCESS;
    for (int k = 0; k < a->mpi.n; k++) {
        MPI_Status *st = &a->mpi.statuses[k];
        int rc = PMPI_Wait(&a->mpi.reqs[k], st);
        st->MPI_ERROR = rc;
        if (rc != MPI_SUCCESS)
            a->mpi_rc = MPI_ERR_IN_STATUS;
    }
    return true;
}

/* From the first request not yet seen complete on: a wait polls this
 * often, and requests complete mostly in order, so each poll costs O(1). */
static bool ours_done(struct all *a)
{
    for (; a->checked < a->n; a->checked++) {
        struct wisp_p2p_req *req = wisp_p2p_req_of(a->reqs[a->checked]);
        if (req && !inactive(req) && !wisp_p2p_req_test(req))
            return false;
    }
    return true;
}

static bool all_done(void *arg)
{
    struct all *a = arg;
    bool ours = ours_done(a);
    if (!a->mpi_done && !a->mpi.n) {
        a->mpi_done = true;
    } else if (!a->mpi_done && mpi_careful()) {
        a->mpi_done = mpi_part_done(a);
    } else if (!a->mpi_done) {
        int flag = 0;
        a->mpi_rc = PMPI_Testall(a->mpi.n, a->mpi.reqs, &flag, a->mpi.statuses);
        a->mpi_done = flag || a->mpi_rc != MPI_SUCCESS;
    }
    return ours && a->mpi_done;
}

int wisp_p2p_waitall_mixed(int n, MPI_Request *reqs, MPI_Status *statuses, bool test, int *flag,
                           bool raise)
{
    /* Field by field: an initializer would zero the arrays of `mpi` too,
     * kilobytes on every poll. */
    struct all a;
    a.n = n;
    a.checked = 0;
    a.reqs = reqs;
    a.mpi_done = false;
    a.mpi_rc = MPI_SUCCESS;
    a.mpi_checked = 0;
    if (!split(n, reqs, &a.mpi)) {
        split_free(&a.mpi);
        return MPI_ERR_NO_MEM;
    }
    wisp_p2p_lock();
    if (test) {
        wisp_p2p_progress();
        /* Nothing may change unless everything is complete. */
        if (!ours_done(&a)) {
            wisp_p2p_unlock();
            wisp_p2p_poke_idle();
            split_free(&a.mpi);
            *flag = 0;
            return MPI_SUCCESS;
        }
        all_done(&a);
        if (!a.mpi_done) {
            wisp_p2p_unlock();
            split_free(&a.mpi);
            *flag = 0;
            return MPI_SUCCESS;
        }
        *flag = 1;
    } else {
        wisp_p2p_wait_until(all_done, &a);
    }
    split_back(&a.mpi, reqs);
    bool ignore = statuses == MPI_STATUSES_IGNORE;
    bool failed = a.mpi_rc != MPI_SUCCESS;
    MPI_Comm report = MPI_COMM_NULL;
    struct kept_errors kept;
    errors_keep(&kept, statuses, n);
    for (int k = 0; k < a.mpi.n && !ignore; k++) {
        statuses[a.mpi.at[k]] = a.mpi.statuses[k];
        if (a.mpi_rc != MPI_ERR_IN_STATUS)
            statuses[a.mpi.at[k]].MPI_ERROR = a.mpi_rc;
    }
    for (int i = 0; i < n; i++) {
        struct wisp_p2p_req *req = wisp_p2p_req_of(reqs[i]);
        if (!req)
            continue;
        MPI_Status *st = ignore ? MPI_STATUS_IGNORE : &statuses[i];
        int rc = MPI_SUCCESS;
        if (inactive(req))
            empty_status(st);
        else
            rc = hand_over(req, &reqs[i], st, raise ? &report : NULL);
        if (!ignore)
            st->MPI_ERROR = rc;
        failed |= rc != MPI_SUCCESS;
    }
    errors_restore(&kept, statuses, n, failed);
    wisp_p2p_unlock();
    split_free(&a.mpi);
    if (!failed)
        return MPI_SUCCESS;
    return raise_if(report, MPI_ERR_IN_STATUS);
}

/* ---- any ----------------------------------------------------------------------- */

struct any {
    int n;
    MPI_Request *reqs;
    struct split mpi;
    int index;    /* found, or MPI_UNDEFINED when nothing is active */
    bool settled; /* index is final */
    MPI_Status status;
    int mpi_rc;
};

static bool any_done(void *arg)
{
    struct any *a = arg;
    bool active = false;
    for (int i = 0; i < a->n; i++) {
        struct wisp_p2p_req *req = wisp_p2p_req_of(a->reqs[i]);
        if (!req || inactive(req))
            continue;
        active = true;
        if (wisp_p2p_req_test(req)) {
            a->index = i;
            return a->settled = true;
        }
    }
    int k = MPI_UNDEFINED, flag = 1; /* none of the MPI's: no call into it */
    a->mpi_rc = a->mpi.n ? PMPI_Testany(a->mpi.n, a->mpi.reqs, &k, &flag, &a->status) : MPI_SUCCESS;
    if (a->mpi_rc != MPI_SUCCESS || (flag && k != MPI_UNDEFINED)) {
        a->index = k == MPI_UNDEFINED ? MPI_UNDEFINED : a->mpi.at[k];
        return a->settled = true;
    }
    if (flag && !active) { /* no active request anywhere */
        a->index = MPI_UNDEFINED;
        return a->settled = true;
    }
    return false;
}

/* A poll found request `i` done: hand it over (out of the poll's line). */
static __attribute__((noinline, cold)) int testany_found(struct wisp_p2p_req *req, int i,
                                                         MPI_Request *reqs, int *index, int *flag,
                                                         MPI_Status *status)
{
    MPI_Comm report = MPI_COMM_NULL;
    int code = hand_over(req, &reqs[i], status, &report);
    wisp_p2p_unlock();
    *index = i;
    *flag = 1;
    return raise_if(report, code);
}

/* MPI_Testany over requests that are all wisp's, as many as fit `r` (a
 * poll of receives on a served communicator): one look at each, no
 * sub-array for the MPI. False, having done nothing, when one is the MPI's
 * (MPI_REQUEST_NULL included): the general path takes the call. */
static inline bool testany_ours(int n, MPI_Request *reqs, int *index, int *flag, MPI_Status *status,
                                int *rc)
{
    struct wisp_p2p_req *r[16];
    if (n > (int)(sizeof r / sizeof *r))
        return false;
    for (int i = 0; i < n; i++)
        if (!(r[i] = wisp_p2p_req_of(reqs[i])))
            return false;
    wisp_p2p_lock();
    wisp_p2p_progress_test();
    bool active = false;
    for (int i = 0; i < n; i++) {
        if (inactive(r[i]))
            continue;
        active = true;
        if (wisp_p2p_req_test(r[i])) {
            *rc = testany_found(r[i], i, reqs, index, flag, status);
            return true;
        }
    }
    wisp_p2p_unlock();
    *index = MPI_UNDEFINED;
    *flag = !active; /* none active: done at once, with the empty status */
    *rc = MPI_SUCCESS;
    if (active)
        wisp_p2p_poke_idle();
    else
        empty_status(status);
    return true;
}

/* In a frame of its own, small, for the loop that polls millions of times. */
int wisp_p2p_testany_mixed(int n, MPI_Request *reqs, int *index, int *flag, MPI_Status *status)
{
    int rc;
    if (testany_ours(n, reqs, index, flag, status, &rc))
        return rc;
    return wisp_p2p_waitany_mixed(n, reqs, index, status, true, flag);
}

/* One look (a test), or wait until done. Lock held. */
static void test_or_wait(bool test, bool (*done)(void *), void *arg)
{
    if (test) {
        wisp_p2p_progress();
        done(arg);
    } else {
        wisp_p2p_wait_until(done, arg);
    }
}

int wisp_p2p_waitany_mixed(int n, MPI_Request *reqs, int *index, MPI_Status *status, bool test,
                           int *flag)
{
    int rc;
    struct any a; /* field by field, as in waitall */
    a.n = n;
    a.reqs = reqs;
    a.index = MPI_UNDEFINED;
    a.settled = false;
    a.mpi_rc = MPI_SUCCESS;
    if (!split(n, reqs, &a.mpi)) {
        split_free(&a.mpi);
        return MPI_ERR_NO_MEM;
    }
    wisp_p2p_lock();
    test_or_wait(test, any_done, &a);
    split_back(&a.mpi, reqs);
    rc = a.mpi_rc;
    MPI_Comm report = MPI_COMM_NULL;
    if (flag)
        *flag = a.settled;
    *index = a.settled ? a.index : MPI_UNDEFINED;
    struct wisp_p2p_req *req =
        a.settled && a.index != MPI_UNDEFINED ? wisp_p2p_req_of(reqs[a.index]) : NULL;
    if (req)
        rc = hand_over(req, &reqs[a.index], status, &report);
    else if (a.settled && a.index == MPI_UNDEFINED && rc == MPI_SUCCESS)
        empty_status(status);
    else if (a.settled && status != MPI_STATUS_IGNORE)
        *status = a.status;
    wisp_p2p_unlock();
    split_free(&a.mpi);
    if (!a.settled)
        wisp_p2p_poke_idle();
    return raise_if(report, rc);
}

/* ---- some ------------------------------------------------------------------------ */

struct some {
    int n;
    MPI_Request *reqs;
    struct split mpi;
    int *indices;
    int out; /* completed so far, or MPI_UNDEFINED */
    int mpi_out;
    int *mpi_indices;
    int mpi_rc;
};

static bool some_done(void *arg)
{
    struct some *s = arg;
    bool active = false;
    s->out = 0;
    for (int i = 0; i < s->n; i++) {
        struct wisp_p2p_req *req = wisp_p2p_req_of(s->reqs[i]);
        if (!req || inactive(req))
            continue;
        active = true;
        if (wisp_p2p_req_test(req))
            s->indices[s->out++] = i;
    }
    s->mpi_out = MPI_UNDEFINED; /* none of the MPI's: no call into it */
    s->mpi_rc = s->mpi.n ? PMPI_Testsome(s->mpi.n, s->mpi.reqs, &s->mpi_out, s->mpi_indices,
                                         s->mpi.statuses)
                         : MPI_SUCCESS;
    if (s->mpi_out == MPI_UNDEFINED) {
        s->mpi_out = 0;
        if (!active && s->mpi_rc == MPI_SUCCESS) {
            s->out = MPI_UNDEFINED;
            return true;
        }
    }
    return s->out + s->mpi_out > 0 || s->mpi_rc != MPI_SUCCESS;
}

int wisp_p2p_waitsome_mixed(int n, MPI_Request *reqs, int *outcount, int *indices,
                            MPI_Status *statuses, bool test)
{
    struct some s; /* field by field, as in waitall */
    s.n = n;
    s.reqs = reqs;
    s.indices = indices;
    s.out = s.mpi_out = 0;
    s.mpi_rc = MPI_SUCCESS;
    s.mpi_indices = malloc(sizeof(int) * (size_t)n + 1);
    if (!s.mpi_indices || !split(n, reqs, &s.mpi)) {
        free(s.mpi_indices);
        split_free(&s.mpi);
        return MPI_ERR_NO_MEM;
    }
    wisp_p2p_lock();
    /* A wait that finds some request complete at once moves wisp's engine
     * all the same, as a test does: MPICH 4.0.2's MPI_Testsome reports its
     * completed persistent collective again in every call, and a program
     * that waits for the rest in a loop of MPI_Waitsome would never let
     * wisp's requests among them move (natively, each call moves MPICH's). */
    if (!test)
        wisp_p2p_progress();
    test_or_wait(test, some_done, &s);
    split_back(&s.mpi, reqs);
    bool ignore = statuses == MPI_STATUSES_IGNORE;
    bool failed = s.mpi_rc != MPI_SUCCESS;
    MPI_Comm report = MPI_COMM_NULL;
    struct kept_errors kept;
    errors_keep(&kept, statuses, n);
    if (s.out == MPI_UNDEFINED) {
        *outcount = MPI_UNDEFINED;
    } else {
        for (int k = 0; k < s.out; k++) {
            int i = indices[k];
            MPI_Status *st = ignore ? MPI_STATUS_IGNORE : &statuses[k];
            int rc = hand_over(wisp_p2p_req_of(reqs[i]), &reqs[i], st, &report);
            if (!ignore)
                st->MPI_ERROR = rc;
            failed |= rc != MPI_SUCCESS;
        }
        for (int k = 0; k < s.mpi_out; k++) {
            indices[s.out + k] = s.mpi.at[s.mpi_indices[k]];
            if (!ignore) {
                statuses[s.out + k] = s.mpi.statuses[k];
                if (s.mpi_rc != MPI_ERR_IN_STATUS)
                    statuses[s.out + k].MPI_ERROR = s.mpi_rc;
            }
        }
        *outcount = s.out + s.mpi_out;
    }
    errors_restore(&kept, statuses, n, failed);
    wisp_p2p_unlock();
    free(s.mpi_indices);
    split_free(&s.mpi);
    if (test && *outcount == 0)
        wisp_p2p_poke_idle();
    return failed ? raise_if(report, MPI_ERR_IN_STATUS) : MPI_SUCCESS;
}

/* ---- the rest ---------------------------------------------------------------------- */

/* MPI_Request_free on a part of a persistent or paired request. */
static void free_part(MPI_Request *part)
{
    struct wisp_p2p_req *child = wisp_p2p_req_of(*part);
    if (child)
        wisp_p2p_req_move(child, WISP_P2P_FREE);
    else if (*part != MPI_REQUEST_NULL) {
        PMPI_Request_free(part);
    }
    *part = MPI_REQUEST_NULL;
}

int wisp_p2p_request_free(MPI_Request *request)
{
    struct wisp_p2p_req *req = wisp_p2p_req_of(*request);
    if (!req)
        return PMPI_Request_free(request);
    wisp_p2p_lock();
    if (req->form != WISP_P2P_PLAIN) { /* the parts in flight finish on their own */
        free_part(&req->child);
        if (req->form == WISP_P2P_PAIR && req->partner != MPI_REQUEST_NULL) {
            free_part(&req->partner);
            req->tmp = NULL; /* the send may still read it: left to leak */
        }
        if (req->form == WISP_P2P_PERSISTENT && req->comm)
            wisp_p2p_comm_unhold(req->comm); /* held since MPI_*_init (ops.c) */
        if (req->form == WISP_P2P_PERSISTENT && req->kind == WISP_P2P_ABOVE)
            wisp_p2p_up.above_free(req->above);
        if (req->life == WISP_P2P_LIFE_ACTIVE)
            wisp_p2p_req_move(req, WISP_P2P_COMPLETE); /* nothing of its own runs */
    } else if (!wisp_p2p_req_done(req) && req->inner != MPI_REQUEST_NULL &&
               !wisp_p2p_req_held(req) && !wisp_p2p_recv_lent(req)) {
        /* The MPI finishes it on its own; but a forwarded send's packed
         * bytes stay until the engine sees its request complete, and a
         * lent receive until it is taken back. */
        PMPI_Request_free(&req->inner);
        wisp_p2p_req_move(req, WISP_P2P_COMPLETE);
    }
    wisp_p2p_req_move(req, WISP_P2P_FREE);
    *request = MPI_REQUEST_NULL;
    wisp_p2p_unlock();
    return MPI_SUCCESS;
}

int wisp_p2p_request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    struct wisp_p2p_req *req = wisp_p2p_req_of(request);
    if (!req)
        return PMPI_Request_get_status(request, flag, status);
    wisp_p2p_lock();
    int rc = MPI_SUCCESS;
    if (inactive(req)) {
        *flag = 1;
        empty_status(status);
    } else {
        wisp_p2p_progress();
        *flag = wisp_p2p_req_test(req);
        if (*flag)
            rc = wisp_p2p_req_status(req, status);
    }
    wisp_p2p_unlock();
    if (!*flag)
        wisp_p2p_poke_idle();
    return rc;
}

#if !defined(WISP_HAVE_MPI_Request_get_status_any) && defined(MPICH)
/* The build's mpi.h (MPICH 4.0.2) lacks them, the MPI beneath may have them
 * (Intel MPI 2021.19's libmpi.so.12, MPICH's ABI): its own, found at run
 * time (a program can call them only where the MPI has them, or linked
 * with libwisp alone: then one line). */
#include <dlfcn.h>
static void *mpi_own(void *_Atomic *slot, const char *name)
{
    void *f = atomic_load_explicit(slot, memory_order_relaxed);
    if (f)
        return f;
    if (!(f = dlsym(RTLD_NEXT, name)))
        wisp_fatal("%s: the MPI beneath has no such function", name + 1);
    atomic_store_explicit(slot, f, memory_order_relaxed);
    return f;
}
static void *_Atomic own_any, *_Atomic own_all, *_Atomic own_some;
static int mpi_get_status_any(int n, const MPI_Request r[], int *index, int *flag, MPI_Status *st)
{
    int (*f)(int, const MPI_Request[], int *, int *, MPI_Status *);
    *(void **)&f = mpi_own(&own_any, "PMPI_Request_get_status_any");
    return f(n, r, index, flag, st);
}
static int mpi_get_status_all(int n, const MPI_Request r[], int *flag, MPI_Status st[])
{
    int (*f)(int, const MPI_Request[], int *, MPI_Status[]);
    *(void **)&f = mpi_own(&own_all, "PMPI_Request_get_status_all");
    return f(n, r, flag, st);
}
static int mpi_get_status_some(int n, const MPI_Request r[], int *outcount, int indices[],
                               MPI_Status st[])
{
    int (*f)(int, const MPI_Request[], int *, int[], MPI_Status[]);
    *(void **)&f = mpi_own(&own_some, "PMPI_Request_get_status_some");
    return f(n, r, outcount, indices, st);
}
#undef PMPI_Request_get_status_any /* src/mpi's wisp_mpi_PMPI_X exist for the build's mpi.h */
#undef PMPI_Request_get_status_all
#undef PMPI_Request_get_status_some
#define PMPI_Request_get_status_any  mpi_get_status_any
#define PMPI_Request_get_status_all  mpi_get_status_all
#define PMPI_Request_get_status_some mpi_get_status_some
#endif

#if defined(WISP_HAVE_MPI_Request_get_status_any) || defined(MPICH)
/* MPI-4.1's MPI_Request_get_status_any, _all and _some: as the Test forms,
 * but no request is freed or made inactive. The MPI's requests go to the
 * MPI's own function as one sub-array (wisp's as MPI_REQUEST_NULL there),
 * so its rules for null and inactive requests hold; wisp's follow the same
 * rules here (mpi4py's test_request calls them). `ours` gets, per request,
 * -1 for the MPI's or an inactive or null one of wisp's, 0 for an active
 * one of wisp's not complete, 1 for a complete one (its status in
 * statuses[i] unless MPI_STATUSES_IGNORE). Returns the active ones of
 * wisp's, or -1 without memory for the sub-array. */
static int status_parts(int n, const MPI_Request reqs[], signed char *ours, MPI_Request *mpi,
                        MPI_Status *statuses)
{
    int active = 0;
    wisp_p2p_lock();
    wisp_p2p_progress();
    for (int i = 0; i < n; i++) {
        struct wisp_p2p_req *req = wisp_p2p_req_of(reqs[i]);
        mpi[i] = req ? MPI_REQUEST_NULL : reqs[i];
        ours[i] = -1;
        if (!req || inactive(req))
            continue;
        active++;
        ours[i] = wisp_p2p_req_test(req);
        if (ours[i] && statuses != MPI_STATUSES_IGNORE)
            wisp_p2p_req_status(req, &statuses[i]);
    }
    wisp_p2p_unlock();
    return active;
}

/* The sub-array and the per-request marks in one block of n slots. */
static bool status_alloc(int n, MPI_Request **mpi, signed char **ours, MPI_Status **st)
{
    size_t slots = n > 0 ? (size_t)n : 1;
    *mpi = malloc(slots * (sizeof **mpi + sizeof **ours + sizeof **st));
    if (!*mpi)
        return false;
    *st = (MPI_Status *)(*mpi + slots);
    *ours = (signed char *)(*st + slots);
    return true;
}

int wisp_p2p_request_get_status_any(int n, const MPI_Request reqs[], int *index, int *flag,
                                    MPI_Status *status)
{
    if (!wisp_p2p_any_ours(n, reqs))
        return PMPI_Request_get_status_any(n, reqs, index, flag, status);
    MPI_Request *mpi;
    signed char *ours;
    MPI_Status *st;
    if (!status_alloc(n, &mpi, &ours, &st))
        return MPI_ERR_NO_MEM;
    int active = status_parts(n, reqs, ours, mpi, st);
    int rc = MPI_SUCCESS;
    *index = MPI_UNDEFINED;
    *flag = 0;
    for (int i = 0; i < n && !*flag; i++)
        if (ours[i] == 1) {
            *index = i;
            *flag = 1;
            if (status != MPI_STATUS_IGNORE)
                *status = st[i];
        }
    if (!*flag) {
        rc = PMPI_Request_get_status_any(n, mpi, index, flag, status);
        if (rc == MPI_SUCCESS && *flag && *index == MPI_UNDEFINED && active) {
            *flag = 0; /* no active request of the MPI's, but wisp's are */
        }
    }
    free(mpi);
    if (!*flag)
        wisp_p2p_poke_idle();
    return rc;
}

int wisp_p2p_request_get_status_all(int n, const MPI_Request reqs[], int *flag,
                                    MPI_Status statuses[])
{
    if (!wisp_p2p_any_ours(n, reqs))
        return PMPI_Request_get_status_all(n, reqs, flag, statuses);
    MPI_Request *mpi;
    signed char *ours;
    MPI_Status *st;
    if (!status_alloc(n, &mpi, &ours, &st))
        return MPI_ERR_NO_MEM;
    status_parts(n, reqs, ours, mpi, st);
    *flag = 1;
    for (int i = 0; i < n; i++)
        if (ours[i] == 0)
            *flag = 0;
    int rc = MPI_SUCCESS;
    if (*flag) {
        rc = PMPI_Request_get_status_all(n, mpi, flag, statuses);
        if (*flag && statuses != MPI_STATUSES_IGNORE)
            for (int i = 0; i < n; i++) {
                if (ours[i] == 1)
                    statuses[i] = st[i];
                else if (wisp_p2p_req_of(reqs[i]))
                    empty_status(&statuses[i]); /* null or inactive */
            }
    }
    free(mpi);
    if (!*flag)
        wisp_p2p_poke_idle();
    return rc;
}

int wisp_p2p_request_get_status_some(int n, const MPI_Request reqs[], int *outcount, int indices[],
                                     MPI_Status statuses[])
{
    if (!wisp_p2p_any_ours(n, reqs))
        return PMPI_Request_get_status_some(n, reqs, outcount, indices, statuses);
    MPI_Request *mpi;
    signed char *ours;
    MPI_Status *st;
    if (!status_alloc(n, &mpi, &ours, &st))
        return MPI_ERR_NO_MEM;
    int active = status_parts(n, reqs, ours, mpi, st);
    int rc = PMPI_Request_get_status_some(n, mpi, outcount, indices, statuses);
    if (rc == MPI_SUCCESS) {
        if (*outcount == MPI_UNDEFINED)
            *outcount = active ? 0 : MPI_UNDEFINED;
        for (int i = 0; i < n; i++)
            if (ours[i] == 1) {
                if (statuses != MPI_STATUSES_IGNORE)
                    statuses[*outcount] = st[i];
                indices[(*outcount)++] = i;
            }
    }
    free(mpi);
    if (rc == MPI_SUCCESS && *outcount == 0)
        wisp_p2p_poke_idle();
    return rc;
}
#endif

/* A receive of wisp, lent to the MPI for another thread's blocking call or
 * not. */
static void cancel_recv(struct wisp_p2p_req *req)
{
    if (wisp_p2p_recv_lent(req))
        wisp_p2p_lent_cancel(req);
    else
        wisp_p2p_recv_cancel(req);
}

int wisp_p2p_cancel(MPI_Request *request)
{
    struct wisp_p2p_req *req = wisp_p2p_req_of(*request);
    if (!req)
        return PMPI_Cancel(request);
    wisp_p2p_lock();
    if (req->form != WISP_P2P_PLAIN) { /* the receive of a pair; a send completes */
        struct wisp_p2p_req *child = wisp_p2p_req_of(req->child);
        if (child && child->kind == WISP_P2P_RECV)
            cancel_recv(child);
        else if (!child && req->child != MPI_REQUEST_NULL)
            PMPI_Cancel(&req->child);
    } else if (req->kind == WISP_P2P_RECV) {
        cancel_recv(req);
    } /* a send of wisp is never cancelled: it completes, and the status says so */
    wisp_p2p_unlock();
    return MPI_SUCCESS;
}

/* ---- the MPI's requests while wisp has work in flight --------------------- */

struct mpi_wait {
    MPI_Request *request;
    MPI_Status *status;
    int rc;
};

static bool mpi_done(void *arg)
{
    struct mpi_wait *w = arg;
    int flag = 0;
    w->rc = PMPI_Test(w->request, &flag, w->status);
    return flag || w->rc != MPI_SUCCESS;
}

int wisp_p2p_wait_mpi(MPI_Request *request, MPI_Status *status)
{
    if (!wisp_p2p_busy())
        return PMPI_Wait(request, status);
    struct mpi_wait w = {request, status, MPI_SUCCESS};
    wisp_p2p_lock();
    wisp_p2p_wait_until(mpi_done, &w);
    wisp_p2p_unlock();
    return w.rc;
}
