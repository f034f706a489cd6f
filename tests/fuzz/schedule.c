/*
 * The schedule generator of the differential tester (schedule.h says what
 * a phase is and why it cannot deadlock or depend on timing). Pure C, no
 * MPI: every rank runs it on the same seed and gets the same program.
 */
#include "schedule.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const fz_send_names[FZ_NSEND_KINDS] = {"send",  "ssend",  "bsend",  "rsend",
                                                   "isend", "issend", "ibsend", "irsend",
                                                   "psend", "pssend", "pbsend", "prsend"};
const char *const fz_recv_names[FZ_NRECV_KINDS] = {
    "irecv",  "precv",   "recv",       "probe",      "iprobe",
    "mprobe", "improbe", "irecv_wait", "precv_wait", "cancelled"};
const char *const fz_coll_names[FZ_NCOLL] = {"barrier",   "allreduce", "bcast",
                                             "allgather", "alltoall",  "reduce"};
const char *const fz_complete_names[FZ_NCOMPLETE] = {"waitall", "waitany",  "waitsome", "testall",
                                                     "testany", "testsome", "waiteach"};

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static uint64_t rnd(uint64_t *s)
{
    *s += 0x9e3779b97f4a7c15ull;
    return mix(*s);
}

static long below(uint64_t *s, long n) /* 0 .. n-1 */
{
    return n <= 1 ? 0 : (long)(rnd(s) % (uint64_t)n);
}

static long between(uint64_t *s, long lo, long hi) /* lo .. hi */
{
    return lo + below(s, hi - lo + 1);
}

static int chance(uint64_t *s, int percent)
{
    return below(s, 100) < percent;
}

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        fprintf(stderr, "p2p_fuzz: out of memory\n");
        abort();
    }
    return p;
}

uint64_t fz_word(uint64_t id, size_t i)
{
    return i == 0 ? id : mix(id ^ (i * 0xd1b54a32d192ed03ull));
}

void fz_hash_init(struct fz_hash *h)
{
    h->h = 0xcbf29ce484222325ull;
    h->pending = 0;
    h->n = 0;
}

static void hash_word(struct fz_hash *h, uint64_t w)
{
    h->h = (h->h ^ w) * 0x100000001b3ull;
    h->h ^= h->h >> 29;
}

void fz_hash_add(struct fz_hash *h, const void *data, size_t len)
{
    const unsigned char *p = data;
    while (len && (h->n & 7)) { /* finish a partial word */
        h->pending |= (uint64_t)*p++ << (8 * (h->n & 7));
        h->n++;
        len--;
        if (!(h->n & 7)) {
            hash_word(h, h->pending);
            h->pending = 0;
        }
    }
    for (; len >= 8; len -= 8, p += 8, h->n += 8) {
        uint64_t w;
        memcpy(&w, p, 8); /* little endian, as fz_word's bytes */
        hash_word(h, w);
    }
    for (; len; len--, h->n++)
        h->pending |= (uint64_t)*p++ << (8 * (h->n & 7));
}

uint64_t fz_hash_end(struct fz_hash *h)
{
    if (h->n & 7)
        hash_word(h, h->pending);
    hash_word(h, h->n);
    return h->h;
}

uint64_t fz_payload_hash(uint64_t id, size_t bytes)
{
    struct fz_hash h;
    fz_hash_init(&h);
    size_t words = bytes / 8;
    for (size_t i = 0; i < words; i++)
        hash_word(&h, fz_word(id, i));
    h.n = words * 8;
    if (bytes & 7) {
        uint64_t w = fz_word(id, words);
        fz_hash_add(&h, &w, bytes & 7);
    }
    return fz_hash_end(&h);
}

/* ---- ops lists ---- */

static void ops_push(struct fz_ops *o, int type, int index, int arg)
{
    if (o->n == o->cap) {
        o->cap = o->cap ? 2 * o->cap : 16;
        o->v = realloc(o->v, (size_t)o->cap * sizeof *o->v);
        if (!o->v)
            abort();
    }
    o->v[o->n++] = (struct fz_op){type, index, arg};
}

/* Insert at a random place. */
static void ops_insert(struct fz_ops *o, uint64_t *s, int type, int index, int arg)
{
    ops_push(o, type, index, arg);
    long at = below(s, o->n);
    memmove(&o->v[at + 1], &o->v[at], (size_t)(o->n - 1 - at) * sizeof *o->v);
    o->v[at] = (struct fz_op){type, index, arg};
}

/* ---- matching: MPI's outcome on rank d, receive by receive in posting order ---- */

/* Sets recvs[].msg for rank d; 0 when a receive would find nothing or a
 * wildcard source could be met by two senders (timing would decide). */
static int match_rank(struct fz_phase *ph, int d, int *taken, int *mine)
{
    int nmine = 0;
    for (int m = 0; m < ph->nmsgs; m++)
        if (ph->msgs[m].dst == d) {
            mine[nmine++] = m;
            taken[m] = 0;
        }
    for (int r = 0; r < ph->nrecvs; r++) {
        struct fz_recv *rv = &ph->recvs[r];
        if (rv->dst != d || rv->kind == FZ_CANCELLED)
            continue;
        int found = -1, sender = -2;
        for (int k = 0; k < nmine; k++) {
            const struct fz_msg *m = &ph->msgs[mine[k]];
            if (m->comm != rv->comm || (rv->tag != FZ_ANY && m->tag != rv->tag) ||
                (rv->src != FZ_ANY && m->src != rv->src))
                continue;
            if (rv->src == FZ_ANY) { /* every candidate of the phase, taken or not */
                if (sender != -2 && sender != m->src)
                    return 0;
                sender = m->src;
            }
            if (found < 0 && !taken[mine[k]]) {
                found = mine[k];
                if (rv->src != FZ_ANY)
                    break;
            }
        }
        if (found < 0)
            return 0;
        taken[found] = 1;
        rv->msg = found;
    }
    return 1;
}

/* ---- one phase ---- */

static long message_bytes(uint64_t *s, long left)
{
    long r = below(s, 100), b;
    if (r < 10)
        b = 0;
    else if (r < 40)
        b = between(s, 1, 64);
    else if (r < 65)
        b = between(s, 65, 4096);
    else if (r < 85)
        b = between(s, 4097, 65536);
    else if (r < 95)
        b = between(s, 65537, 1 << 20);
    else
        b = between(s, (1 << 20) + 1, 4 << 20);
    if (b > left) /* the phase's budget spent: small ones (a few KiB over it at most) */
        b = below(s, 65);
    return b;
}

static int pick_send_kind(uint64_t *s, int early, int ready_ok, int bsend_ok)
{
    /* weights per kind: blocking and ready ones only toward an early receive */
    static const int w_early[FZ_NSEND_KINDS] = {15, 10, 8, 6, 20, 10, 6, 5, 6, 4, 3, 3};
    static const int w_late[FZ_NSEND_KINDS] = {0, 0, 8, 0, 30, 12, 6, 0, 8, 5, 3, 0};
    int w[FZ_NSEND_KINDS], total = 0;
    for (int k = 0; k < FZ_NSEND_KINDS; k++) {
        w[k] = early ? w_early[k] : w_late[k];
        if (!ready_ok && (k == FZ_RSEND || k == FZ_IRSEND || k == FZ_PRSEND))
            w[k] = 0;
        if (!bsend_ok && (k == FZ_BSEND || k == FZ_IBSEND || k == FZ_PBSEND))
            w[k] = 0;
        total += w[k];
    }
    long x = below(s, total);
    for (int k = 0; k < FZ_NSEND_KINDS; k++) {
        if (x < w[k])
            return k;
        x -= w[k];
    }
    return FZ_ISEND;
}

static int pick_comm(uint64_t *s)
{
    long r = below(s, 4);
    return r < 2 ? 0 : (int)r - 1;
}

static void gen_phase(struct fz_phase *ph, uint64_t *s, uint64_t seed, int phase, int P,
                      const struct fz_limits *lim)
{
    memset(ph, 0, sizeof *ph);
    long r = below(s, 100);
    int n = r < 55   ? (int)between(s, 1, 16)
            : r < 85 ? (int)between(s, 16, 128)
                     : (int)between(s, 128, lim->max_msgs);
    if (n > lim->max_msgs)
        n = lim->max_msgs;
    int ntags = (int)between(s, 1, 6);
    int shape = (int)below(s, 4); /* 0 random pairs, 1 fan-in, 2 one pair, 3 ring */
    int a = (int)below(s, P), b = (int)below(s, P);
    if (b == a && !chance(s, 15))
        b = (a + 1) % P;
    long left = lim->max_bytes;
    int ints_pct = (int)below(s, 60);

    ph->msgs = xcalloc((size_t)n, sizeof *ph->msgs);
    ph->nmsgs = n;
    for (int i = 0; i < n; i++) {
        struct fz_msg *m = &ph->msgs[i];
        switch (shape) {
        case 0:
            m->src = (int)below(s, P);
            m->dst = (int)below(s, P);
            if (m->dst == m->src && !chance(s, 20))
                m->dst = (m->src + 1) % P;
            break;
        case 1:
            m->dst = a;
            m->src = (int)below(s, P);
            break;
        case 2:
            m->src = a;
            m->dst = b;
            break;
        default:
            m->src = (int)below(s, P);
            m->dst = (m->src + 1) % P;
            break;
        }
        m->comm = pick_comm(s);
        m->tag = shape == 1 && chance(s, 70) ? m->src % ntags : (int)below(s, ntags);
        m->bytes = message_bytes(s, left);
        m->send_type = FZ_BYTE;
        if (chance(s, ints_pct)) {
            m->bytes &= ~7L;
            m->send_type = chance(s, 50) ? FZ_INT : FZ_VEC;
        }
        left -= m->bytes;
        m->id = mix(seed * 0x100000001b3ull + ((uint64_t)phase << 32) + (uint64_t)i) | 1;
        m->recv = -1;
    }

    ph->has_coll[0] = chance(s, 30);
    ph->has_coll[1] = chance(s, 30);
    ph->has_coll[2] = chance(s, 40);

    /* Receives: one per message, shuffled on each rank, in groups; a few to cancel. */
    int ncancel_max = 2 * P;
    struct fz_recv *rv = xcalloc((size_t)(n + ncancel_max), sizeof *rv);
    int nr = 0;
    for (int d = 0; d < P; d++) {
        int first = nr;
        for (int i = 0; i < n; i++) {
            const struct fz_msg *m = &ph->msgs[i];
            if (m->dst != d)
                continue;
            long g = below(s, 100);
            rv[nr++] = (struct fz_recv){.dst = d,
                                        .comm = m->comm,
                                        .src = m->src,
                                        .tag = m->tag,
                                        .group = g < 40   ? FZ_EARLY
                                                 : g < 60 ? FZ_MIDDLE
                                                          : FZ_LATE,
                                        .msg = i};
        }
        if (chance(s, 15)) {
            int k = (int)between(s, 1, 2);
            while (k--)
                rv[nr++] = (struct fz_recv){.dst = d,
                                            .comm = pick_comm(s),
                                            .src = chance(s, 50) ? FZ_ANY : (int)below(s, P),
                                            .tag = FZ_CANCEL_TAG,
                                            .group = chance(s, 60) ? FZ_EARLY : FZ_MIDDLE,
                                            .kind = FZ_CANCELLED,
                                            .msg = -1};
        }
        /* shuffle, then order by group (stable within a group: the shuffled order) */
        for (int i = nr - 1; i > first; i--) {
            int j = first + (int)below(s, i - first + 1);
            struct fz_recv t = rv[i];
            rv[i] = rv[j];
            rv[j] = t;
        }
        int at = first;
        for (int g = FZ_EARLY; g <= FZ_LATE; g++)
            for (int i = at; i < nr; i++)
                if (rv[i].group == g) {
                    struct fz_recv t = rv[i];
                    memmove(&rv[at + 1], &rv[at], (size_t)(i - at) * sizeof t);
                    rv[at++] = t;
                }
    }
    ph->recvs = rv;
    ph->nrecvs = nr;

    /* Wildcards: loosen patterns where MPI's outcome stays unique. */
    int *taken = xcalloc((size_t)n, sizeof *taken), *mine = xcalloc((size_t)n, sizeof *mine);
    int attempts = nr / 3 + 1;
    if (attempts > 24)
        attempts = 24;
    for (int t = 0; t < attempts && nr; t++) {
        struct fz_recv *x = &rv[below(s, nr)];
        if (x->kind == FZ_CANCELLED)
            continue;
        int osrc = x->src, otag = x->tag;
        long mode = below(s, 10);
        if (mode < 4)
            x->tag = FZ_ANY;
        else if (mode < 7)
            x->src = FZ_ANY;
        else
            x->src = x->tag = FZ_ANY;
        if (!match_rank(ph, x->dst, taken, mine)) {
            x->src = osrc;
            x->tag = otag;
        }
    }
    for (int d = 0; d < P; d++)
        if (!match_rank(ph, d, taken, mine)) {
            fprintf(stderr, "p2p_fuzz: internal error: unmatched schedule (seed %llu)\n",
                    (unsigned long long)seed);
            abort();
        }
    free(taken);
    free(mine);

    int any_source = 0;
    for (int i = 0; i < nr; i++) {
        struct fz_recv *x = &rv[i];
        if (x->kind == FZ_CANCELLED) {
            x->recv_type = FZ_BYTE;
            x->cap = between(s, 0, 64);
            continue;
        }
        struct fz_msg *m = &ph->msgs[x->msg];
        m->recv = i;
        if (x->src == FZ_ANY)
            any_source = 1;
        long elems;
        if (m->send_type == FZ_BYTE) {
            x->recv_type = FZ_BYTE;
            elems = m->bytes;
        } else {
            x->recv_type = chance(s, 50) ? FZ_INT : FZ_VEC;
            elems = x->recv_type == FZ_INT ? m->bytes / 4 : m->bytes / 8;
        }
        long sl = below(s, 10);
        x->cap = elems + (sl < 6 ? 0 : sl < 9 ? between(s, 1, 16) : below(s, elems + 1));
        if (x->group == FZ_LATE) {
            static const int late[] = {FZ_RECV,   FZ_RECV,    FZ_PROBE,      FZ_IPROBE,
                                       FZ_MPROBE, FZ_IMPROBE, FZ_IRECV_WAIT, FZ_PRECV_WAIT};
            x->kind = late[below(s, sizeof late / sizeof *late)];
        } else {
            x->kind = x->group == FZ_EARLY && chance(s, 30) ? FZ_PRECV : FZ_IRECV;
            x->wait_late = chance(s, 20);
        }
    }
    if (any_source)
        ph->has_coll[2] = 1;

    /* Send kinds, now that each message's receive is known. */
    ph->bsend_bytes = xcalloc((size_t)P, sizeof *ph->bsend_bytes);
    for (int i = 0; i < n; i++) {
        struct fz_msg *m = &ph->msgs[i];
        int bsend_ok = m->bytes <= FZ_BSEND_MAX &&
                       ph->bsend_bytes[m->src] + m->bytes + lim->bsend_overhead <= FZ_BSEND_PHASE;
        m->kind = pick_send_kind(s, rv[m->recv].group == FZ_EARLY, ph->has_coll[0], bsend_ok);
        if (m->kind == FZ_BSEND || m->kind == FZ_IBSEND || m->kind == FZ_PBSEND)
            ph->bsend_bytes[m->src] += m->bytes + lim->bsend_overhead;
    }

    /* Partitioned transfers (MPI 4). */
    if (lim->partitioned && P > 1 && chance(s, 20)) {
        ph->nparts = (int)between(s, 1, 2);
        ph->parts = xcalloc((size_t)ph->nparts, sizeof *ph->parts);
        for (int k = 0; k < ph->nparts; k++) {
            struct fz_part *pt = &ph->parts[k];
            pt->src = (int)below(s, P);
            pt->dst = (pt->src + 1 + (int)below(s, P - 1)) % P;
            pt->comm = (int)below(s, 2);
            pt->partitions = (int)between(s, 1, 8);
            pt->part_bytes = chance(s, 70) ? between(s, 1, 4096) : between(s, 4097, 65536);
            pt->id = mix(seed ^ ((uint64_t)phase << 40) ^ ((uint64_t)k << 56)) | 1;
        }
    }

    for (int c = 0; c < 3; c++) {
        /* Before ready sends, and after wildcard sources, no rank may leave
         * before every rank came: not a broadcast or a reduction. */
        static const int sync[] = {FZ_BARRIER, FZ_ALLREDUCE, FZ_ALLGATHER, FZ_ALLTOALL};
        ph->coll[c].kind =
            c == 1 || (c == 2 && !any_source) ? (int)below(s, FZ_NCOLL) : sync[below(s, 4)];
        ph->coll[c].comm = pick_comm(s);
        ph->coll[c].root = (int)below(s, P);
        ph->coll[c].bytes = chance(s, 80) ? between(s, 0, 4096) : between(s, 4097, 1 << 20);
    }
    ph->complete = (int)below(s, FZ_NCOMPLETE);

    /* Each rank's steps. */
    ph->step1 = xcalloc((size_t)P, sizeof *ph->step1);
    ph->step3 = xcalloc((size_t)P, sizeof *ph->step3);
    ph->step5 = xcalloc((size_t)P, sizeof *ph->step5);
    for (int i = 0; i < nr; i++) {
        struct fz_recv *x = &rv[i];
        int d = x->dst;
        if (x->group == FZ_EARLY)
            ops_push(&ph->step1[d], FZ_OP_POST, i, 0);
        else if (x->group == FZ_LATE)
            ops_push(&ph->step5[d], FZ_OP_LATE, i, 0);
    }
    /* step 3: sends in message order, middle posts in posting order, merged */
    for (int d = 0; d < P; d++) {
        int ns = 0, nm = 0;
        for (int i = 0; i < n; i++)
            ns += ph->msgs[i].src == d;
        for (int i = 0; i < nr; i++)
            nm += rv[i].dst == d && rv[i].group == FZ_MIDDLE;
        int is = 0, im = 0;
        while (ns || nm) {
            int send = nm == 0 || (ns && below(s, ns + nm) < ns);
            if (send) {
                while (ph->msgs[is].src != d)
                    is++;
                ops_push(&ph->step3[d], FZ_OP_SEND, is++, 0);
                ns--;
            } else {
                while (!(rv[im].dst == d && rv[im].group == FZ_MIDDLE))
                    im++;
                ops_push(&ph->step3[d], FZ_OP_POST, im++, 0);
                nm--;
            }
        }
    }
    for (int i = 0; i < nr; i++) {
        struct fz_recv *x = &rv[i];
        if (x->kind == FZ_CANCELLED)
            ops_insert(&ph->step5[x->dst], s, FZ_OP_CANCEL, i, 0);
        else if (x->group != FZ_LATE && x->wait_late)
            ops_insert(&ph->step5[x->dst], s, FZ_OP_WAIT, i, 0);
    }
    for (int k = 0; k < ph->nparts; k++) {
        struct fz_part *pt = &ph->parts[k];
        ops_insert(&ph->step1[pt->src], s, FZ_OP_PSEND_INIT, k, 0);
        ops_insert(&ph->step1[pt->dst], s, FZ_OP_PRECV_INIT, k, 0);
        int order[8];
        for (int j = 0; j < pt->partitions; j++)
            order[j] = j;
        for (int j = pt->partitions - 1; j > 0; j--) {
            int x = (int)below(s, j + 1), t = order[j];
            order[j] = order[x];
            order[x] = t;
        }
        /* Pready in a random order, each at a random place; a later one
         * never before an earlier one, so the list is one pass */
        int base = 0;
        for (int j = 0; j < pt->partitions; j++) {
            struct fz_ops *o = &ph->step3[pt->src];
            ops_push(o, FZ_OP_PREADY, k, order[j]);
            long at = base + below(s, o->n - base);
            memmove(&o->v[at + 1], &o->v[at], (size_t)(o->n - 1 - at) * sizeof *o->v);
            o->v[at] = (struct fz_op){FZ_OP_PREADY, k, order[j]};
            base = (int)at + 1;
        }
    }
}

void fz_generate(struct fz_program *p, uint64_t seed, int nprocs, const struct fz_limits *lim)
{
    uint64_t s = mix(seed ^ ((uint64_t)nprocs << 48));
    p->seed = seed;
    p->nprocs = nprocs;
    p->nphases = (int)between(&s, 1, lim->max_phases);
    p->phases = xcalloc((size_t)p->nphases, sizeof *p->phases);
    for (int i = 0; i < p->nphases; i++)
        gen_phase(&p->phases[i], &s, seed, i, nprocs, lim);
}

/* The ops of one step that still refer to something, re-indexed. */
static void ops_renumber(struct fz_ops *o, const int *msg_at, const int *recv_at)
{
    int n = 0;
    for (int j = 0; j < o->n; j++) {
        struct fz_op op = o->v[j];
        if (op.type == FZ_OP_SEND)
            op.index = msg_at[op.index];
        else if (op.type == FZ_OP_POST || op.type == FZ_OP_LATE || op.type == FZ_OP_WAIT ||
                 op.type == FZ_OP_CANCEL)
            op.index = recv_at[op.index];
        if (op.index >= 0)
            o->v[n++] = op;
    }
    o->n = n;
}

void fz_drop(struct fz_program *p, int phase, const char *drop)
{
    struct fz_phase *ph = &p->phases[phase];
    int *msg_at = xcalloc((size_t)ph->nmsgs + 1, sizeof(int));
    int *recv_at = xcalloc((size_t)ph->nrecvs + 1, sizeof(int));
    int nm = 0, nr = 0;
    for (int m = 0; m < ph->nmsgs; m++)
        msg_at[m] = drop[m] ? -1 : nm++;
    for (int r = 0; r < ph->nrecvs; r++)
        recv_at[r] = ph->recvs[r].msg >= 0 && drop[ph->recvs[r].msg] ? -1 : nr++;
    /* In place, in order: an entry only moves down. */
    for (int m = 0; m < ph->nmsgs; m++)
        if (msg_at[m] >= 0) {
            ph->msgs[msg_at[m]] = ph->msgs[m];
            ph->msgs[msg_at[m]].recv = recv_at[ph->msgs[m].recv];
        }
    for (int r = 0; r < ph->nrecvs; r++)
        if (recv_at[r] >= 0) {
            int m = ph->recvs[r].msg;
            ph->recvs[recv_at[r]] = ph->recvs[r];
            ph->recvs[recv_at[r]].msg = m >= 0 ? msg_at[m] : -1;
        }
    ph->nmsgs = nm;
    ph->nrecvs = nr;
    for (int d = 0; d < p->nprocs; d++) {
        ops_renumber(&ph->step1[d], msg_at, recv_at);
        ops_renumber(&ph->step3[d], msg_at, recv_at);
        ops_renumber(&ph->step5[d], msg_at, recv_at);
    }
    free(msg_at);
    free(recv_at);
}

void fz_free(struct fz_program *p)
{
    for (int i = 0; i < p->nphases; i++) {
        struct fz_phase *ph = &p->phases[i];
        for (int d = 0; d < p->nprocs; d++) {
            free(ph->step1[d].v);
            free(ph->step3[d].v);
            free(ph->step5[d].v);
        }
        free(ph->step1);
        free(ph->step3);
        free(ph->step5);
        free(ph->msgs);
        free(ph->recvs);
        free(ph->parts);
        free(ph->bsend_bytes);
    }
    free(p->phases);
    memset(p, 0, sizeof *p);
}

static const char *pattern(int v, char *buf)
{
    if (v == FZ_ANY)
        return "any";
    sprintf(buf, "%d", v);
    return buf;
}

void fz_dump(FILE *f, const struct fz_program *p)
{
    static const char *const groups[] = {"early", "middle", "late"};
    static const char *const types[] = {"byte", "int", "vec"};
    fprintf(f, "program %llu np=%d phases=%d\n", (unsigned long long)p->seed, p->nprocs,
            p->nphases);
    for (int i = 0; i < p->nphases; i++) {
        const struct fz_phase *ph = &p->phases[i];
        fprintf(f, "phase %d: %d messages, %d receives, %d partitioned; complete by %s\n", i,
                ph->nmsgs, ph->nrecvs, ph->nparts, fz_complete_names[ph->complete]);
        for (int c = 0; c < 3; c++)
            if (ph->has_coll[c])
                fprintf(f, "  collective %d: %s comm%d root %d\n", c,
                        fz_coll_names[ph->coll[c].kind], ph->coll[c].comm, ph->coll[c].root);
        for (int d = 0; d < p->nprocs; d++) {
            const struct fz_ops *steps[3] = {&ph->step1[d], &ph->step3[d], &ph->step5[d]};
            for (int k = 0; k < 3; k++)
                for (int j = 0; j < steps[k]->n; j++) {
                    const struct fz_op *op = &steps[k]->v[j];
                    char a[16], b[16];
                    fprintf(f, "  rank %d step %d: ", d, 2 * k + 1);
                    if (op->type == FZ_OP_SEND) {
                        const struct fz_msg *m = &ph->msgs[op->index];
                        fprintf(f, "m%d %s to %d comm%d tag %d %ld bytes %s -> r%d\n", op->index,
                                fz_send_names[m->kind], m->dst, m->comm, m->tag, m->bytes,
                                types[m->send_type], m->recv);
                    } else if (op->type == FZ_OP_POST || op->type == FZ_OP_LATE ||
                               op->type == FZ_OP_WAIT || op->type == FZ_OP_CANCEL) {
                        const struct fz_recv *r = &ph->recvs[op->index];
                        fprintf(f, "%s r%d %s %s from %s comm%d tag %s cap %ld %s -> m%d\n",
                                op->type == FZ_OP_WAIT     ? "wait"
                                : op->type == FZ_OP_CANCEL ? "cancel"
                                                           : "post",
                                op->index, groups[r->group], fz_recv_names[r->kind],
                                pattern(r->src, a), r->comm, pattern(r->tag, b), r->cap,
                                types[r->recv_type], r->msg);
                    } else {
                        const struct fz_part *pt = &ph->parts[op->index];
                        fprintf(f, "partitioned %d (%d to %d, %d x %ld bytes) %s %d\n", op->index,
                                pt->src, pt->dst, pt->partitions, pt->part_bytes,
                                op->type == FZ_OP_PSEND_INIT   ? "psend_init"
                                : op->type == FZ_OP_PRECV_INIT ? "precv_init"
                                                               : "pready",
                                op->arg);
                    }
                }
        }
    }
}
