/*
 * Randomized point-to-point stress: every rank sends and receives random
 * messages (0 B to 8 MiB, mostly small) on four communicators (world, a dup,
 * a split with reversed ranks, a split into two halves), with every blocking
 * and nonblocking send mode, wildcard and specific receives, probes, derived
 * datatypes on either side, and buffers from malloc (wisp's shared heap),
 * MPI_Alloc_mem, static and stack memory.
 *
 * usage: p2p_stress [messages per rank [seed]]
 * (default: 100000 messages in all, whatever the number of ranks)
 *
 * Every rank derives the same plan from the seed, one round at a time, so a
 * receiver knows exactly which messages are coming. A round has two batches,
 * separated by barriers so that no receive of one batch can match a message
 * of the other: in batch A every rank posts all its receives (Irecv), sends
 * (any mode, Rsend only after a barrier) and completes with one of the
 * Wait/Test functions; in batch B it starts its sends, then receives one at a
 * time (Recv, Probe, Mprobe, Sendrecv, ...).
 *
 * Receives are posted so that MPI's matching rules decide exactly which
 * message most of them get: per communicator, specific receives first, then
 * (source, ANY_TAG), then (ANY_SOURCE, tag), then (ANY_SOURCE, ANY_TAG); or,
 * in "bucket" batches where each source uses one tag, (s, t), (s, ANY_TAG)
 * and (ANY_SOURCE, t) in random order. The receiver checks which message
 * arrived where (so overtaking or a wrong match is caught), every byte of the
 * payload (a function of sender, communicator and sequence number), the
 * status, that memory outside the message was not written, and that every
 * message arrived exactly once. Where the rules leave the choice open
 * (messages from several sources for a wildcard), the message is identified
 * by its status and first byte (its sequence number) and the non-overtaking
 * rule is checked pair by pair.
 */
#include <mpi.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h" /* tests/check.h */

enum { MAXRANKS = 64, NCOMM = 4, NTYPE = 4, MAX_ERRORS = 20 };
enum { SMALL_MAX = 256, MEDIUM_MAX = 64 << 10, BIG_MAX = 8 << 20 };
enum { TB_BASE = 1000, TB_COUNT = 4, BUCKET_TAG = 2000 }; /* tag ranges, see gen_batch */
enum { ARENA = 16 << 20, STACK_ARENA = 128 << 10 };
enum { WATCHDOG_S = 60 }; /* a round that takes longer is a hang */

/* Receive classes: the pattern of the receive the receiver posts for a message. */
enum { SPEC, ANYTAG, ANYSRC, ANYANY, BUCKET };
/* How a message is matched, as computed by assign(): by a specific or
 * (source, ANY_TAG) receive, by a bucket receive, or open (several wildcards
 * could take it). */
enum { OPEN, DET_SPEC, DET_ANYTAG, DET_BUCKET };
enum { BUF_HEAP, BUF_STATIC, BUF_STACK, BUF_ALLOC_MEM };
enum { S_ISEND, S_ISSEND, S_IRSEND, S_SEND, S_SSEND, S_RSEND, S_SENDRECV, S_SENDRECV_REPLACE };
enum { R_RECV, R_PROBE, R_IPROBE, R_MPROBE, R_IMPROBE, R_IRECV_WAIT, R_SENDRECV };
enum { C_WAITALL, C_WAITANY, C_WAITSOME, C_TESTALL, C_TESTANY, C_TESTSOME, C_WAIT_EACH, NCOMPLETE };

typedef struct {
    int src, dst, comm, tag; /* world ranks; comm index */
    uint32_t seq;            /* per (sender, comm), over the whole run */
    size_t size;
    unsigned char cls, det, got;
} msg_t;

typedef struct {
    int comm, src, tag; /* src: world rank or -1 (any); tag or MPI_ANY_TAG */
    int level, order, expect, got, dt, count, bufkind, method;
    size_t cap, buflen;
    unsigned char *buf;
    int replace; /* the buffer of a Sendrecv_replace: bytes past the message are the sent ones */
    int probed;
    MPI_Status st, pst;
} recv_t;

/* A derived datatype of bytes: blocks in one element and the element's extent. */
typedef struct {
    const char *name;
    int nblk, disp[3], len[3], extent, size;
    int map[16]; /* byte k of an element is at map[k] */
    MPI_Datatype type;
} dt_t;

static dt_t dts[NTYPE] = {
    {"bytes", 1, {0}, {1}, 1, 1, {0}, MPI_DATATYPE_NULL},
    {"vector", 3, {0, 8, 16}, {5, 5, 5}, 24, 15, {0}, MPI_DATATYPE_NULL},
    {"indexed", 3, {0, 3, 9}, {2, 1, 4}, 13, 7, {0}, MPI_DATATYPE_NULL},
    {"struct", 3, {1, 4, 10}, {1, 2, 3}, 16, 6, {0}, MPI_DATATYPE_NULL},
};

static struct {
    int n, me;
    uint64_t seed;
    MPI_Comm comm[NCOMM];
    int world_of[NCOMM][MAXRANKS]; /* rank in my comm c -> world rank */
    uint32_t seqctr[MAXRANKS][NCOMM];
    int64_t remaining[MAXRANKS], credit[MAXRANKS], credit_per_round;
    int forced_round[MAXRANKS];
    int round;
    long long sent_msgs, sent_bytes;
    int errors;
} g;

static volatile sig_atomic_t wd_round, wd_batch;

static _Alignas(64) unsigned char static_arena[ARENA];
static size_t static_used;

/* --- random numbers: splitmix64 --- */

typedef struct {
    uint64_t s;
} rng_t;

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t rnd(rng_t *r)
{
    return mix64(r->s += 0x9e3779b97f4a7c15ull);
}

static unsigned below(rng_t *r, unsigned n)
{
    return n ? (unsigned)(rnd(r) % n) : 0;
}

static int pct(rng_t *r, unsigned p)
{
    return below(r, 100) < p;
}

/* --- errors and the watchdog --- */

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        failures++;                                                                                \
        if (g.errors++ < MAX_ERRORS) {                                                             \
            fprintf(stderr, "p2p_stress: rank %d round %d: ", g.me, g.round);                      \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

#define MPI_OK(call)                                                                               \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_ != MPI_SUCCESS)                                                                    \
            FAIL("%s returned %d", #call, rc_);                                                    \
    } while (0)

static void put_num(char *buf, size_t *len, long v)
{
    char tmp[24];
    int k = 0;
    do
        tmp[k++] = (char)('0' + v % 10);
    while ((v /= 10) > 0);
    while (k > 0)
        buf[(*len)++] = tmp[--k];
}

/* A hang would otherwise only show as CTest's timeout: say where it is. */
static void watchdog(int sig)
{
    (void)sig;
    char msg[160];
    size_t len = 0;
    const char *a = "p2p_stress: rank ", *b = ": no progress for a long time in round ",
               *c = " batch ";
    memcpy(msg + len, a, strlen(a)), len += strlen(a);
    put_num(msg, &len, g.me);
    memcpy(msg + len, b, strlen(b)), len += strlen(b);
    put_num(msg, &len, wd_round);
    memcpy(msg + len, c, strlen(c)), len += strlen(c);
    msg[len++] = wd_batch ? 'B' : 'A';
    msg[len++] = '\n';
    if (write(2, msg, len) < 0)
        _exit(3);
    _exit(3);
}

/* --- communicators --- */

static int is_member(int c, int a, int b)
{
    return c != 3 || a % 2 == b % 2;
}

/* World rank w's rank in its communicator c (see make_comms for the keys). */
static int rank_in(int c, int w)
{
    if (c == 2)
        return g.n - 1 - w;
    if (c == 3) {
        int r = 0;
        for (int v = w + 2; v < g.n; v += 2)
            r++;
        return r;
    }
    return w;
}

static void make_comms(void)
{
    g.comm[0] = MPI_COMM_WORLD;
    MPI_Comm_dup(MPI_COMM_WORLD, &g.comm[1]);
    MPI_Comm_split(MPI_COMM_WORLD, 0, g.n - 1 - g.me, &g.comm[2]);    /* reversed */
    MPI_Comm_split(MPI_COMM_WORLD, g.me % 2, g.n - g.me, &g.comm[3]); /* halves, reversed */
    MPI_Group world_group;
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    for (int c = 0; c < NCOMM; c++) {
        MPI_Group grp;
        int size, ranks[MAXRANKS];
        MPI_Comm_group(g.comm[c], &grp);
        MPI_Comm_size(g.comm[c], &size);
        for (int r = 0; r < size; r++)
            ranks[r] = r;
        MPI_Group_translate_ranks(grp, size, ranks, world_group, g.world_of[c]);
        MPI_Group_free(&grp);
        for (int r = 0; r < size; r++)
            CHECK(rank_in(c, g.world_of[c][r]) == r);
        int mine;
        MPI_Comm_rank(g.comm[c], &mine);
        CHECK(mine == rank_in(c, g.me));
    }
    MPI_Group_free(&world_group);
}

/* --- datatypes --- */

static void make_types(void)
{
    MPI_Datatype t;
    dts[0].type = MPI_BYTE;
    MPI_Type_vector(3, 5, 8, MPI_BYTE, &t);
    MPI_Type_create_resized(t, 0, 24, &dts[1].type);
    MPI_Type_free(&t);
    MPI_Type_indexed(3, dts[2].len, dts[2].disp, MPI_BYTE, &dts[2].type);
    MPI_Aint disp[3] = {1, 4, 10};
    MPI_Datatype bytes[3] = {MPI_BYTE, MPI_BYTE, MPI_BYTE};
    MPI_Type_create_struct(3, dts[3].len, disp, bytes, &t); /* lb 1: a gap in front */
    MPI_Type_create_resized(t, 0, 16, &dts[3].type);
    MPI_Type_free(&t);
    for (int d = 0; d < NTYPE; d++) {
        if (d > 0)
            MPI_Type_commit(&dts[d].type);
        int k = 0;
        for (int b = 0; b < dts[d].nblk; b++)
            for (int i = 0; i < dts[d].len[b]; i++)
                dts[d].map[k++] = dts[d].disp[b] + i;
        int size;
        MPI_Aint lb, extent;
        MPI_Type_size(dts[d].type, &size);
        MPI_Type_get_extent(dts[d].type, &lb, &extent);
        CHECK(k == dts[d].size && size == dts[d].size && lb == 0 && extent == dts[d].extent);
    }
}

static size_t pos_of(const dt_t *d, size_t k)
{
    return (k / (size_t)d->size) * (size_t)d->extent + (size_t)d->map[k % (size_t)d->size];
}

/* --- payloads --- */

static uint64_t msg_key(const msg_t *m)
{
    return mix64(g.seed ^ ((uint64_t)m->src << 48) ^ ((uint64_t)m->comm << 40) ^ m->seq);
}

/* Byte 0 is the low byte of the sequence number: it tells apart messages
 * that a wildcard receive could get. */
static void payload(unsigned char *out, const msg_t *m)
{
    uint64_t key = msg_key(m);
    size_t k = 0;
    for (; k + 8 <= m->size; k += 8) {
        uint64_t w = mix64(key + k);
        memcpy(out + k, &w, 8);
    }
    if (k < m->size) {
        uint64_t w = mix64(key + k);
        memcpy(out + k, &w, m->size - k);
    }
    if (m->size)
        out[0] = (unsigned char)m->seq;
}

static unsigned char *scratch(int which, size_t n)
{
    static unsigned char *buf[2];
    static size_t len[2];
    if (n > len[which]) {
        free(buf[which]);
        len[which] = n + (n >> 2) + 64;
        buf[which] = malloc(len[which]);
        if (!buf[which]) {
            fprintf(stderr, "p2p_stress: out of memory\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    return buf[which];
}

/* --- buffers --- */

typedef struct {
    unsigned char *base;
    size_t used, size;
} arena_t;

static unsigned char *buf_alloc(int *kind, size_t len, arena_t *stack)
{
    size_t need = (len + 63) & ~(size_t)63;
    if (need == 0)
        need = 64;
    if (*kind == BUF_STATIC && static_used + need <= ARENA) {
        static_used += need;
        return static_arena + static_used - need;
    }
    if (*kind == BUF_STACK && stack && stack->used + need <= stack->size) {
        stack->used += need;
        return stack->base + stack->used - need;
    }
    if (*kind == BUF_ALLOC_MEM) {
        void *p = NULL;
        if (MPI_Alloc_mem((MPI_Aint)need, MPI_INFO_NULL, &p) == MPI_SUCCESS)
            return p;
    }
    *kind = BUF_HEAP;
    unsigned char *p = malloc(need);
    if (!p) {
        fprintf(stderr, "p2p_stress: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

static void buf_free(unsigned char *p, int kind)
{
    if (kind == BUF_HEAP)
        free(p);
    else if (kind == BUF_ALLOC_MEM)
        MPI_Free_mem(p);
}

static int pick_bufkind(rng_t *r, int stack_ok)
{
    unsigned p = below(r, 100);
    if (p < 55)
        return BUF_HEAP;
    if (p < 70)
        return BUF_ALLOC_MEM;
    if (p < 85 || !stack_ok)
        return BUF_STATIC;
    return BUF_STACK;
}

/* --- the plan --- */

typedef struct {
    msg_t *m;
    int n, cap;
} batch_t;

static size_t draw_size(rng_t *r, int src)
{
    static const size_t edges[] = {1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 48, 49, 63, 64, 65, 255};
    unsigned p = below(r, 100);
    if (p < 80) { /* small, with the sizes where cells and words end */
        unsigned q = below(r, 10);
        if (q == 0)
            return 0;
        if (q < 3)
            return edges[below(r, sizeof edges / sizeof edges[0])];
        return 1 + below(r, SMALL_MAX);
    }
    if (p < 96) { /* medium, log-uniform */
        size_t lo = (size_t)SMALL_MAX << below(r, 8);
        return lo + 1 + below(r, (unsigned)lo);
    }
    size_t lo = (size_t)MEDIUM_MAX << below(r, 7); /* big: only within the byte budget */
    size_t size = lo + 1 + below(r, (unsigned)lo);
    if (size > BIG_MAX)
        size = BIG_MAX;
    if ((int64_t)size > g.credit[src])
        return SMALL_MAX + 1 + below(r, MEDIUM_MAX - SMALL_MAX);
    g.credit[src] -= (int64_t)size;
    return size;
}

static int small_tag(rng_t *r)
{
    unsigned p = below(r, 100);
    if (p < 70)
        return (int)below(r, 4); /* few tags: many messages share one */
    if (p < 95)
        return (int)below(r, 900);
    return 32767; /* the largest tag every MPI must accept */
}

static int is_tb(int tag)
{
    return tag >= TB_BASE && tag < TB_BASE + TB_COUNT;
}

/* Which messages to x on comm c a specific, (source, ANY_TAG) or bucket
 * receive is bound to get (MPI's ordering rules decide it, given the posting
 * order that build_receives follows) and which are open to wildcards. */
static void assign(batch_t *b, int x, int c, int bucket_mode)
{
    int *idx = malloc((size_t)b->n * sizeof *idx + 1), n = 0;
    for (int i = 0; i < b->n; i++)
        if (b->m[i].dst == x && b->m[i].comm == c)
            idx[n++] = i;
    for (int i = 0; i < n; i++) {
        msg_t *m = &b->m[idx[i]];
        m->det = OPEN;
        if (bucket_mode) {
            int k = 0, taken = 0;
            for (int j = 0; j < n; j++)
                if (b->m[idx[j]].src == m->src && b->m[idx[j]].cls == BUCKET)
                    k++;
            for (int j = 0; j < i; j++)
                if (b->m[idx[j]].src == m->src && b->m[idx[j]].det == DET_BUCKET)
                    taken++;
            if (taken < k)
                m->det = DET_BUCKET;
            continue;
        }
        if (is_tb(m->tag))
            continue;
        /* Specific (s, t) receives take the first (s, t) messages; then
         * (s, ANY_TAG) receives the first of what is left from s. */
        int k1 = 0, t1 = 0, k2 = 0, t2 = 0;
        for (int j = 0; j < n; j++) {
            msg_t *o = &b->m[idx[j]];
            if (o->src == m->src && o->tag == m->tag && o->cls == SPEC)
                k1++;
            if (o->src == m->src && o->cls == ANYTAG)
                k2++;
        }
        for (int j = 0; j < i; j++) {
            msg_t *o = &b->m[idx[j]];
            if (o->src == m->src && o->tag == m->tag && o->det == DET_SPEC)
                t1++;
            if (o->src == m->src && o->det == DET_ANYTAG)
                t2++;
        }
        if (t1 < k1)
            m->det = DET_SPEC;
        else if (t2 < k2)
            m->det = DET_ANYTAG;
    }
    free(idx);
}

/* The messages of one batch of one round, the same on every rank. */
static void gen_batch(batch_t *b, int batch, rng_t *r)
{
    static unsigned char bucket_mode[MAXRANKS][NCOMM], anytag_ok[MAXRANKS][MAXRANKS][NCOMM],
        zero_used[MAXRANKS][MAXRANKS][NCOMM];
    static int tag_off[MAXRANKS][NCOMM];
    b->n = 0;
    for (int x = 0; x < g.n; x++)
        for (int c = 0; c < NCOMM; c++) {
            bucket_mode[x][c] = (unsigned char)pct(r, 30);
            tag_off[x][c] = (int)below(r, 1000);
            for (int s = 0; s < g.n; s++) {
                anytag_ok[s][x][c] = (unsigned char)pct(r, 50);
                zero_used[s][x][c] = 0;
            }
        }
    for (int s = 0; s < g.n; s++) {
        /* Big batches: under oversubscription every round's barriers cost time slices. */
        int64_t want = batch == 0 ? 256 + below(r, 256) : 32 + below(r, 96);
        if (want > g.remaining[s])
            want = g.remaining[s];
        g.remaining[s] -= want;
        int per_comm[NCOMM] = {0};
        for (int i = 0; i < want; i++) {
            if (b->n == b->cap) {
                b->cap = b->cap ? 2 * b->cap : 256;
                b->m = realloc(b->m, (size_t)b->cap * sizeof *b->m);
            }
            msg_t *m = &b->m[b->n++];
            memset(m, 0, sizeof *m);
            m->src = s;
            do /* at most 250 per sender and comm: the first byte tells them apart */
                m->comm = (int)below(r, NCOMM);
            while (per_comm[m->comm] >= 250);
            per_comm[m->comm]++;
            do /* fewer messages to self than a uniform pick would give */
                m->dst = (int)below(r, (unsigned)g.n);
            while (!is_member(m->comm, s, m->dst) || (m->dst == s && g.n > 2 && pct(r, 60)));
            int x = m->dst, c = m->comm;
            if (bucket_mode[x][c]) {
                m->cls = pct(r, 25) ? ANYANY : BUCKET;
                m->tag = BUCKET_TAG + tag_off[x][c] + s; /* one tag per source */
            } else {
                unsigned p = below(r, 100);
                m->cls = p < 45 ? SPEC : p < 80 ? (anytag_ok[s][x][c] ? ANYTAG : ANYSRC) : ANYANY;
                /* TB tags only for (ANY_SOURCE, t) receives, and never from a
                 * source that (source, ANY_TAG) receives wait for: that is what
                 * lets every receive find its message. */
                if (m->cls == ANYSRC || (m->cls == ANYANY && !anytag_ok[s][x][c] && pct(r, 50)))
                    m->tag = TB_BASE + (int)below(r, TB_COUNT);
                else
                    m->tag = small_tag(r);
            }
            if (batch == 0 && i == 0 && g.round == g.forced_round[s]) {
                m->size = BIG_MAX; /* one message of the largest size per sender */
                m->cls = bucket_mode[x][c] ? BUCKET : SPEC;
                m->tag = bucket_mode[x][c] ? m->tag : 5;
            } else {
                m->size = draw_size(r, s);
                if (pct(r, 10) && m->size >= 210)
                    m->size -= m->size % 210; /* a multiple of every derived type's size */
            }
            if (m->size == 0 && zero_used[s][x][c]++)
                m->size = 1 + below(r, 8); /* empty messages are told apart by their tag only */
            m->seq = g.seqctr[s][c]++;
        }
    }
    for (int x = 0; x < g.n; x++)
        for (int c = 0; c < NCOMM; c++)
            assign(b, x, c, bucket_mode[x][c]);
    /* A wildcard receive must be able to hold any open message, so keep them small. */
    for (int i = 0; i < b->n; i++)
        if (b->m[i].det == OPEN && b->m[i].size > MEDIUM_MAX)
            b->m[i].size = SMALL_MAX + 1 + below(r, MEDIUM_MAX - SMALL_MAX);
}

/* --- receiving --- */

static int matches(const recv_t *rv, const msg_t *m)
{
    return rv->comm == m->comm && (rv->src < 0 || rv->src == m->src) &&
           (rv->tag == MPI_ANY_TAG || rv->tag == m->tag);
}

static int cmp_recv(const void *a, const void *b)
{
    const recv_t *x = a, *y = b;
    if (x->comm != y->comm)
        return x->comm - y->comm;
    if (x->level != y->level)
        return x->level - y->level;
    return x->order - y->order;
}

/* My receives of the batch in posting order. */
static int build_receives(batch_t *b, recv_t **out, rng_t *r)
{
    int n = 0;
    for (int i = 0; i < b->n; i++)
        n += b->m[i].dst == g.me;
    recv_t *rv = calloc((size_t)n + 1, sizeof *rv), *sorted = calloc((size_t)n + 1, sizeof *rv);
    int k = 0;
    for (int i = 0; i < b->n; i++) {
        const msg_t *m = &b->m[i];
        if (m->dst != g.me)
            continue;
        recv_t *v = &rv[k++];
        v->comm = m->comm;
        v->expect = v->got = -1;
        v->order = (int)below(r, 1 << 30);
        switch (m->cls) {
        case SPEC:
            v->src = m->src, v->tag = m->tag, v->level = 0;
            break;
        case ANYTAG:
            v->src = m->src, v->tag = MPI_ANY_TAG, v->level = 1;
            break;
        case ANYSRC:
            v->src = -1, v->tag = m->tag, v->level = 2;
            break;
        case ANYANY:
            v->src = -1, v->tag = MPI_ANY_TAG, v->level = 3;
            break;
        default: { /* BUCKET: all three patterns match the same messages */
            unsigned p = below(r, 3);
            v->src = p == 2 ? -1 : m->src;
            v->tag = p == 1 ? MPI_ANY_TAG : m->tag;
            v->level = 0;
        }
        }
    }
    qsort(rv, (size_t)n, sizeof *rv, cmp_recv);
    /* Interleave the communicators at random, keeping each one's order. */
    int head[NCOMM + 1] = {0};
    for (int i = 0; i < n; i++)
        head[rv[i].comm + 1]++;
    for (int c = 0; c < NCOMM; c++)
        head[c + 1] += head[c];
    int end[NCOMM];
    for (int c = 0; c < NCOMM; c++)
        end[c] = head[c + 1];
    for (int i = 0; i < n; i++) {
        int c;
        do
            c = (int)below(r, NCOMM);
        while (head[c] == end[c]);
        sorted[i] = rv[head[c]++];
    }
    free(rv);
    /* Bind the receives that the rules decide, in posting order. */
    for (int i = 0; i < n; i++) {
        recv_t *v = &sorted[i];
        for (int j = 0; j < b->n; j++) {
            msg_t *m = &b->m[j];
            if (m->dst != g.me || m->got || !matches(v, m))
                continue;
            int det = m->det;
            if ((v->level == 0 && v->src >= 0 && v->tag >= 0 && det == DET_SPEC) ||
                (v->level == 1 && det == DET_ANYTAG) || (v->level == 0 && det == DET_BUCKET)) {
                v->expect = j;
                m->got = 1; /* reset below: only marks it bound */
                break;
            }
        }
        size_t cap = 0;
        if (v->expect >= 0) {
            cap = b->m[v->expect].size;
            if (pct(r, 20))
                cap += below(r, 64);
        } else {
            for (int j = 0; j < b->n; j++)
                if (b->m[j].dst == g.me && b->m[j].det == OPEN && matches(v, &b->m[j]) &&
                    b->m[j].size > cap)
                    cap = b->m[j].size;
        }
        v->cap = cap;
        v->dt = pct(r, 15) ? 1 + (int)below(r, NTYPE - 1) : 0;
        v->count = (int)((cap + (size_t)dts[v->dt].size - 1) / (size_t)dts[v->dt].size);
    }
    for (int j = 0; j < b->n; j++)
        b->m[j].got = 0;
    *out = sorted;
    return n;
}

static void alloc_recv_buf(recv_t *v, rng_t *r)
{
    v->buflen = (size_t)v->count * (size_t)dts[v->dt].extent;
    v->bufkind = pick_bufkind(r, 0);
    v->buf = buf_alloc(&v->bufkind, v->buflen, NULL);
    memset(v->buf, 0xee, v->buflen); /* what the MPI must not touch stays 0xee */
}

/* Check one completed receive: the status, which message it is, its bytes. */
static void check_recv(batch_t *b, recv_t *v, int idx)
{
    const MPI_Status *st = &v->st;
    int csize, count = -1, elements = -1;
    MPI_Comm_size(g.comm[v->comm], &csize);
    if (st->MPI_SOURCE < 0 || st->MPI_SOURCE >= csize) {
        FAIL("receive %d: status source %d", idx, st->MPI_SOURCE);
        return;
    }
    int src = g.world_of[v->comm][st->MPI_SOURCE], tag = st->MPI_TAG;
    const dt_t *d = &dts[v->dt];
    MPI_Get_elements(st, d->type, &elements);
    MPI_Get_count(st, d->type, &count);
    size_t n = (size_t)elements;
    if (elements < 0 || count != (elements % d->size ? MPI_UNDEFINED : elements / d->size)) {
        FAIL("receive %d: MPI_Get_elements %d, MPI_Get_count %d with type %s", idx, elements, count,
             d->name);
        return;
    }
    if ((v->src >= 0 && src != v->src) || (v->tag != MPI_ANY_TAG && tag != v->tag)) {
        FAIL("receive %d (source %d, tag %d, comm %d) got source %d tag %d", idx, v->src, v->tag,
             v->comm, src, tag);
        return;
    }
    if (v->probed && (st->MPI_SOURCE != v->pst.MPI_SOURCE || st->MPI_TAG != v->pst.MPI_TAG)) {
        FAIL("receive %d: probe said source %d tag %d, receive got %d %d", idx, v->pst.MPI_SOURCE,
             v->pst.MPI_TAG, st->MPI_SOURCE, st->MPI_TAG);
        return;
    }
    unsigned char first = n ? v->buf[pos_of(d, 0)] : 0;
    int found = -1;
    if (v->expect >= 0) {
        found = v->expect;
    } else {
        for (int j = 0; j < b->n; j++) {
            const msg_t *m = &b->m[j];
            if (m->dst == g.me && m->comm == v->comm && m->src == src && m->tag == tag &&
                m->size == n && !m->got && m->det == OPEN &&
                (n == 0 || first == (unsigned char)m->seq)) {
                found = j;
                break;
            }
        }
    }
    const char *how = v->expect >= 0 ? "bound" : "wildcard";
    if (found < 0) {
        FAIL("receive %d (%s, comm %d): no message expected from %d, tag %d, %zu bytes, first "
             "byte %u",
             idx, how, v->comm, src, tag, n, first);
        return;
    }
    msg_t *m = &b->m[found];
    if (m->src != src || m->tag != tag || m->size != n) {
        FAIL("receive %d (%s, comm %d): expected seq %u from %d tag %d, %zu bytes; got from %d, "
             "tag %d, %zu bytes",
             idx, how, v->comm, m->seq, m->src, m->tag, m->size, src, tag, n);
        return;
    }
    if (m->got) {
        FAIL("receive %d: message seq %u from %d on comm %d received twice", idx, m->seq, m->src,
             m->comm);
        return;
    }
    m->got = 1;
    v->got = found;
    /* The whole buffer as it must be: the payload where the type puts it. */
    unsigned char *data = scratch(0, m->size + 1), *image = scratch(1, v->buflen + 1);
    payload(data, m);
    size_t len = v->buflen;
    if (v->replace) {
        len = n; /* the rest holds what was sent */
        memcpy(image, data, n);
    } else {
        memset(image, 0xee, len);
        for (size_t k = 0; k < n; k++)
            image[pos_of(d, k)] = data[k];
    }
    if (memcmp(image, v->buf, len) != 0) {
        size_t k = 0;
        while (image[k] == v->buf[k])
            k++;
        FAIL("receive %d: message seq %u from %d on comm %d (%zu bytes, type %s): byte at "
             "offset %zu is %u, expected %u",
             idx, m->seq, m->src, m->comm, n, d->name, k, v->buf[k], image[k]);
    }
}

/* Non-overtaking, pair by pair: a later receive must not have got an earlier
 * message of the same sender that an earlier receive could have taken. */
static void check_order(batch_t *b, recv_t *rv, int nr)
{
    for (int i = 0; i < nr; i++) {
        if (rv[i].got < 0)
            continue;
        const msg_t *mi = &b->m[rv[i].got];
        for (int j = i + 1; j < nr; j++) {
            if (rv[j].got < 0)
                continue;
            const msg_t *mj = &b->m[rv[j].got];
            if (mj->src == mi->src && mj->comm == mi->comm && mj->seq < mi->seq &&
                matches(&rv[i], mj))
                FAIL("overtaking on comm %d: receive %d (source %d, tag %d) got seq %u from %d, "
                     "later receive %d got the earlier seq %u",
                     mi->comm, i, rv[i].src, rv[i].tag, mi->seq, mi->src, j, mj->seq);
        }
    }
    for (int j = 0; j < b->n; j++)
        if (b->m[j].dst == g.me && !b->m[j].got)
            FAIL("message seq %u from %d on comm %d tag %d (%zu bytes) never received", b->m[j].seq,
                 b->m[j].src, b->m[j].comm, b->m[j].tag, b->m[j].size);
}

/* --- sending --- */

typedef struct {
    int msg, kind, dt, count, bufkind;
    unsigned char *buf;
    size_t buflen;
} send_t;

static void prepare_send(send_t *s, const msg_t *m, rng_t *r, arena_t *stack)
{
    s->dt = 0;
    if (pct(r, 25)) {
        int d = 1 + (int)below(r, NTYPE - 1);
        if (m->size % (size_t)dts[d].size == 0)
            s->dt = d;
    }
    const dt_t *d = &dts[s->dt];
    s->count = (int)(m->size / (size_t)d->size);
    s->buflen = (size_t)s->count * (size_t)d->extent;
    s->bufkind = pick_bufkind(r, s->buflen <= STACK_ARENA / 4);
    s->buf = buf_alloc(&s->bufkind, s->buflen, stack);
    if (s->dt == 0) {
        payload(s->buf, m);
        return;
    }
    unsigned char *data = scratch(0, m->size + 1);
    payload(data, m);
    memset(s->buf, 0xc3, s->buflen); /* gaps: the MPI must not send them */
    for (size_t k = 0; k < m->size; k++)
        s->buf[pos_of(d, k)] = data[k];
}

static int start_send(send_t *s, const msg_t *m, MPI_Request *req)
{
    int dest = rank_in(m->comm, m->dst);
    MPI_Comm comm = g.comm[m->comm];
    MPI_Datatype t = dts[s->dt].type;
    g.sent_msgs++;
    g.sent_bytes += (long long)m->size;
    switch (s->kind) {
    case S_ISEND:
        return MPI_Isend(s->buf, s->count, t, dest, m->tag, comm, req);
    case S_ISSEND:
        return MPI_Issend(s->buf, s->count, t, dest, m->tag, comm, req);
    case S_IRSEND:
        return MPI_Irsend(s->buf, s->count, t, dest, m->tag, comm, req);
    case S_SEND:
        return MPI_Send(s->buf, s->count, t, dest, m->tag, comm);
    case S_SSEND:
        return MPI_Ssend(s->buf, s->count, t, dest, m->tag, comm);
    case S_RSEND:
        return MPI_Rsend(s->buf, s->count, t, dest, m->tag, comm);
    }
    return MPI_ERR_OTHER;
}

static int blocking_kind(int kind)
{
    return kind == S_SEND || kind == S_SSEND || kind == S_RSEND;
}

/* --- batch A: everything posted, then completed together --- */

static void complete_all(MPI_Request *req, int nreq, MPI_Status *st, int method, int nr)
{
    int *done = calloc((size_t)nreq + 1, sizeof *done),
        *idx = calloc((size_t)nreq + 1, sizeof *idx);
    int left = nreq;
    switch (method) {
    case C_WAITALL:
        MPI_OK(MPI_Waitall(nreq, req, st));
        left = 0;
        break;
    case C_TESTALL: {
        int flag = 0;
        while (!flag) {
            MPI_OK(MPI_Testall(nreq, req, &flag, st));
            if (!flag)
                sched_yield(); /* processes outnumber cores: let the peers run */
        }
        left = 0;
        break;
    }
    case C_WAIT_EACH:
        for (int i = nreq - 1; i >= 0; i--)
            MPI_OK(MPI_Wait(&req[i], &st[i]));
        left = 0;
        break;
    case C_WAITANY:
    case C_TESTANY:
        while (left > 0) {
            int i = MPI_UNDEFINED, flag = 1;
            MPI_Status s;
            if (method == C_WAITANY)
                MPI_OK(MPI_Waitany(nreq, req, &i, &s));
            else
                MPI_OK(MPI_Testany(nreq, req, &i, &flag, &s));
            if (!flag) {
                sched_yield();
                continue;
            }
            if (i < 0 || i >= nreq || done[i] || req[i] != MPI_REQUEST_NULL) {
                FAIL("MPI_%s returned index %d (of %d, %d left)",
                     method == C_WAITANY ? "Waitany" : "Testany", i, nreq, left);
                break;
            }
            done[i] = 1, st[i] = s, left--;
        }
        break;
    case C_WAITSOME:
    case C_TESTSOME: {
        MPI_Status *s = calloc((size_t)nreq + 1, sizeof *s);
        while (left > 0) {
            int out = MPI_UNDEFINED;
            if (method == C_WAITSOME)
                MPI_OK(MPI_Waitsome(nreq, req, &out, idx, s));
            else
                MPI_OK(MPI_Testsome(nreq, req, &out, idx, s));
            if (out == MPI_UNDEFINED || out < 0 || out > left ||
                (method == C_WAITSOME && out == 0)) {
                FAIL("MPI_%s: outcount %d with %d requests left",
                     method == C_WAITSOME ? "Waitsome" : "Testsome", out, left);
                break;
            }
            if (out == 0)
                sched_yield();
            for (int k = 0; k < out; k++) {
                int i = idx[k];
                if (i < 0 || i >= nreq || done[i] || req[i] != MPI_REQUEST_NULL) {
                    FAIL("MPI_Waitsome/Testsome: index %d", i);
                    left = 0;
                    break;
                }
                done[i] = 1, st[i] = s[k], left--;
            }
        }
        free(s);
        break;
    }
    }
    for (int i = 0; i < nreq; i++)
        if (req[i] != MPI_REQUEST_NULL)
            FAIL("request %d of %d (%s) still active after completion", i, nreq,
                 i < nr ? "receive" : "send");
    /* With nothing left active, the "any"/"some" forms answer MPI_UNDEFINED. */
    if (nreq > 0 && (method == C_WAITANY || method == C_TESTANY)) {
        int i = 0, flag = 0;
        if (method == C_WAITANY)
            MPI_Waitany(nreq, req, &i, MPI_STATUS_IGNORE), flag = 1;
        else
            MPI_Testany(nreq, req, &i, &flag, MPI_STATUS_IGNORE);
        if (i != MPI_UNDEFINED || !flag)
            FAIL("MPI_Waitany/Testany on inactive requests: index %d, flag %d", i, flag);
    }
    if (nreq > 0 && (method == C_WAITSOME || method == C_TESTSOME)) {
        int out = 0;
        if (method == C_WAITSOME)
            MPI_Waitsome(nreq, req, &out, idx, st);
        else
            MPI_Testsome(nreq, req, &out, idx, st);
        if (out != MPI_UNDEFINED)
            FAIL("MPI_Waitsome/Testsome on inactive requests: outcount %d", out);
    }
    free(done);
    free(idx);
}

static void batch_a(batch_t *b, rng_t *r, int ready)
{
    _Alignas(64) unsigned char stack_mem[STACK_ARENA];
    arena_t stack = {stack_mem, 0, STACK_ARENA};
    recv_t *rv;
    int nr = build_receives(b, &rv, r);
    int ns = 0;
    for (int i = 0; i < b->n; i++)
        ns += b->m[i].src == g.me;
    MPI_Request *req = calloc((size_t)(nr + ns) + 1, sizeof *req);
    MPI_Status *st = calloc((size_t)(nr + ns) + 1, sizeof *st);
    send_t *sd = calloc((size_t)ns + 1, sizeof *sd);
    for (int i = 0; i < nr; i++) {
        recv_t *v = &rv[i];
        alloc_recv_buf(v, r);
        MPI_OK(MPI_Irecv(v->buf, v->count, dts[v->dt].type,
                         v->src < 0 ? MPI_ANY_SOURCE : rank_in(v->comm, v->src), v->tag,
                         g.comm[v->comm], &req[i]));
    }
    if (ready) /* every receive is posted: ready mode is allowed */
        MPI_Barrier(MPI_COMM_WORLD);
    int nreq = nr;
    for (int i = 0, k = 0; i < b->n; i++) {
        const msg_t *m = &b->m[i];
        if (m->src != g.me)
            continue;
        send_t *s = &sd[k++];
        s->msg = i;
        prepare_send(s, m, r, &stack);
        unsigned p = below(r, 100);
        s->kind = p < 40   ? S_ISEND
                  : p < 55 ? S_ISSEND
                  : p < 80 ? S_SEND
                  : p < 85 ? S_SSEND
                           : S_RSEND;
        if (s->kind == S_RSEND)
            s->kind = !ready ? S_ISEND : pct(r, 50) ? S_RSEND : S_IRSEND;
        if (blocking_kind(s->kind))
            MPI_OK(start_send(s, m, NULL));
        else
            MPI_OK(start_send(s, m, &req[nreq++]));
    }
    int method = (int)below(r, NCOMPLETE);
    complete_all(req, nreq, st, method, nr);
    for (int i = 0; i < nr; i++) {
        rv[i].st = st[i];
        check_recv(b, &rv[i], i);
    }
    check_order(b, rv, nr);
    for (int i = 0; i < nr; i++)
        buf_free(rv[i].buf, rv[i].bufkind);
    for (int k = 0; k < ns; k++)
        buf_free(sd[k].buf, sd[k].bufkind);
    free(rv), free(req), free(st), free(sd);
}

/* --- batch B: sends started, then one receive at a time --- */

static void receive_one(recv_t *v, rng_t *r)
{
    MPI_Comm comm = g.comm[v->comm];
    int src = v->src < 0 ? MPI_ANY_SOURCE : rank_in(v->comm, v->src);
    int method = v->method;
    if (method == R_RECV || method == R_IRECV_WAIT) {
        alloc_recv_buf(v, r);
        if (method == R_RECV) {
            MPI_OK(MPI_Recv(v->buf, v->count, dts[v->dt].type, src, v->tag, comm, &v->st));
        } else {
            MPI_Request q;
            MPI_OK(MPI_Irecv(v->buf, v->count, dts[v->dt].type, src, v->tag, comm, &q));
            MPI_OK(MPI_Wait(&q, &v->st));
        }
        return;
    }
    /* Probes: a buffer of exactly the probed size. */
    MPI_Message msg = MPI_MESSAGE_NULL;
    int flag = 0;
    switch (method) {
    case R_PROBE:
        MPI_OK(MPI_Probe(src, v->tag, comm, &v->pst));
        break;
    case R_IPROBE:
        while (!flag) {
            MPI_OK(MPI_Iprobe(src, v->tag, comm, &flag, &v->pst));
            if (!flag)
                sched_yield();
        }
        break;
    case R_MPROBE:
        MPI_OK(MPI_Mprobe(src, v->tag, comm, &msg, &v->pst));
        break;
    case R_IMPROBE:
        while (!flag) {
            MPI_OK(MPI_Improbe(src, v->tag, comm, &flag, &msg, &v->pst));
            if (!flag)
                sched_yield();
        }
        break;
    }
    int count = 0;
    MPI_Get_count(&v->pst, MPI_BYTE, &count);
    v->probed = 1;
    v->dt = 0;
    v->count = count;
    v->cap = (size_t)count;
    alloc_recv_buf(v, r);
    if (method == R_PROBE || method == R_IPROBE) {
        MPI_OK(MPI_Recv(v->buf, count, MPI_BYTE, v->pst.MPI_SOURCE, v->pst.MPI_TAG, comm, &v->st));
    } else if (method == R_MPROBE || pct(r, 50)) {
        MPI_OK(MPI_Mrecv(v->buf, count, MPI_BYTE, &msg, &v->st));
    } else {
        MPI_Request q;
        MPI_OK(MPI_Imrecv(v->buf, count, MPI_BYTE, &msg, &q));
        MPI_OK(MPI_Wait(&q, &v->st));
    }
    if (msg != MPI_MESSAGE_NULL)
        FAIL("matched receive left the message handle set");
}

static void batch_b(batch_t *b, rng_t *r)
{
    _Alignas(64) unsigned char stack_mem[STACK_ARENA];
    arena_t stack = {stack_mem, 0, STACK_ARENA};
    recv_t *rv;
    int nr = build_receives(b, &rv, r);
    int ns = 0, last = -1;
    for (int i = 0; i < b->n; i++)
        if (b->m[i].src == g.me)
            ns++, last = i;
    MPI_Request *req = calloc((size_t)ns + 1, sizeof *req);
    MPI_Status *sst = calloc((size_t)ns + 1, sizeof *sst);
    send_t *sd = calloc((size_t)ns + 1, sizeof *sd);
    for (int i = 0; i < nr; i++) {
        unsigned p = below(r, 100);
        rv[i].method = p < 60   ? R_RECV
                       : p < 70 ? R_IRECV_WAIT
                       : p < 78 ? R_PROBE
                       : p < 84 ? R_IPROBE
                       : p < 92 ? R_MPROBE
                                : R_IMPROBE;
    }
    int k = 0, first_recv = 0;
    for (int i = 0; i < b->n; i++) {
        const msg_t *m = &b->m[i];
        if (m->src != g.me)
            continue;
        send_t *s = &sd[k];
        s->msg = i;
        prepare_send(s, m, r, &stack);
        s->kind = pct(r, 70) ? S_ISEND : S_ISSEND;
        /* The last send may block, but only towards a higher rank: a cycle of
         * ranks blocked in sends to each other would deadlock. */
        if (i == last && m->dst > g.me && pct(r, 70)) {
            unsigned p = below(r, 100);
            s->kind = p < 30 ? S_SEND : p < 50 ? S_SSEND : S_SENDRECV;
            /* Sendrecv's receive is the first on the send's communicator:
             * move it to the front (the order across communicators is free). */
            int f = 0;
            while (f < nr && rv[f].comm != m->comm)
                f++;
            if (s->kind == S_SENDRECV && f == nr)
                s->kind = S_SEND;
            if (s->kind == S_SENDRECV) {
                recv_t first = rv[f];
                memmove(&rv[1], &rv[0], (size_t)f * sizeof *rv);
                rv[0] = first;
                if (s->dt == 0 && rv[0].cap <= m->size && pct(r, 50))
                    s->kind = S_SENDRECV_REPLACE;
            }
        }
        if (s->kind == S_SENDRECV || s->kind == S_SENDRECV_REPLACE) {
            recv_t *v = &rv[0];
            int src = v->src < 0 ? MPI_ANY_SOURCE : rank_in(v->comm, v->src);
            int dest = rank_in(m->comm, m->dst);
            v->method = R_SENDRECV;
            g.sent_msgs++, g.sent_bytes += (long long)m->size;
            if (s->kind == S_SENDRECV) {
                alloc_recv_buf(v, r);
                MPI_OK(MPI_Sendrecv(s->buf, s->count, dts[s->dt].type, dest, m->tag, v->buf,
                                    v->count, dts[v->dt].type, src, v->tag, g.comm[m->comm],
                                    &v->st));
            } else {
                /* One buffer, one count and type for both directions. */
                v->dt = 0, v->count = s->count, v->buf = s->buf, v->buflen = s->buflen;
                v->bufkind = -1, v->replace = 1;
                MPI_OK(MPI_Sendrecv_replace(s->buf, s->count, MPI_BYTE, dest, m->tag, src, v->tag,
                                            g.comm[m->comm], &v->st));
            }
            first_recv = 1;
            req[k] = MPI_REQUEST_NULL;
        } else if (blocking_kind(s->kind)) {
            MPI_OK(start_send(s, m, NULL));
            req[k] = MPI_REQUEST_NULL;
        } else {
            MPI_OK(start_send(s, m, &req[k]));
        }
        k++;
    }
    for (int i = first_recv; i < nr; i++)
        receive_one(&rv[i], r);
    /* A status array, not MPI_STATUSES_IGNORE: GCC warns about MPICH's (MPI_Status *)1. */
    MPI_OK(MPI_Waitall(ns, req, sst));
    for (int i = 0; i < nr; i++)
        check_recv(b, &rv[i], i);
    check_order(b, rv, nr);
    for (int i = 0; i < nr; i++)
        if (rv[i].bufkind >= 0)
            buf_free(rv[i].buf, rv[i].bufkind);
    for (k = 0; k < ns; k++)
        buf_free(sd[k].buf, sd[k].bufkind);
    free(rv), free(req), free(sst), free(sd);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &g.n);
    MPI_Comm_rank(MPI_COMM_WORLD, &g.me);
    if (g.n > MAXRANKS) {
        if (g.me == 0)
            fprintf(stderr, "p2p_stress: at most %d ranks\n", MAXRANKS);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long long per_rank = argc > 1 ? atoll(argv[1]) : (100000 + g.n - 1) / g.n;
    g.seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 20240611;
    if (per_rank < 1) {
        if (g.me == 0)
            fprintf(stderr, "usage: p2p_stress [messages per rank [seed]]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    make_comms();
    make_types();
    signal(SIGALRM, watchdog);

    /* Big messages share a byte budget (1 KiB per message on average), and
     * every sender sends one of the largest size in a round of its own. */
    int64_t est_rounds = per_rank / 464 + 1; /* 464 messages per sender and round */
    g.credit_per_round = per_rank * 1024 / est_rounds;
    for (int s = 0; s < g.n; s++) {
        g.remaining[s] = per_rank;
        g.forced_round[s] = per_rank >= 1000 ? (int)(est_rounds * (s + 1) / (g.n + 1)) : -1;
    }
    batch_t b = {0};
    for (g.round = 0;; g.round++) {
        int more = 0;
        for (int s = 0; s < g.n; s++) {
            more |= g.remaining[s] > 0;
            g.credit[s] += g.credit_per_round;
        }
        if (!more)
            break;
        alarm(WATCHDOG_S);
        rng_t plan = {mix64(g.seed) ^ (uint64_t)g.round * 0x100000001b3ull};
        rng_t mine = {mix64(g.seed ^ ((uint64_t)g.me << 32) ^ (uint64_t)g.round)};
        int ready = pct(&plan, 30);
        wd_round = g.round, wd_batch = 0;
        static_used = 0;
        gen_batch(&b, 0, &plan);
        batch_a(&b, &mine, ready);
        MPI_Barrier(MPI_COMM_WORLD); /* no receive of one batch may see the next one's messages */
        wd_batch = 1;
        static_used = 0;
        gen_batch(&b, 1, &plan);
        batch_b(&b, &mine);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    alarm(0);
    free(b.m);

    long long mine[3] = {g.sent_msgs, g.sent_bytes, failures}, all[3];
    MPI_Reduce(mine, all, 3, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    for (int d = 1; d < NTYPE; d++)
        MPI_Type_free(&dts[d].type);
    for (int c = 1; c < NCOMM; c++)
        MPI_Comm_free(&g.comm[c]);
    if (g.me == 0) {
        if (all[2])
            printf("p2p_stress: %lld messages, %lld bytes, FAILED: %lld errors (%d ranks, seed "
                   "%llu; rerun: p2p_stress %lld %llu)\n",
                   all[0], all[1], all[2], g.n, (unsigned long long)g.seed, per_rank,
                   (unsigned long long)g.seed);
        else
            printf("p2p_stress: %lld messages, %lld bytes, OK (%d ranks, %d rounds, seed %llu)\n",
                   all[0], all[1], g.n, g.round, (unsigned long long)g.seed);
    }
    MPI_Finalize();
    return failures ? 1 : 0;
}
