/*
 * The differential tester's interpreter (issue 26): runs the programs of
 * schedule.h for a range of seeds in one MPI job and writes, per rank, what
 * every receive got (source, tag, count, which message, a hash of the data)
 * and what every collective gave, in posting order, to LOGDIR/r<rank>.log.
 * tests/fuzz/fuzz.py runs it natively and under wisp and compares the logs.
 *
 * Each line also ends in the program's own verdict ("ok", or "BAD:" and
 * what differs from the outcome MPI's rules fix: another message, a changed
 * byte, a byte written outside the message, an error code), so a run alone
 * says something too; the exit status is 1 when a line is BAD.
 *
 * usage: p2p_fuzz LOGDIR FIRST_SEED [COUNT] [--max-msgs N] [--max-bytes B] [--max-phases K]
 *                 [--partitioned] [--watchdog SECONDS] [--drop FILE | --keep FILE]
 *        p2p_fuzz --dump SEED NP [options]   (the program in words; no MPI)
 *
 * Partitioned transfers (MPI 4: MPICH) are off unless --partitioned: with
 * them MPICH 4.0.2 itself failed natively (MPI_Testall returning
 * MPI_ERR_IN_STATUS and a partitioned receive's data wrong, seed 22 on 2
 * processes; a segfault in its active-message handler, seed 19 on 4).
 */
#include <mpi.h>
#include <inttypes.h>
#include <signal.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schedule.h"

enum { SENTINEL = 0xa5, GAP = 0x5a };

static int me, nprocs;
static MPI_Comm comms[FZ_COMMS];
static MPI_Datatype vec_type;
static FILE *logfile;
static int bad_lines;

/* Where this rank is, for the watchdog's line about a hang. */
static volatile uint64_t at_seed;
static volatile int at_phase, at_step, at_op;

static void watchdog(int sig)
{
    (void)sig;
    char line[160];
    int n = snprintf(line, sizeof line,
                     "p2p_fuzz: rank %d still in seed %" PRIu64 " phase %d step %d op %d\n", me,
                     (uint64_t)at_seed, at_phase, at_step, at_op);
    if (write(2, line, (size_t)n) < 0)
        _exit(3);
    alarm(10);
}

/* ---- helpers ---- */

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "p2p_fuzz: out of memory (%zu bytes)\n", n);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

static void logline(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(logfile, fmt, ap);
    va_end(ap);
}

static int crank(int comm, int world_rank) /* a world rank in communicator comm */
{
    return comm == 2 ? nprocs - 1 - world_rank : world_rank;
}

static int wrank(int comm, int comm_rank)
{
    return comm == 2 ? nprocs - 1 - comm_rank : comm_rank;
}

static MPI_Datatype mpi_type(int t)
{
    return t == FZ_BYTE ? MPI_BYTE : t == FZ_INT ? MPI_INT : vec_type;
}

static long elems_of(int t, long bytes) /* elements of type t in a payload */
{
    return t == FZ_BYTE ? bytes : t == FZ_INT ? bytes / 4 : bytes / 8;
}

static size_t extent_of(int t, long elems) /* buffer bytes */
{
    return (size_t)elems * (t == FZ_BYTE ? 1 : t == FZ_INT ? 4 : 12);
}

static void fill_payload(void *buf, int t, uint64_t id, long bytes)
{
    unsigned char *p = buf;
    if (t != FZ_VEC) {
        size_t words = (size_t)bytes / 8;
        for (size_t i = 0; i < words; i++) {
            uint64_t w = fz_word(id, i);
            memcpy(p + 8 * i, &w, 8);
        }
        if (bytes & 7) {
            uint64_t w = fz_word(id, words);
            memcpy(p + 8 * words, &w, (size_t)bytes & 7);
        }
        return;
    }
    for (long e = 0; e < bytes / 8; e++) { /* element e: two ints, a gap between */
        uint64_t w = fz_word(id, (size_t)e);
        memcpy(p + 12 * e, &w, 4);
        memset(p + 12 * e + 4, GAP, 4);
        memcpy(p + 12 * e + 8, (char *)&w + 4, 4);
    }
}

/* The hash of what a receive of `count` elements of type t got, and whether
 * every byte of the buffer outside the data kept the sentinel. */
static uint64_t received_hash(const void *buf, int t, long count, long cap, int *outside_ok,
                              uint64_t *first)
{
    const unsigned char *p = buf;
    struct fz_hash h;
    fz_hash_init(&h);
    *outside_ok = 1;
    *first = 0;
    if (t != FZ_VEC) {
        size_t data = extent_of(t, count), all = extent_of(t, cap);
        fz_hash_add(&h, p, data);
        if (data >= 8)
            memcpy(first, p, 8);
        for (size_t i = data; i < all; i++)
            if (p[i] != SENTINEL) {
                *outside_ok = 0;
                break;
            }
        return fz_hash_end(&h);
    }
    for (long e = 0; e < cap; e++) {
        const unsigned char *q = p + 12 * e;
        if (e < count) {
            fz_hash_add(&h, q, 4);
            fz_hash_add(&h, q + 8, 4);
            if (e == 0) {
                memcpy(first, q, 4);
                memcpy((char *)first + 4, q + 8, 4);
            }
        }
        for (int i = e < count ? 4 : 0; i < (e < count ? 8 : 12); i++)
            if (q[i] != SENTINEL)
                *outside_ok = 0;
    }
    return fz_hash_end(&h);
}

/* ---- persistent requests, kept across phases and restarted when one fits ---- */

struct persistent {
    int busy, is_send, kind, peer, tag, comm, type;
    long count;
    MPI_Request req;
    void *buf;
};
static struct persistent **pers; /* each its own allocation: phases keep pointers */
static int npers, cappers;

static struct persistent *persistent_get(int is_send, int kind, int peer, int tag, int comm,
                                         int type, long count)
{
    for (int i = 0; i < npers; i++) {
        struct persistent *q = pers[i];
        if (!q->busy && q->is_send == is_send && q->kind == kind && q->peer == peer &&
            q->tag == tag && q->comm == comm && q->type == type && q->count == count) {
            q->busy = 1;
#if defined(OPEN_MPI)
            if (kind == FZ_PBSEND) { /* Open MPI 4.1.4 restarts one with stale data */
                MPI_Request_free(&q->req);
                MPI_Bsend_init(q->buf, (int)count, mpi_type(type), peer, tag, comms[comm], &q->req);
            }
#endif
            return q;
        }
    }
    if (npers == cappers) {
        cappers = cappers ? 2 * cappers : 16;
        pers = realloc(pers, (size_t)cappers * sizeof *pers);
        if (!pers)
            MPI_Abort(MPI_COMM_WORLD, 2);
    }
    struct persistent *q = pers[npers++] = xmalloc(sizeof *q);
    *q = (struct persistent){1,
                             is_send,
                             kind,
                             peer,
                             tag,
                             comm,
                             type,
                             count,
                             MPI_REQUEST_NULL,
                             xmalloc(extent_of(type, count))};
    MPI_Datatype dt = mpi_type(type);
    MPI_Comm c = comms[comm];
    switch (is_send ? kind : -1) {
    case FZ_PSEND:
        MPI_Send_init(q->buf, (int)count, dt, peer, tag, c, &q->req);
        break;
    case FZ_PSSEND:
        MPI_Ssend_init(q->buf, (int)count, dt, peer, tag, c, &q->req);
        break;
    case FZ_PBSEND:
        MPI_Bsend_init(q->buf, (int)count, dt, peer, tag, c, &q->req);
        break;
    case FZ_PRSEND:
        MPI_Rsend_init(q->buf, (int)count, dt, peer, tag, c, &q->req);
        break;
    default:
        MPI_Recv_init(q->buf, (int)count, dt, peer, tag, c, &q->req);
        break;
    }
    return q;
}

static void persistent_free_all(void)
{
    for (int i = 0; i < npers; i++) {
        MPI_Request_free(&pers[i]->req);
        free(pers[i]->buf);
        free(pers[i]);
    }
    npers = 0;
}

/* ---- one phase ---- */

struct phase_state {
    struct fz_phase *ph;
    int index;
    void **rbuf;       /* per receive (mine) */
    MPI_Request *rreq; /* per receive: early/middle, until completed */
    MPI_Status *rst;
    int *rdone, *rerr;
    int *probe_bad;
    void **sbuf; /* per message (mine); persistent ones: the cache's */
    MPI_Request *sreq;
    struct persistent **rpers, **spers;
    void **pbuf_s, **pbuf_r; /* partitioned */
    MPI_Request *preq_s, *preq_r;
    int rc_errors;
};

static void note_rc(struct phase_state *st, int rc, const char *call)
{
    if (rc != MPI_SUCCESS) {
        int cls = rc;
        MPI_Error_class(rc, &cls);
        logline("ph%d error %s class=%d\n", st->index, call, cls);
        st->rc_errors++;
    }
}

static int src_arg(int comm, int src)
{
    return src == FZ_ANY ? MPI_ANY_SOURCE : crank(comm, src);
}

static int tag_arg(int tag)
{
    return tag == FZ_ANY ? MPI_ANY_TAG : tag;
}

static void post_recv(struct phase_state *st, int i)
{
    struct fz_recv *r = &st->ph->recvs[i];
    MPI_Comm c = comms[r->comm];
    int rc;
    if (r->kind == FZ_PRECV) {
        struct persistent *q = persistent_get(0, FZ_PRECV, src_arg(r->comm, r->src),
                                              tag_arg(r->tag), r->comm, r->recv_type, r->cap);
        st->rpers[i] = q;
        st->rbuf[i] = q->buf;
        memset(q->buf, SENTINEL, extent_of(r->recv_type, r->cap));
        rc = MPI_Start(&q->req);
        st->rreq[i] = q->req;
    } else {
        rc = MPI_Irecv(st->rbuf[i], (int)r->cap, mpi_type(r->recv_type), src_arg(r->comm, r->src),
                       tag_arg(r->tag), c, &st->rreq[i]);
    }
    note_rc(st, rc, "post");
}

static void do_send(struct phase_state *st, int i)
{
    struct fz_msg *m = &st->ph->msgs[i];
    MPI_Comm c = comms[m->comm];
    MPI_Datatype dt = mpi_type(m->send_type);
    int n = (int)elems_of(m->send_type, m->bytes), d = crank(m->comm, m->dst), rc = MPI_SUCCESS;
    void *b = st->sbuf[i];
    switch (m->kind) {
    case FZ_SEND:
        rc = MPI_Send(b, n, dt, d, m->tag, c);
        break;
    case FZ_SSEND:
        rc = MPI_Ssend(b, n, dt, d, m->tag, c);
        break;
    case FZ_BSEND:
        rc = MPI_Bsend(b, n, dt, d, m->tag, c);
        break;
    case FZ_RSEND:
        rc = MPI_Rsend(b, n, dt, d, m->tag, c);
        break;
    case FZ_ISEND:
        rc = MPI_Isend(b, n, dt, d, m->tag, c, &st->sreq[i]);
        break;
    case FZ_ISSEND:
        rc = MPI_Issend(b, n, dt, d, m->tag, c, &st->sreq[i]);
        break;
    case FZ_IBSEND:
        rc = MPI_Ibsend(b, n, dt, d, m->tag, c, &st->sreq[i]);
        break;
    case FZ_IRSEND:
        rc = MPI_Irsend(b, n, dt, d, m->tag, c, &st->sreq[i]);
        break;
    default: {
        struct persistent *q = persistent_get(1, m->kind, d, m->tag, m->comm, m->send_type, n);
        st->spers[i] = q;
        fill_payload(q->buf, m->send_type, m->id, m->bytes);
        rc = MPI_Start(&q->req);
        st->sreq[i] = q->req;
        break;
    }
    }
    note_rc(st, rc, fz_send_names[m->kind]);
}

static void late_recv(struct phase_state *st, int i)
{
    struct fz_recv *r = &st->ph->recvs[i];
    MPI_Comm c = comms[r->comm];
    MPI_Datatype dt = mpi_type(r->recv_type);
    int src = src_arg(r->comm, r->src), tag = tag_arg(r->tag), n = (int)r->cap, flag = 0, rc;
    void *b = st->rbuf[i];
    MPI_Status *s = &st->rst[i], ps;
    MPI_Message msg;
    MPI_Request req;
    int pcount = -1;
    switch (r->kind) {
    case FZ_RECV:
        rc = MPI_Recv(b, n, dt, src, tag, c, s);
        break;
    case FZ_PROBE:
    case FZ_IPROBE:
        if (r->kind == FZ_PROBE)
            rc = MPI_Probe(src, tag, c, &ps);
        else
            while ((rc = MPI_Iprobe(src, tag, c, &flag, &ps)) == MPI_SUCCESS && !flag)
                ;
        note_rc(st, rc, "probe");
        MPI_Get_count(&ps, dt, &pcount);
        rc = MPI_Recv(b, n, dt, ps.MPI_SOURCE, ps.MPI_TAG, c, s);
        break;
    case FZ_MPROBE:
        rc = MPI_Mprobe(src, tag, c, &msg, &ps);
        note_rc(st, rc, "mprobe");
        MPI_Get_count(&ps, dt, &pcount);
        rc = MPI_Mrecv(b, n, dt, &msg, s);
        break;
    case FZ_IMPROBE:
        while ((rc = MPI_Improbe(src, tag, c, &flag, &msg, &ps)) == MPI_SUCCESS && !flag)
            ;
        note_rc(st, rc, "improbe");
        MPI_Get_count(&ps, dt, &pcount);
        rc = MPI_Imrecv(b, n, dt, &msg, &req);
        note_rc(st, rc, "imrecv");
        rc = MPI_Wait(&req, s);
        break;
    case FZ_IRECV_WAIT:
        rc = MPI_Irecv(b, n, dt, src, tag, c, &req);
        note_rc(st, rc, "irecv");
        rc = MPI_Wait(&req, s);
        break;
    default: { /* FZ_PRECV_WAIT */
        struct persistent *q = persistent_get(0, FZ_PRECV, src, tag, r->comm, r->recv_type, r->cap);
        st->rpers[i] = q;
        st->rbuf[i] = q->buf;
        memset(q->buf, SENTINEL, extent_of(r->recv_type, r->cap));
        rc = MPI_Start(&q->req);
        note_rc(st, rc, "start");
        rc = MPI_Wait(&q->req, s);
        break;
    }
    }
    note_rc(st, rc, fz_recv_names[r->kind]);
    st->rerr[i] = rc;
    st->rdone[i] = 1;
    if (pcount >= 0) { /* what the probe said must be what the receive got */
        int count = -1;
        MPI_Get_count(s, dt, &count);
        st->probe_bad[i] =
            ps.MPI_SOURCE != s->MPI_SOURCE || ps.MPI_TAG != s->MPI_TAG || pcount != count;
    }
}

static void collective(struct phase_state *st, int which, uint64_t seed)
{
    struct fz_coll *co = &st->ph->coll[which];
    MPI_Comm c = comms[co->comm];
    int root = crank(co->comm, co->root), cme = crank(co->comm, me), rc = MPI_SUCCESS;
    uint64_t mine = fz_word(seed ^ ((uint64_t)st->index << 8) ^ (uint64_t)which, (size_t)me + 1);
    struct fz_hash h;
    fz_hash_init(&h);
    switch (co->kind) {
    case FZ_BARRIER:
        rc = MPI_Barrier(c);
        break;
    case FZ_ALLREDUCE: {
        uint64_t out = 0;
        rc = MPI_Allreduce(&mine, &out, 1, MPI_UINT64_T, MPI_BXOR, c);
        fz_hash_add(&h, &out, 8);
        break;
    }
    case FZ_BCAST: {
        unsigned char *b = xmalloc((size_t)co->bytes);
        if (cme == root)
            fill_payload(b, FZ_BYTE, mine | 1, co->bytes);
        else
            memset(b, SENTINEL, (size_t)co->bytes);
        rc = MPI_Bcast(b, (int)co->bytes, MPI_BYTE, root, c);
        fz_hash_add(&h, b, (size_t)co->bytes);
        free(b);
        break;
    }
    case FZ_ALLGATHER: {
        uint64_t *out = xmalloc(8 * (size_t)nprocs);
        rc = MPI_Allgather(&mine, 1, MPI_UINT64_T, out, 1, MPI_UINT64_T, c);
        fz_hash_add(&h, out, 8 * (size_t)nprocs);
        free(out);
        break;
    }
    case FZ_ALLTOALL: {
        int *in = xmalloc(sizeof(int) * (size_t)nprocs),
            *out = xmalloc(sizeof(int) * (size_t)nprocs);
        for (int k = 0; k < nprocs; k++)
            in[k] = (int)(mine >> (k % 32)) + k;
        rc = MPI_Alltoall(in, 1, MPI_INT, out, 1, MPI_INT, c);
        fz_hash_add(&h, out, sizeof(int) * (size_t)nprocs);
        free(in);
        free(out);
        break;
    }
    default: { /* FZ_REDUCE */
        uint64_t out = 0;
        rc = MPI_Reduce(&mine, &out, 1, MPI_UINT64_T, MPI_SUM, root, c);
        if (cme == root)
            fz_hash_add(&h, &out, 8);
        break;
    }
    }
    note_rc(st, rc, fz_coll_names[co->kind]);
    logline("ph%d coll%d %s comm%d h=%016" PRIx64 "\n", st->index, which, fz_coll_names[co->kind],
            co->comm, fz_hash_end(&h));
}

/* Complete every request still pending, by the phase's method. */
static void complete_rest(struct phase_state *st, MPI_Request *reqs, MPI_Status *sts, int n,
                          uint64_t seed)
{
    int rc = MPI_SUCCESS, done = 0, flag = 0, idx, outc;
    int *idxs = xmalloc(sizeof(int) * (size_t)(n + 1));
    MPI_Status *tmp = xmalloc(sizeof(MPI_Status) * (size_t)(n + 1)), one;
    switch (st->ph->complete) {
    case FZ_WAITALL:
        rc = MPI_Waitall(n, reqs, sts);
        break;
    case FZ_TESTALL:
        while ((rc = MPI_Testall(n, reqs, &flag, sts)) == MPI_SUCCESS && !flag)
            ;
        break;
    case FZ_WAITANY:
    case FZ_TESTANY:
        while (done < n) {
            if (st->ph->complete == FZ_WAITANY) {
                rc = MPI_Waitany(n, reqs, &idx, &one);
                flag = 1;
            } else {
                rc = MPI_Testany(n, reqs, &idx, &flag, &one);
            }
            if (rc != MPI_SUCCESS || (flag && idx == MPI_UNDEFINED))
                break;
            if (flag) {
                sts[idx] = one;
                done++;
            }
        }
        break;
    case FZ_WAITSOME:
    case FZ_TESTSOME:
        while (done < n) {
            if (st->ph->complete == FZ_WAITSOME)
                rc = MPI_Waitsome(n, reqs, &outc, idxs, tmp);
            else
                rc = MPI_Testsome(n, reqs, &outc, idxs, tmp);
            if (rc != MPI_SUCCESS || outc == MPI_UNDEFINED)
                break;
            for (int k = 0; k < outc; k++)
                sts[idxs[k]] = tmp[k];
            done += outc;
        }
        break;
    default: /* FZ_WAITEACH, in an order of the seed's (a persistent request stays non-null:
              * a second wait would give it an empty status) */
        for (int k = 0; k < n; k++)
            idxs[k] = k;
        for (int k = n - 1; k > 0; k--) {
            int j = (int)(fz_word(seed, (size_t)k) % (uint64_t)(k + 1)), t = idxs[k];
            idxs[k] = idxs[j];
            idxs[j] = t;
        }
        for (int k = 0; k < n; k++) {
            int r2 = MPI_Wait(&reqs[idxs[k]], &sts[idxs[k]]);
            if (r2 != MPI_SUCCESS)
                rc = r2;
        }
        break;
    }
    note_rc(st, rc, fz_complete_names[st->ph->complete]);
    free(idxs);
    free(tmp);
}

/* The line of receive i: what it got, then the verdict. */
static void log_recv(struct phase_state *st, int i)
{
    struct fz_phase *ph = st->ph;
    struct fz_recv *r = &ph->recvs[i];
    MPI_Status *s = &st->rst[i];
    if (r->kind == FZ_CANCELLED) {
        int cancelled = 0;
        MPI_Test_cancelled(s, &cancelled);
        logline("ph%d r%d cancelled comm%d c=%d %s\n", st->index, i, r->comm, cancelled,
                cancelled ? "ok" : "BAD:not-cancelled");
        bad_lines += !cancelled;
        return;
    }
    int count = -1, outside_ok;
    uint64_t first;
    MPI_Get_count(s, mpi_type(r->recv_type), &count);
    uint64_t h = received_hash(st->rbuf[i], r->recv_type, count < 0 ? 0 : count, r->cap,
                               &outside_ok, &first);
    const struct fz_msg *m = &ph->msgs[r->msg];
    int got = -1; /* the message whose id the data begins with */
    for (int k = 0; k < ph->nmsgs && count > 0 && elems_of(r->recv_type, 8) <= count; k++)
        if (ph->msgs[(r->msg + k) % ph->nmsgs].id == first) {
            got = (r->msg + k) % ph->nmsgs;
            break;
        }
    int src = s->MPI_SOURCE >= 0 ? wrank(r->comm, s->MPI_SOURCE) : s->MPI_SOURCE;
    char why[128] = "";
    if (st->rerr[i] != MPI_SUCCESS)
        strcat(why, ":error");
    if (src != m->src || s->MPI_TAG != m->tag)
        strcat(why, ":envelope");
    if (count != elems_of(r->recv_type, m->bytes))
        strcat(why, ":count");
    if (h != fz_payload_hash(m->id, (size_t)m->bytes))
        strcat(why, ":data");
    if (!outside_ok)
        strcat(why, ":outside");
    if (st->probe_bad[i])
        strcat(why, ":probe");
    logline("ph%d r%d %s comm%d src=%d tag=%d n=%d m=%d h=%016" PRIx64 " %s%s\n", st->index, i,
            fz_recv_names[r->kind], r->comm, src, s->MPI_TAG, count, got, h, *why ? "BAD" : "ok",
            why);
    bad_lines += *why != 0;
}

static void run_phase(struct fz_phase *ph, int index, uint64_t seed)
{
    struct phase_state st = {.ph = ph, .index = index};
    int nr = ph->nrecvs, nm = ph->nmsgs, np = ph->nparts;
    st.rbuf = calloc((size_t)nr + 1, sizeof *st.rbuf);
    st.rreq = malloc(((size_t)nr + 1) * sizeof *st.rreq);
    st.rst = calloc((size_t)nr + 1, sizeof *st.rst);
    st.rdone = calloc((size_t)nr + 1, sizeof *st.rdone);
    st.rerr = calloc((size_t)nr + 1, sizeof *st.rerr);
    st.probe_bad = calloc((size_t)nr + 1, sizeof *st.probe_bad);
    st.rpers = calloc((size_t)nr + 1, sizeof *st.rpers);
    st.sbuf = calloc((size_t)nm + 1, sizeof *st.sbuf);
    st.sreq = malloc(((size_t)nm + 1) * sizeof *st.sreq);
    st.spers = calloc((size_t)nm + 1, sizeof *st.spers);
    st.pbuf_s = calloc((size_t)np + 1, sizeof(void *));
    st.pbuf_r = calloc((size_t)np + 1, sizeof(void *));
    st.preq_s = malloc(((size_t)np + 1) * sizeof(MPI_Request));
    st.preq_r = malloc(((size_t)np + 1) * sizeof(MPI_Request));
    for (int i = 0; i < nr; i++) {
        st.rreq[i] = MPI_REQUEST_NULL;
        struct fz_recv *r = &ph->recvs[i];
        if (r->dst != me || r->kind == FZ_PRECV || r->kind == FZ_PRECV_WAIT)
            continue;
        size_t len = extent_of(r->recv_type, r->cap);
        st.rbuf[i] = xmalloc(len);
        memset(st.rbuf[i], SENTINEL, len);
    }
    for (int i = 0; i < nm; i++) {
        st.sreq[i] = MPI_REQUEST_NULL;
        struct fz_msg *m = &ph->msgs[i];
        if (m->src != me || m->kind >= FZ_PSEND)
            continue;
        st.sbuf[i] = xmalloc(extent_of(m->send_type, elems_of(m->send_type, m->bytes)));
        fill_payload(st.sbuf[i], m->send_type, m->id, m->bytes);
    }
    for (int k = 0; k < np; k++)
        st.preq_s[k] = st.preq_r[k] = MPI_REQUEST_NULL;

    /* step 1 */
    at_phase = index;
    at_step = 1;
    struct fz_ops *o = &ph->step1[me];
    for (int j = 0; j < o->n; j++) {
        struct fz_op *op = &o->v[j];
        at_op = j;
        if (op->type == FZ_OP_POST) {
            post_recv(&st, op->index);
            continue;
        }
#if MPI_VERSION >= 4
        struct fz_part *pt = &ph->parts[op->index];
        size_t len = (size_t)pt->partitions * (size_t)pt->part_bytes;
        int rc;
        if (op->type == FZ_OP_PSEND_INIT) {
            st.pbuf_s[op->index] = xmalloc(len);
            fill_payload(st.pbuf_s[op->index], FZ_BYTE, pt->id, (long)len);
            rc = MPI_Psend_init(st.pbuf_s[op->index], pt->partitions, pt->part_bytes, MPI_BYTE,
                                crank(pt->comm, pt->dst), FZ_PART_TAG + op->index, comms[pt->comm],
                                MPI_INFO_NULL, &st.preq_s[op->index]);
            note_rc(&st, rc, "psend_init");
            rc = MPI_Start(&st.preq_s[op->index]);
        } else {
            st.pbuf_r[op->index] = xmalloc(len);
            memset(st.pbuf_r[op->index], SENTINEL, len);
            rc = MPI_Precv_init(st.pbuf_r[op->index], pt->partitions, pt->part_bytes, MPI_BYTE,
                                crank(pt->comm, pt->src), FZ_PART_TAG + op->index, comms[pt->comm],
                                MPI_INFO_NULL, &st.preq_r[op->index]);
            note_rc(&st, rc, "precv_init");
            rc = MPI_Start(&st.preq_r[op->index]);
        }
        note_rc(&st, rc, "pstart");
#endif
    }
    at_step = 2;
    if (ph->has_coll[0])
        collective(&st, 0, seed);
    at_step = 3;

    /* step 3 */
    o = &ph->step3[me];
    for (int j = 0; j < o->n; j++) {
        struct fz_op *op = &o->v[j];
        at_op = j;
        if (op->type == FZ_OP_SEND)
            do_send(&st, op->index);
        else if (op->type == FZ_OP_POST)
            post_recv(&st, op->index);
#if MPI_VERSION >= 4
        else if (op->type == FZ_OP_PREADY)
            note_rc(&st, MPI_Pready(op->arg, st.preq_s[op->index]), "pready");
#endif
    }
    at_step = 4;
    if (ph->has_coll[1])
        collective(&st, 1, seed);
    at_step = 5;

    /* step 5 */
    o = &ph->step5[me];
    for (int j = 0; j < o->n; j++) {
        struct fz_op *op = &o->v[j];
        at_op = j;
        int i = op->index, rc;
        switch (op->type) {
        case FZ_OP_LATE:
            late_recv(&st, i);
            break;
        case FZ_OP_WAIT:
            rc = MPI_Wait(&st.rreq[i], &st.rst[i]);
            note_rc(&st, rc, "wait");
            st.rerr[i] = rc;
            st.rdone[i] = 1;
            break;
        case FZ_OP_CANCEL:
            note_rc(&st, MPI_Cancel(&st.rreq[i]), "cancel");
            rc = MPI_Wait(&st.rreq[i], &st.rst[i]);
            note_rc(&st, rc, "wait-cancelled");
            st.rdone[i] = 1;
            break;
        }
    }

    /* step 6: everything still pending, in one array */
    at_step = 6;
    at_op = 0;
    int cap = nr + nm + 2 * np + 1, n = 0;
    MPI_Request *reqs = xmalloc(sizeof *reqs * (size_t)cap);
    MPI_Status *sts = xmalloc(sizeof *sts * (size_t)cap);
    int *owner = xmalloc(sizeof(int) * (size_t)cap); /* receive index, or -1 */
    for (int i = 0; i < nr; i++)
        if (ph->recvs[i].dst == me && ph->recvs[i].group != FZ_LATE && !st.rdone[i]) {
            owner[n] = i;
            reqs[n++] = st.rreq[i];
        }
    for (int i = 0; i < nm; i++)
        if (ph->msgs[i].src == me && st.sreq[i] != MPI_REQUEST_NULL) {
            owner[n] = -1;
            reqs[n++] = st.sreq[i];
        }
    for (int k = 0; k < np; k++) {
        if (st.preq_s[k] != MPI_REQUEST_NULL) {
            owner[n] = -1;
            reqs[n++] = st.preq_s[k];
        }
        if (st.preq_r[k] != MPI_REQUEST_NULL) {
            owner[n] = -1;
            reqs[n++] = st.preq_r[k];
        }
    }
    /* shuffle: the MPI's and wisp's requests mixed in any order */
    for (int k = n - 1; k > 0; k--) {
        int j = (int)(fz_word(seed ^ (uint64_t)index, (size_t)k + 7) % (uint64_t)(k + 1));
        MPI_Request t = reqs[k];
        reqs[k] = reqs[j];
        reqs[j] = t;
        int u = owner[k];
        owner[k] = owner[j];
        owner[j] = u;
    }
    for (int k = 0; k < n; k++)
        sts[k].MPI_ERROR = MPI_SUCCESS;
    complete_rest(&st, reqs, sts, n, seed ^ (uint64_t)index);
    for (int k = 0; k < n; k++)
        if (owner[k] >= 0) {
            st.rst[owner[k]] = sts[k];
            st.rdone[owner[k]] = 1;
        }

    for (int i = 0; i < nr; i++)
        if (ph->recvs[i].dst == me)
            log_recv(&st, i);
    for (int k = 0; k < np; k++) {
        struct fz_part *pt = &ph->parts[k];
        if (pt->dst == me) {
            size_t len = (size_t)pt->partitions * (size_t)pt->part_bytes;
            struct fz_hash h;
            fz_hash_init(&h);
            fz_hash_add(&h, st.pbuf_r[k], len);
            uint64_t got = fz_hash_end(&h);
            int ok = got == fz_payload_hash(pt->id, len);
            logline("ph%d part%d from=%d h=%016" PRIx64 " %s\n", index, k, pt->src, got,
                    ok ? "ok" : "BAD:data");
            bad_lines += !ok;
        }
#if MPI_VERSION >= 4
        if (st.preq_s[k] != MPI_REQUEST_NULL)
            MPI_Request_free(&st.preq_s[k]);
        if (st.preq_r[k] != MPI_REQUEST_NULL)
            MPI_Request_free(&st.preq_r[k]);
#endif
        free(st.pbuf_s[k]);
        free(st.pbuf_r[k]);
    }
    if (st.rc_errors) {
        logline("ph%d errors=%d BAD\n", index, st.rc_errors);
        bad_lines++;
    }

    if (ph->bsend_bytes[me]) { /* every buffered message delivered; the buffer again */
        void *b;
        int size;
        MPI_Buffer_detach(&b, &size);
        MPI_Buffer_attach(b, size);
    }
    at_step = 7;
    if (ph->has_coll[2])
        collective(&st, 2, seed);

    for (int i = 0; i < nr; i++) {
        if (st.rpers[i])
            st.rpers[i]->busy = 0;
        else
            free(st.rbuf[i]);
    }
    for (int i = 0; i < nm; i++) {
        if (st.spers[i])
            st.spers[i]->busy = 0;
        else
            free(st.sbuf[i]);
    }
    free(reqs);
    free(sts);
    free(owner);
    free(st.rbuf);
    free(st.rreq);
    free(st.rst);
    free(st.rdone);
    free(st.rerr);
    free(st.probe_bad);
    free(st.rpers);
    free(st.sbuf);
    free(st.sreq);
    free(st.spers);
    free(st.pbuf_s);
    free(st.pbuf_r);
    free(st.preq_s);
    free(st.preq_r);
}

/* --drop FILE: lines "PHASE MESSAGE" to leave out; --keep FILE: the only
 * ones to keep (a finding cut down: tests/fuzz/cases/) */
static const char *drop_file;
static int keep_listed;

static void drop_listed(struct fz_program *prog)
{
    FILE *f = drop_file ? fopen(drop_file, "r") : NULL;
    if (!f) {
        if (drop_file)
            perror(drop_file);
        return;
    }
    char **drop = xmalloc(sizeof *drop * (size_t)prog->nphases);
    for (int i = 0; i < prog->nphases; i++) {
        drop[i] = malloc((size_t)prog->phases[i].nmsgs + 1);
        memset(drop[i], keep_listed, (size_t)prog->phases[i].nmsgs + 1);
    }
    int phase, msg;
    char line[256];
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "%d %d", &phase, &msg) == 2 && phase >= 0 && phase < prog->nphases &&
            msg >= 0 && msg < prog->phases[phase].nmsgs)
            drop[phase][msg] = !keep_listed;
    fclose(f);
    for (int i = 0; i < prog->nphases; i++) {
        fz_drop(prog, i, drop[i]);
        free(drop[i]);
    }
    free(drop);
}

static void run_program(uint64_t seed, const struct fz_limits *lim)
{
    struct fz_program prog;
    at_seed = seed;
    fz_generate(&prog, seed, nprocs, lim);
    drop_listed(&prog);
    long bsend = 0, msgs = 0;
    for (int i = 0; i < prog.nphases; i++) {
        if (prog.phases[i].bsend_bytes[me] > bsend)
            bsend = prog.phases[i].bsend_bytes[me];
        msgs += prog.phases[i].nmsgs;
    }
    logline("program %" PRIu64 " np=%d phases=%d messages=%ld\n", seed, nprocs, prog.nphases, msgs);
    void *bbuf = NULL;
    if (bsend) {
        bbuf = xmalloc((size_t)bsend + 4096);
        MPI_Buffer_attach(bbuf, (int)bsend + 4096);
    }
    for (int i = 0; i < prog.nphases; i++)
        run_phase(&prog.phases[i], i, seed);
    persistent_free_all();
    if (bbuf) {
        void *b;
        int size;
        MPI_Buffer_detach(&b, &size);
        free(bbuf);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    logline("end %" PRIu64 "\n", seed);
    fflush(logfile);
    fz_free(&prog);
}

/* A program's size: smaller where processes outnumber the cores. */
static struct fz_limits default_limits(int np)
{
    struct fz_limits lim = {.max_msgs = np <= 2 ? 2000 : 300,
                            .max_bytes = np <= 2 ? 32L << 20 : 8L << 20,
                            .max_phases = 4,
                            .partitioned = 0, /* --partitioned: MPICH 4.0.2 fails natively */
                            .bsend_overhead = MPI_BSEND_OVERHEAD};
    return lim;
}

static int watchdog_s;

static void options(struct fz_limits *lim, int argc, char **argv, const char **pos, int *npos)
{
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--max-msgs") && i + 1 < argc)
            lim->max_msgs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--max-bytes") && i + 1 < argc)
            lim->max_bytes = atol(argv[++i]);
        else if (!strcmp(argv[i], "--max-phases") && i + 1 < argc)
            lim->max_phases = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--watchdog") && i + 1 < argc)
            watchdog_s = atoi(argv[++i]);
        else if ((!strcmp(argv[i], "--drop") || !strcmp(argv[i], "--keep")) && i + 1 < argc) {
            keep_listed = !strcmp(argv[i], "--keep");
            drop_file = argv[++i];
        } else if (!strcmp(argv[i], "--partitioned"))
            lim->partitioned = MPI_VERSION >= 4;
        else if (pos && *npos < 3)
            pos[(*npos)++] = argv[i];
    }
}

int main(int argc, char **argv)
{
    if (argc >= 4 && !strcmp(argv[1], "--dump")) { /* p2p_fuzz --dump SEED NP: no MPI */
        int np = atoi(argv[3]);
        struct fz_limits lim = default_limits(np);
        struct fz_program prog;
        options(&lim, argc - 4, argv + 4, NULL, NULL);
        fz_generate(&prog, strtoull(argv[2], NULL, 10), np, &lim);
        drop_listed(&prog);
        fz_dump(stdout, &prog);
        fz_free(&prog);
        return 0;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    struct fz_limits lim = default_limits(nprocs);
    const char *pos[3] = {NULL, NULL, "1"};
    int npos = 0;
    options(&lim, argc - 1, argv + 1, pos, &npos);
    if (npos < 2 || lim.max_msgs < 1 || lim.max_phases < 1 || lim.max_bytes < 0) {
        if (me == 0)
            fprintf(stderr,
                    "usage: p2p_fuzz LOGDIR FIRST_SEED [COUNT] [--max-msgs N] "
                    "[--max-bytes B] [--max-phases K] [--partitioned] [--drop|--keep FILE]\n"
                    "       p2p_fuzz --dump SEED NP [options]\n");
        MPI_Finalize();
        return 2;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/r%d.log", pos[0], me);
    logfile = fopen(path, "w");
    if (!logfile) {
        perror(path);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (watchdog_s > 0) { /* steps 1-7 of schedule.h; op: the index in the step's list */
        signal(SIGALRM, watchdog);
        alarm((unsigned)watchdog_s);
    }
    comms[0] = MPI_COMM_WORLD;
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[1]);
    MPI_Comm_split(MPI_COMM_WORLD, 0, nprocs - me, &comms[2]);
    for (int c = 0; c < FZ_COMMS; c++)
        MPI_Comm_set_errhandler(comms[c], MPI_ERRORS_RETURN);
    MPI_Type_vector(2, 1, 2, MPI_INT, &vec_type);
    MPI_Type_commit(&vec_type);

    uint64_t first = strtoull(pos[1], NULL, 10);
    long count = atol(pos[2]);
    for (long k = 0; k < count; k++)
        run_program(first + (uint64_t)k, &lim);

    MPI_Type_free(&vec_type);
    MPI_Comm_free(&comms[1]);
    MPI_Comm_free(&comms[2]);
    fclose(logfile);
    int bad = bad_lines, any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return any ? 1 : 0;
}
