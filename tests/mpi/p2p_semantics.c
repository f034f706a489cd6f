/*
 * Point-to-point semantics, one function per rule of the MPI standard, each
 * asserting exactly what the standard says (and nothing it leaves open), so
 * that the same program passes on the plain MPIs and must pass under wisp's
 * point-to-point engine. Runs on 2 or more processes; pair rules use the
 * pairs (r, r + n/2) (across virtual nodes of n/2) or, for an odd count,
 * (0, 1), (2, 3), ... with the last rank idle.
 *
 * usage: p2p_semantics [all | rule...]   e.g. p2p_semantics cancel ssend
 *
 * Rank 0 prints one line per rule; the exit status is non-zero if any failed.
 * A rule that hangs is reported by a watchdog, naming the rule.
 */
#include <mpi.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h" /* tests/check.h */
#include "int_handles.h"

enum { WATCHDOG_S = 60 };

static int rank, size;
static int peer = -1;  /* partner in pair rules, -1: none */
static int am_a;       /* the lower rank of the pair: usually the sender */
static MPI_Comm ctl;   /* handshakes, apart from the traffic under test */
static MPI_Comm tcomm; /* a fresh duplicate of MPI_COMM_WORLD for each rule */
static volatile sig_atomic_t current_rule;

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* A zero-byte handshake on ctl. */
static void notify(int to, int tag)
{
    MPI_Send(NULL, 0, MPI_BYTE, to, tag, ctl);
}

static void await_note(int from, int tag)
{
    MPI_Recv(NULL, 0, MPI_BYTE, from, tag, ctl, MPI_STATUS_IGNORE);
}

static int count_of(const MPI_Status *st, MPI_Datatype type)
{
    int n = -2;
    MPI_Get_count(st, type, &n);
    return n;
}

static int elements_of(const MPI_Status *st, MPI_Datatype type)
{
    int n = -2;
    MPI_Get_elements(st, type, &n);
    return n;
}

static int cancelled(const MPI_Status *st)
{
    int flag = -1;
    MPI_Test_cancelled(st, &flag);
    return flag;
}

/* What a receive from MPI_PROC_NULL returns. */
static int is_proc_null_status(const MPI_Status *st)
{
    return st->MPI_SOURCE == MPI_PROC_NULL && st->MPI_TAG == MPI_ANY_TAG &&
           count_of(st, MPI_BYTE) == 0 && count_of(st, MPI_INT) == 0 && !cancelled(st);
}

/* The same for a nonblocking or persistent receive from MPI_PROC_NULL.
 * MPICH 4.0.2 returns source 0 and tag 0 there (its MPI_Recv is right), so
 * on MPICH only the count is checked. */
static int is_proc_null_status_nb(const MPI_Status *st)
{
#ifdef MPICH_VERSION
    return count_of(st, MPI_BYTE) == 0 && !cancelled(st);
#else
    return is_proc_null_status(st);
#endif
}

/* The "empty" status of MPI_REQUEST_NULL and inactive persistent requests. */
static int is_empty_status(const MPI_Status *st)
{
    return st->MPI_SOURCE == MPI_ANY_SOURCE && st->MPI_TAG == MPI_ANY_TAG &&
           count_of(st, MPI_BYTE) == 0 && !cancelled(st);
}

static void garble(MPI_Status *st, int n)
{
    memset(st, 0x5a,
           (size_t)n * sizeof *st); /* fields the MPI must set are not left as they were */
}

static int error_class(int rc)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    return cls;
}

/* Message seq of a sequence: every int says (seq, index). */
static void seq_fill(int *buf, int n, int seq)
{
    for (int k = 0; k < n; k++)
        buf[k] = seq * 7919 + k;
}

static int seq_ok(const int *buf, int n, int seq)
{
    for (int k = 0; k < n; k++)
        if (buf[k] != seq * 7919 + k)
            return 0;
    return 1;
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "p2p_semantics: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

/* MPI_Waitall without statuses, through a real array: GCC warns about
 * MPICH's MPI_STATUSES_IGNORE, (MPI_Status *)1, for an array argument. */
static int wait_all(int n, MPI_Request *req)
{
    MPI_Status *st = xmalloc((size_t)n * sizeof *st);
    int rc = MPI_Waitall(n, req, st);
    free(st);
    return rc;
}

/* ---------------------------------------------------------------- ordering */

/* 50 small, one big, 50 small, an empty one and a last one. */
enum { SEQ_N = 103, SEQ_BIG = 50, SEQ_EMPTY = 101, BIG_INTS = 512 * 1024 };

static int seq_len(int i)
{
    return i == SEQ_BIG ? BIG_INTS : i == SEQ_EMPTY ? 0 : i == SEQ_N - 1 ? 3 : 2;
}

static int seq_tag(int i, int varied)
{
    return varied ? i % 3 : 7;
}

typedef struct {
    int *buf[SEQ_N];
    MPI_Request req[SEQ_N];
} seq_t;

static void seq_send_start(seq_t *s, int to, int varied, int blocking, MPI_Comm comm)
{
    for (int i = 0; i < SEQ_N; i++) {
        s->buf[i] = xmalloc((size_t)seq_len(i) * sizeof(int));
        seq_fill(s->buf[i], seq_len(i), i);
        s->req[i] = MPI_REQUEST_NULL;
        if (blocking && i != SEQ_BIG) /* the big one stays in flight while small ones follow */
            CHECK(MPI_Send(s->buf[i], seq_len(i), MPI_INT, to, seq_tag(i, varied), comm) ==
                  MPI_SUCCESS);
        else
            CHECK(MPI_Isend(s->buf[i], seq_len(i), MPI_INT, to, seq_tag(i, varied), comm,
                            &s->req[i]) == MPI_SUCCESS);
    }
}

static void seq_send_finish(seq_t *s)
{
    MPI_Status st[SEQ_N];
    CHECK(MPI_Waitall(SEQ_N, s->req, st) == MPI_SUCCESS);
    for (int i = 0; i < SEQ_N; i++)
        free(s->buf[i]);
}

/* Receive i must get message i. Receives have room for their own message
 * plus a little, so a wrong match shows as a truncation or a bad count. */
static void seq_check_recv(int i, const int *buf, const MPI_Status *st, int from, int varied)
{
    CHECK(st->MPI_SOURCE == from);
    CHECK(st->MPI_TAG == seq_tag(i, varied));
    CHECK(count_of(st, MPI_INT) == seq_len(i));
    CHECK(seq_ok(buf, seq_len(i), i));
}

static void seq_recv_blocking(int from, int src_arg, int varied, int tag_arg, MPI_Comm comm)
{
    int *buf = xmalloc((BIG_INTS + 4) * sizeof(int));
    for (int i = 0; i < SEQ_N; i++) {
        MPI_Status st;
        garble(&st, 1);
        int rc = MPI_Recv(buf, seq_len(i) + 4, MPI_INT, src_arg, tag_arg, comm, &st);
        CHECK(rc == MPI_SUCCESS);
        if (rc == MPI_SUCCESS)
            seq_check_recv(i, buf, &st, from, varied);
    }
    free(buf);
}

/* Post all receives, odd ones with MPI_ANY_TAG, then (caller) let the sender go. */
static void seq_recv_post(seq_t *s, int from, int varied, MPI_Comm comm)
{
    for (int i = 0; i < SEQ_N; i++) {
        s->buf[i] = xmalloc((size_t)(seq_len(i) + 4) * sizeof(int));
        int tag = i % 2 ? MPI_ANY_TAG : seq_tag(i, varied);
        CHECK(MPI_Irecv(s->buf[i], seq_len(i) + 4, MPI_INT, from, tag, comm, &s->req[i]) ==
              MPI_SUCCESS);
    }
}

static void seq_recv_finish(seq_t *s, int from, int varied)
{
    MPI_Status st[SEQ_N];
    garble(st, SEQ_N);
    CHECK(MPI_Waitall(SEQ_N, s->req, st) == MPI_SUCCESS);
    for (int i = 0; i < SEQ_N; i++) {
        seq_check_recv(i, s->buf[i], &st[i], from, varied);
        free(s->buf[i]);
    }
}

static void rule_nonovertaking(void)
{
    if (peer < 0)
        return;
    MPI_Comm comm = tcomm;
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    seq_t s;
    /* 1. Blocking sends, same tag, specific receives, on MPI_COMM_WORLD. */
    if (am_a) {
        seq_send_start(&s, peer, 0, 1, MPI_COMM_WORLD);
        seq_send_finish(&s);
    } else {
        seq_recv_blocking(peer, peer, 0, 7, MPI_COMM_WORLD);
    }
    /* 2. Varied tags received with MPI_ANY_TAG (and MPI_ANY_SOURCE: only the
     * partner sends to this rank on comm). */
    if (am_a) {
        seq_send_start(&s, peer, 1, 0, comm);
        seq_send_finish(&s);
    } else {
        seq_recv_blocking(peer, MPI_ANY_SOURCE, 1, MPI_ANY_TAG, comm);
    }
    /* 3. Receives posted before the messages are sent. */
    if (am_a) {
        await_note(peer, 1);
        seq_send_start(&s, peer, 1, 0, comm);
        seq_send_finish(&s);
    } else {
        seq_recv_post(&s, peer, 1, comm);
        notify(peer, 1);
        seq_recv_finish(&s, peer, 1);
    }
    /* 4. Messages sent before the receives are posted (unexpected ones). */
    if (am_a) {
        seq_send_start(&s, peer, 1, 0, comm);
        notify(peer, 2);
        seq_send_finish(&s);
    } else {
        await_note(peer, 2);
        sleep_ms(5); /* let the small ones arrive first */
        seq_recv_post(&s, peer, 1, comm);
        seq_recv_finish(&s, peer, 1);
    }
    /* 5. Receives posted in succession that match the same message: the
     * first posted gets the first message, whatever its pattern; a wildcard
     * posted before a specific receive takes precedence. */
    for (int unexpected = 0; unexpected < 2; unexpected++) {
        int data[4][2];
        MPI_Request req[4];
        MPI_Status st[4];
        if (am_a) {
            if (!unexpected)
                await_note(peer, 3);
            static const int tags[4] = {3, 3, 9, 3};
            for (int i = 0; i < 4; i++) {
                seq_fill(data[i], 2, i);
                MPI_Isend(data[i], 2, MPI_INT, peer, tags[i], comm, &req[i]);
            }
            if (unexpected)
                notify(peer, 3);
            CHECK(MPI_Waitall(4, req, st) == MPI_SUCCESS);
        } else {
            if (unexpected)
                await_note(peer, 3);
            MPI_Irecv(data[0], 2, MPI_INT, MPI_ANY_SOURCE, 3, comm, &req[0]);
            MPI_Irecv(data[1], 2, MPI_INT, peer, 9, comm, &req[1]);
            MPI_Irecv(data[2], 2, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &req[2]);
            MPI_Irecv(data[3], 2, MPI_INT, peer, 3, comm, &req[3]);
            if (!unexpected)
                notify(peer, 3);
            garble(st, 4);
            CHECK(MPI_Waitall(4, req, st) == MPI_SUCCESS);
            /* messages: 0 (tag 3), 1 (tag 3), 2 (tag 9), 3 (tag 3) */
            CHECK(seq_ok(data[0], 2, 0) && st[0].MPI_TAG == 3);
            CHECK(seq_ok(data[1], 2, 2) && st[1].MPI_TAG == 9);
            CHECK(seq_ok(data[2], 2, 1) && st[2].MPI_TAG == 3);
            CHECK(seq_ok(data[3], 2, 3) && st[3].MPI_TAG == 3);
            for (int i = 0; i < 4; i++)
                CHECK(st[i].MPI_SOURCE == peer);
        }
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* ANY_SOURCE from every rank at once: per-sender order holds, the status
 * names the sender and the tag. */
enum { FANIN_N = 30, FANIN_BIG = 10, FANIN_BIG_INTS = 64 * 1024 };

static int fanin_len(int i)
{
    return i == FANIN_BIG ? FANIN_BIG_INTS : i % 5;
}

/* A receive from one source, posted after a wildcard receive that its
 * message does not match, gets that message even while the wildcard still
 * waits: here its sender waits in MPI_Ssend before it sends what the
 * wildcard takes (with virtual nodes of n/2 the sender is on another node). */
static void rule_held_behind_wildcard(void)
{
    MPI_Comm comm = tcomm;
    int last = size - 1;
    if (rank == last) {
        int first = 6, second = 5;
        await_note(0, 11);
        CHECK(MPI_Ssend(&first, 1, MPI_INT, 0, 6, comm) == MPI_SUCCESS);
        CHECK(MPI_Send(&second, 1, MPI_INT, 0, 5, comm) == MPI_SUCCESS);
    } else if (rank == 0) {
        int wild = -1, specific = -1;
        MPI_Request req[2];
        MPI_Status st[2];
        MPI_Irecv(&wild, 1, MPI_INT, MPI_ANY_SOURCE, 5, comm, &req[0]);
        MPI_Irecv(&specific, 1, MPI_INT, last, MPI_ANY_TAG, comm, &req[1]);
        notify(last, 11);
        CHECK(MPI_Waitall(2, req, st) == MPI_SUCCESS);
        CHECK(wild == 5 && st[0].MPI_SOURCE == last && st[0].MPI_TAG == 5);
        CHECK(specific == 6 && st[1].MPI_SOURCE == last && st[1].MPI_TAG == 6);
    }
}

/* Several wildcard receives of different patterns and a later specific
 * one, polled with MPI_Testany while their messages come (from another node
 * under virtual nodes of n/2, where one look at the MPI serves the patterns
 * it covers): each message goes to the first posted receive it matches. */
static void rule_wildcards_polled(void)
{
    MPI_Comm comm = tcomm;
    int last = size - 1;
    static const int tags[4] = {2, 1, 1, 3};
    for (int unexpected = 0; unexpected < 2 && rank == last; unexpected++) {
        if (!unexpected)
            await_note(0, 12);
        for (int i = 0; i < 4; i++)
            CHECK(MPI_Send(&i, 1, MPI_INT, 0, tags[i], comm) == MPI_SUCCESS);
        if (unexpected)
            notify(0, 12);
    }
    for (int unexpected = 0; unexpected < 2 && rank == 0; unexpected++) {
        int got[4] = {-1, -1, -1, -1}, left = 4;
        MPI_Request req[4];
        MPI_Status st[4];
        if (unexpected)
            await_note(last, 12);
        MPI_Irecv(&got[0], 1, MPI_INT, MPI_ANY_SOURCE, 1, comm, &req[0]);
        MPI_Irecv(&got[1], 1, MPI_INT, MPI_ANY_SOURCE, 2, comm, &req[1]);
        MPI_Irecv(&got[2], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &req[2]);
        MPI_Irecv(&got[3], 1, MPI_INT, last, MPI_ANY_TAG, comm, &req[3]);
        if (!unexpected)
            notify(last, 12);
        while (left) {
            int index = -5, flag = 0;
            MPI_Status s;
            CHECK(MPI_Testany(4, req, &index, &flag, &s) == MPI_SUCCESS);
            if (!flag)
                continue;
            CHECK(index >= 0 && index < 4 && req[index] == MPI_REQUEST_NULL);
            if (index >= 0 && index < 4)
                st[index] = s;
            left--;
        }
        /* messages: 0 (tag 2), 1 (tag 1), 2 (tag 1), 3 (tag 3) */
        CHECK(got[0] == 1 && st[0].MPI_TAG == 1);
        CHECK(got[1] == 0 && st[1].MPI_TAG == 2);
        CHECK(got[2] == 2 && st[2].MPI_TAG == 1);
        CHECK(got[3] == 3 && st[3].MPI_TAG == 3);
        for (int i = 0; i < 4; i++)
            CHECK(st[i].MPI_SOURCE == last);
    }
}

/* A pending wildcard receive and a blocking collective: the wildcard's
 * message from another node must arrive while the receiver sits in the
 * collective (its sender waits for it, rendezvous-sized, before it joins);
 * order against a later specific receive holds; a wildcard the collective
 * did not satisfy still takes a local message sent before the collective
 * and a remote one sent after it. */
static void rule_wildcard_collective(void)
{
    MPI_Comm comm = tcomm;
    enum { BIG = 1 << 20 };
    if (peer >= 0) {
        int *big = xmalloc(BIG * sizeof(int));
        if (am_a) {
            MPI_Request r[2];
            MPI_Status st[2];
            int first = -1, second = -1;
            MPI_Irecv(big, BIG, MPI_INT, MPI_ANY_SOURCE, 1, comm, &r[0]);
            MPI_Barrier(comm);
            CHECK(MPI_Wait(&r[0], &st[0]) == MPI_SUCCESS);
            CHECK(st[0].MPI_SOURCE == peer && seq_ok(big, BIG, peer));
            /* The wildcard first, then the specific one: in posting order. */
            MPI_Irecv(&first, 1, MPI_INT, MPI_ANY_SOURCE, 2, comm, &r[0]);
            MPI_Irecv(&second, 1, MPI_INT, peer, 2, comm, &r[1]);
            int one = 1;
            MPI_Allreduce(MPI_IN_PLACE, &one, 1, MPI_INT, MPI_SUM, comm);
            CHECK(one == size);
            CHECK(MPI_Waitall(2, r, st) == MPI_SUCCESS && first == 1 && second == 2);
        } else {
            seq_fill(big, BIG, rank);
            MPI_Send(big, BIG, MPI_INT, peer, 1, comm);
            MPI_Barrier(comm);
            int one = 1, two = 2;
            MPI_Send(&one, 1, MPI_INT, peer, 2, comm);
            MPI_Send(&two, 1, MPI_INT, peer, 2, comm);
            MPI_Allreduce(MPI_IN_PLACE, &one, 1, MPI_INT, MPI_SUM, comm);
            CHECK(one == size);
        }
        free(big);
    } else {
        int one = 1;
        MPI_Barrier(comm);
        MPI_Allreduce(MPI_IN_PLACE, &one, 1, MPI_INT, MPI_SUM, comm);
    }
    /* Around the ring (local and remote neighbours under virtual nodes): one
     * message sent before the collective, one after. */
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int in[2] = {-1, -1}, out[2] = {rank, rank + 1000};
    MPI_Request r[3];
    MPI_Status st[2];
    MPI_Irecv(&in[0], 1, MPI_INT, MPI_ANY_SOURCE, 3, comm, &r[0]);
    MPI_Irecv(&in[1], 1, MPI_INT, MPI_ANY_SOURCE, 4, comm, &r[1]);
    MPI_Isend(&out[0], 1, MPI_INT, next, 3, comm, &r[2]);
    double sum = rank;
    MPI_Bcast(&sum, 1, MPI_DOUBLE, 0, comm);
    CHECK(sum == 0);
    MPI_Send(&out[1], 1, MPI_INT, next, 4, comm);
    CHECK(MPI_Wait(&r[2], MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(MPI_Waitall(2, r, st) == MPI_SUCCESS);
    CHECK(in[0] == prev && in[1] == prev + 1000);
    CHECK(st[0].MPI_SOURCE == prev && st[1].MPI_SOURCE == prev);
}

/* How the pair's sender makes the synchronous send of standard_then_sync. */
enum sync_how {
    SYNC_BLOCKING, /* MPI_Ssend, before it joins the collective */
    SYNC_AFTER,    /* MPI_Issend, waited for after the collective */
    SYNC_PATIENT,  /* MPI_Issend, tested for up to 200 ms before it joins (time
                    * for the receiver to hand the first message back and
                    * forward this one), then waited for */
};

/* A standard message of n ints (pattern v) and then a synchronous one of
 * one int, from the pair's sender, for two wildcard receives with `tag`
 * that the receiver posts before a barrier, where they are lent to the MPI
 * (the sender sends once the receiver sits in it): each receive gets its
 * message, in order. `big` holds n ints. */
static void standard_then_sync(MPI_Comm comm, int *big, int n, int v, int tag, enum sync_how how)
{
    int second = -1, value = 56 + tag;
    MPI_Request r[2];
    MPI_Status st[2];
    if (peer >= 0 && am_a) {
        memset(big, 0, (size_t)n * sizeof(int));
        MPI_Irecv(big, n, MPI_INT, MPI_ANY_SOURCE, tag, comm, &r[0]);
        MPI_Irecv(&second, 1, MPI_INT, MPI_ANY_SOURCE, tag, comm, &r[1]);
        notify(peer, 40 + tag); /* from here to the collective: no MPI call of ours */
        MPI_Barrier(comm);
        CHECK(MPI_Waitall(2, r, st) == MPI_SUCCESS);
        CHECK(st[0].MPI_SOURCE == peer && count_of(&st[0], MPI_INT) == n && seq_ok(big, n, v));
        CHECK(st[1].MPI_SOURCE == peer && count_of(&st[1], MPI_INT) == 1 && second == value);
    } else if (peer >= 0) {
        seq_fill(big, n, v);
        await_note(peer, 40 + tag);
        sleep_ms(100); /* the receiver sits in the collective (however loaded the machine) */
        MPI_Send(big, n, MPI_INT, peer, tag, comm);
        if (how == SYNC_BLOCKING) {
            CHECK(MPI_Ssend(&value, 1, MPI_INT, peer, tag, comm) == MPI_SUCCESS);
            MPI_Barrier(comm);
            return;
        }
        int flag = 0;
        MPI_Issend(&value, 1, MPI_INT, peer, tag, comm, &r[0]);
        for (int k = 0; how == SYNC_PATIENT && k < 200 && !flag; k++) {
            MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE);
            sleep_ms(1);
        }
        MPI_Barrier(comm);
        CHECK(flag || MPI_Wait(&r[0], MPI_STATUS_IGNORE) == MPI_SUCCESS);
    } else {
        MPI_Barrier(comm);
    }
}

/* Synchronous sends from the receiver's node that must complete before
 * their sender joins the collective the receiver sits in with wildcard
 * receives posted (which wisp lends to the MPI there): blocking, small and
 * rendezvous-sized; two nonblocking ones taken in order by two wildcards;
 * one waited for only after the collective; and, with a third process, a
 * local and a remote message racing for two wildcards, or for a wildcard
 * during the collective and a receive after it: each taken once. */
static void rule_ssend_lent_wildcard(void)
{
    MPI_Comm comm = tcomm;
    enum { BIG = 1 << 18 };
    int *big = xmalloc(BIG * sizeof(int));
    static const int lens[2] = {1, BIG};
    for (int v = 0; v < 2; v++) {
        int n = lens[v];
        if (peer >= 0 && am_a) {
            MPI_Request r;
            MPI_Status st;
            memset(big, 0, (size_t)n * sizeof(int));
            MPI_Irecv(big, n, MPI_INT, MPI_ANY_SOURCE, 1, comm, &r);
            MPI_Barrier(comm);
            CHECK(MPI_Wait(&r, &st) == MPI_SUCCESS);
            CHECK(st.MPI_SOURCE == peer && count_of(&st, MPI_INT) == n && seq_ok(big, n, v));
        } else if (peer >= 0) {
            seq_fill(big, n, v);
            CHECK(MPI_Ssend(big, n, MPI_INT, peer, 1, comm) == MPI_SUCCESS);
            MPI_Barrier(comm);
        } else {
            MPI_Barrier(comm);
        }
    }
    int got[2] = {-1, -1}, out[2] = {1, 2};
    MPI_Request r[2];
    MPI_Status st[2];
    if (peer >= 0 && am_a) {
        MPI_Irecv(&got[0], 1, MPI_INT, MPI_ANY_SOURCE, 2, comm, &r[0]);
        MPI_Irecv(&got[1], 1, MPI_INT, MPI_ANY_SOURCE, 2, comm, &r[1]);
        MPI_Barrier(comm);
        CHECK(wait_all(2, r) == MPI_SUCCESS && got[0] == 1 && got[1] == 2);
        MPI_Irecv(&got[0], 1, MPI_INT, MPI_ANY_SOURCE, 3, comm, &r[0]);
        MPI_Barrier(comm);
        CHECK(MPI_Wait(&r[0], &st[0]) == MPI_SUCCESS && got[0] == 3 && st[0].MPI_SOURCE == peer);
    } else if (peer >= 0) {
        MPI_Issend(&out[0], 1, MPI_INT, peer, 2, comm, &r[0]);
        MPI_Issend(&out[1], 1, MPI_INT, peer, 2, comm, &r[1]);
        CHECK(wait_all(2, r) == MPI_SUCCESS);
        MPI_Barrier(comm);
        int three = 3;
        MPI_Issend(&three, 1, MPI_INT, peer, 3, comm, &r[0]);
        MPI_Barrier(comm);
        CHECK(MPI_Wait(&r[0], MPI_STATUS_IGNORE) == MPI_SUCCESS);
    } else {
        MPI_Barrier(comm);
        MPI_Barrier(comm);
    }
    /* Rank 0, its partner (synchronous) and the last rank (standard). */
    int partner = rank == 0 ? peer : -1, last = size - 1;
    MPI_Bcast(&partner, 1, MPI_INT, 0, comm);
    if (size >= 3 && partner != last && partner >= 0) {
        if (rank == 0) {
            MPI_Irecv(&got[0], 1, MPI_INT, MPI_ANY_SOURCE, 4, comm, &r[0]);
            MPI_Irecv(&got[1], 1, MPI_INT, MPI_ANY_SOURCE, 4, comm, &r[1]);
            MPI_Barrier(comm);
            CHECK(MPI_Waitall(2, r, st) == MPI_SUCCESS);
            CHECK(st[0].MPI_SOURCE != st[1].MPI_SOURCE);
            for (int k = 0; k < 2; k++)
                CHECK((st[k].MPI_SOURCE == partner || st[k].MPI_SOURCE == last) &&
                      got[k] == 100 + st[k].MPI_SOURCE);
        } else if (rank == partner) {
            int v = 100 + rank;
            CHECK(MPI_Ssend(&v, 1, MPI_INT, 0, 4, comm) == MPI_SUCCESS);
            MPI_Barrier(comm);
        } else if (rank == last) {
            int v = 100 + rank;
            MPI_Send(&v, 1, MPI_INT, 0, 4, comm);
            MPI_Barrier(comm);
        } else {
            MPI_Barrier(comm);
        }
        /* The remote message likely takes the wildcard; the local one,
         * sent while the receiver sits in the collective and tested before
         * the sender joins it, goes to a receive posted afterwards. */
        if (rank == 0) {
            MPI_Irecv(&got[0], 1, MPI_INT, MPI_ANY_SOURCE, 5, comm, &r[0]);
            MPI_Barrier(comm);
            CHECK(MPI_Wait(&r[0], &st[0]) == MPI_SUCCESS);
            CHECK(MPI_Recv(&got[1], 1, MPI_INT, MPI_ANY_SOURCE, 5, comm, &st[1]) == MPI_SUCCESS);
            CHECK(st[0].MPI_SOURCE != st[1].MPI_SOURCE);
            for (int k = 0; k < 2; k++)
                CHECK((st[k].MPI_SOURCE == partner || st[k].MPI_SOURCE == last) &&
                      got[k] == 200 + st[k].MPI_SOURCE);
        } else if (rank == partner) {
            int v = 200 + rank, flag = 0;
            await_note(last, 5);
            MPI_Issend(&v, 1, MPI_INT, 0, 5, comm, &r[0]);
            for (int k = 0; k < 20 && !flag; k++) {
                MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE);
                sleep_ms(1);
            }
            MPI_Barrier(comm);
            CHECK(flag || MPI_Wait(&r[0], MPI_STATUS_IGNORE) == MPI_SUCCESS);
        } else if (rank == last) {
            int v = 200 + rank;
            MPI_Send(&v, 1, MPI_INT, 0, 5, comm);
            notify(partner, 5);
            MPI_Barrier(comm);
        } else {
            MPI_Barrier(comm);
        }
        /* The remote message takes the first wildcard (in the MPI, before
         * the others come); the partner's first synchronous message then
         * belongs to a receive for the partner, posted after that wildcard,
         * which the receiver must give it while it sits in the collective
         * (before: it waited in the MPI, where no receive took it, and its
         * sender never joined: a hang). Whatever the order, each receive
         * completes; the partner's two messages in the order sent. */
        if (rank == 0) {
            int v[3] = {-1, -1, -1};
            MPI_Request w[3];
            MPI_Status wst[3];
            MPI_Irecv(&v[0], 1, MPI_INT, MPI_ANY_SOURCE, 7, comm, &w[0]);
            MPI_Irecv(&v[1], 1, MPI_INT, partner, 7, comm, &w[1]);
            MPI_Irecv(&v[2], 1, MPI_INT, MPI_ANY_SOURCE, 7, comm, &w[2]);
            MPI_Barrier(comm);
            CHECK(MPI_Waitall(3, w, wst) == MPI_SUCCESS);
            int next = 300; /* the partner's next message */
            for (int k = 0; k < 3; k++) {
                if (wst[k].MPI_SOURCE == partner) {
                    CHECK(v[k] == next + partner);
                    next += 100;
                } else {
                    CHECK(k != 1 && wst[k].MPI_SOURCE == last && v[k] == 300 + last);
                }
            }
            CHECK(next == 500);
        } else if (rank == partner) {
            int m2 = 300 + rank, m3 = 400 + rank;
            await_note(last, 7);
            sleep_ms(100); /* the first wildcard has the remote message by now */
            CHECK(MPI_Ssend(&m2, 1, MPI_INT, 0, 7, comm) == MPI_SUCCESS);
            CHECK(MPI_Ssend(&m3, 1, MPI_INT, 0, 7, comm) == MPI_SUCCESS);
            MPI_Barrier(comm);
        } else if (rank == last) {
            int x = 300 + rank;
            MPI_Send(&x, 1, MPI_INT, 0, 7, comm);
            notify(partner, 7);
            MPI_Barrier(comm);
        } else {
            MPI_Barrier(comm);
        }
    }
    /* A standard message and then a synchronous one of the partner, both
     * for wildcards lent meanwhile (the partner sends once the receiver
     * sits in the collective): the first, which the receiver holds, must
     * reach the MPI before the second (small, staged, larger than the
     * staging area, larger than the heap's partition in the staged test:
     * only a file in /dev/shm reaches the receiver's copy there). Last,
     * with MPI_Issend: the receiver may take both back after the
     * collective. */
    static const int firsts[5] = {1, 2048, 1 << 15, BIG, 1};
    for (int v = 0; v < 5; v++)
        standard_then_sync(comm, big, firsts[v], v, 6, v < 4 ? SYNC_BLOCKING : SYNC_AFTER);
    /* Many standard messages before the synchronous one (once more than
     * wisp handed back per synchronous message): all reach the MPI first. */
    enum { MANY = 12 };
    if (peer >= 0 && am_a) {
        int v[MANY + 1];
        MPI_Request w[MANY + 1];
        MPI_Status wst[MANY + 1];
        for (int k = 0; k <= MANY; k++)
            MPI_Irecv(&v[k], 1, MPI_INT, MPI_ANY_SOURCE, 9, comm, &w[k]);
        MPI_Barrier(comm);
        CHECK(MPI_Waitall(MANY + 1, w, wst) == MPI_SUCCESS);
        for (int k = 0; k <= MANY; k++)
            CHECK(v[k] == 900 + k && wst[k].MPI_SOURCE == peer);
    } else if (peer >= 0) {
        sleep_ms(100); /* the receiver sits in the collective */
        for (int k = 0; k < MANY; k++) {
            int x = 900 + k;
            MPI_Send(&x, 1, MPI_INT, peer, 9, comm);
        }
        int last_one = 900 + MANY;
        CHECK(MPI_Ssend(&last_one, 1, MPI_INT, peer, 9, comm) == MPI_SUCCESS);
        MPI_Barrier(comm);
    } else {
        MPI_Barrier(comm);
    }
    /* On a communicator that both free while the synchronous send and its
     * receive, a wildcard lent for the collective, are pending: the sender
     * waits for the send before it joins the collective, so it goes through
     * the MPI on the freed communicator (before: it did not, a hang). */
    MPI_Comm gone;
    MPI_Comm_dup(comm, &gone);
    if (peer >= 0 && am_a) {
        int v = -1;
        MPI_Status sst;
        MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 8, gone, &r[0]);
        MPI_Comm_free(&gone);
        MPI_Barrier(comm);
        CHECK(MPI_Wait(&r[0], &sst) == MPI_SUCCESS && v == 800 + peer && sst.MPI_SOURCE == peer);
    } else if (peer >= 0) {
        int v = 800 + rank;
        sleep_ms(100); /* the receiver sits in the collective */
        MPI_Issend(&v, 1, MPI_INT, peer, 8, gone, &r[0]);
        MPI_Comm_free(&gone);
        CHECK(MPI_Wait(&r[0], MPI_STATUS_IGNORE) == MPI_SUCCESS);
        MPI_Barrier(comm);
    } else {
        MPI_Comm_free(&gone);
        MPI_Barrier(comm);
    }
    free(big);
}

/* A standard message and then a nonblocking synchronous one, for two
 * wildcards lent to the MPI while the receiver sits in a collective; the
 * sender waits a while for the synchronous one, then joins: each receive
 * gets its message, in order, whether the synchronous one went through
 * the MPI (the first handed back to its sender before it) or stayed (the
 * first could not be handed back: mpi.p2p_semantics.np3.vnode2.no_shm_room,
 * where /dev/shm has no room for the file that reaches a 1 MiB copy). */
static void rule_lent_handback(void)
{
    enum { BIG = 1 << 18 };
    int *big = xmalloc(BIG * sizeof(int));
    static const int firsts[2] = {1, BIG};
    for (int v = 0; v < 2; v++)
        standard_then_sync(tcomm, big, firsts[v], v, 10, SYNC_PATIENT);
    free(big);
}

/* A probe does not see or take a message that an earlier wildcard receive
 * matches: both messages arrive while the receiver is away; the first is
 * the wildcard's. */
static void rule_probe_behind_wildcard(void)
{
    if (peer < 0)
        return;
    MPI_Comm comm = tcomm;
    if (am_a) {
        int w[4] = {0}, y[4] = {0}, flag = 0;
        MPI_Request r;
        MPI_Status st;
        MPI_Message m;
        MPI_Irecv(w, 4, MPI_INT, MPI_ANY_SOURCE, 5, comm, &r);
        notify(peer, 21);
        sleep_ms(300); /* both arrive while this process is outside MPI */
        while (!flag)
            MPI_Iprobe(peer, 5, comm, &flag, &st);
        CHECK(count_of(&st, MPI_INT) == 2);
        for (flag = 0; !flag;)
            MPI_Improbe(peer, 5, comm, &flag, &m, &st);
        CHECK(count_of(&st, MPI_INT) == 2);
        MPI_Mrecv(y, 4, MPI_INT, &m, &st);
        CHECK(y[0] == 2 && y[1] == 2 && count_of(&st, MPI_INT) == 2);
        MPI_Wait(&r, &st);
        CHECK(w[0] == 1 && count_of(&st, MPI_INT) == 1 && st.MPI_SOURCE == peer);
    } else {
        int one = 1, two[2] = {2, 2};
        await_note(peer, 21);
        MPI_Send(&one, 1, MPI_INT, peer, 5, comm);
        MPI_Send(two, 2, MPI_INT, peer, 5, comm);
    }
}

/* A wildcard receive waits for a remote sender, who sends a rendezvous-
 * sized message to it (its send completes only once the receiver's MPI
 * matched it) and then a small one on another communicator, which the
 * receiver polls for with MPI_Iprobe, then MPI_Test: the polls move the
 * MPI, which matches the wildcard (fuzz seed 179 spun forever so). */
static void rule_probe_polls_wildcard(void)
{
    enum { BIG = 1 << 18 };
    MPI_Comm other;
    MPI_Comm_dup(tcomm, &other);
    int *big = xmalloc(BIG * sizeof *big), small = 0;
    for (int by_test = 0; by_test < 2 && peer >= 0 && !am_a; by_test++) {
        MPI_Request r, sr = MPI_REQUEST_NULL;
        MPI_Status st;
        int flag = 0;
        small = 0;
        MPI_Irecv(big, BIG, MPI_INT, MPI_ANY_SOURCE, 7, tcomm, &r);
        if (by_test) /* a remote source: the MPI's own request */
            MPI_Irecv(&small, 1, MPI_INT, peer, 8, other, &sr);
        notify(peer, 22);
        while (!flag)
            CHECK((by_test ? MPI_Test(&sr, &flag, &st) : MPI_Iprobe(peer, 8, other, &flag, &st)) ==
                  MPI_SUCCESS);
        if (!by_test)
            MPI_Recv(&small, 1, MPI_INT, peer, 8, other, MPI_STATUS_IGNORE);
        CHECK(small == 8);
        MPI_Wait(&r, &st);
        CHECK(st.MPI_SOURCE == peer && count_of(&st, MPI_INT) == BIG && big[0] == 7 &&
              big[BIG - 1] == 7);
    }
    for (int round = 0; round < 2 && peer >= 0 && am_a; round++) {
        big[0] = big[BIG - 1] = 7;
        small = 8;
        await_note(peer, 22);
        MPI_Send(big, BIG, MPI_INT, peer, 7, tcomm);
        MPI_Send(&small, 1, MPI_INT, peer, 8, other);
    }
    free(big);
    MPI_Comm_free(&other);
}

/* Wildcards lent to the MPI for a collective come back in reverse order:
 * one back first must not take a later message while an earlier one that
 * it matches waits for the receive still lent (fuzz seed 199). Rank 1
 * sends two messages of tag 0 and a synchronous one of tag 1 to rank 0,
 * whose receives (any source, tag 0) and (any source, any tag) are lent
 * during the barrier: the first takes the first message, the second the
 * second, and the synchronous one waits for its own receive. Rank 0's
 * rescuer takes the messages in during the barrier (a send of its own is
 * under way: it looks), which the last rank enters late. */
static void rule_unlend_order(void)
{
    enum { BIG = 32 << 10 };
    MPI_Comm comm = tcomm;
    int *big = xmalloc(BIG * sizeof *big);
    if (rank == 0 && size > 1) {
        int a = -1, b = -1, c = -1;
        MPI_Request r[3];
        MPI_Status st[3];
        MPI_Irecv(&a, 1, MPI_INT, MPI_ANY_SOURCE, 0, comm, &r[0]);
        MPI_Irecv(&b, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &r[1]);
        MPI_Isend(big, BIG, MPI_INT, 1, 5, comm, &r[2]);
        notify(1, 23);
        MPI_Barrier(comm);
        CHECK(MPI_Waitall(3, r, st) == MPI_SUCCESS);
        CHECK(a == 10 && b == 11 && st[1].MPI_TAG == 0 && st[1].MPI_SOURCE == 1);
        MPI_Recv(&c, 1, MPI_INT, 1, 1, comm, MPI_STATUS_IGNORE);
        CHECK(c == 12);
    } else if (rank == 1) {
        int v[3] = {10, 11, 12};
        MPI_Request r[3];
        MPI_Status st[3];
        await_note(0, 23);
        MPI_Isend(&v[0], 1, MPI_INT, 0, 0, comm, &r[0]);
        MPI_Isend(&v[1], 1, MPI_INT, 0, 0, comm, &r[1]);
        MPI_Issend(&v[2], 1, MPI_INT, 0, 1, comm, &r[2]);
        MPI_Barrier(comm);
        MPI_Recv(big, BIG, MPI_INT, 0, 5, comm, MPI_STATUS_IGNORE);
        CHECK(MPI_Waitall(3, r, st) == MPI_SUCCESS);
    } else {
        if (rank == size - 1)
            sleep_ms(300);
        MPI_Barrier(comm);
    }
    free(big);
}

/* Receives held behind a wildcard ask the MPI with probes of their own
 * patterns, one after the other. A sender's two messages that arrive
 * during the probe of an earlier receive, which matches both, are seen by
 * the probe of a later one, which matches only the second: that one must
 * still go to the later receive, the first to the earlier one (fuzz seed
 * 129: the earlier took the second). Rank 0 holds (any, 9), (peer, any)
 * and (any, 4) back and polls; the peer sends tags 2, 4 and 9. Many
 * rounds: the messages must arrive at the right moment. */
static void rule_claim_order(void)
{
    enum { ROUNDS = 300, BIG = 10000 }; /* rendezvous-sized, as in the seed */
    int *buf[3];
    for (int k = 0; k < 3; k++)
        buf[k] = xmalloc(BIG * sizeof(int));
    for (int round = 0; round < ROUNDS && peer >= 0; round++) {
        int tags[3] = {2, 4, 9};
        MPI_Request r[3];
        MPI_Status st[3];
        if (am_a) {
            await_note(peer, 24);
            for (int k = 0; k < 3; k++) {
                buf[k][0] = tags[k];
                MPI_Isend(buf[k], k < 2 ? BIG : 1, MPI_INT, peer, tags[k], tcomm, &r[k]);
            }
            CHECK(MPI_Waitall(3, r, st) == MPI_SUCCESS);
            continue;
        }
        int flag = 0;
        for (int k = 0; k < 3; k++)
            buf[k][0] = -1;
        MPI_Irecv(buf[2], 1, MPI_INT, MPI_ANY_SOURCE, 9, tcomm, &r[2]);
        MPI_Irecv(buf[0], BIG, MPI_INT, peer, MPI_ANY_TAG, tcomm, &r[0]);
        MPI_Irecv(buf[1], BIG, MPI_INT, MPI_ANY_SOURCE, 4, tcomm, &r[1]);
        notify(peer, 24);
        while (!flag)
            MPI_Test(&r[0], &flag, &st[0]);
        CHECK(buf[0][0] == 2 && st[0].MPI_TAG == 2);
        if (buf[0][0] != 2) { /* it took tag 4: (any, 4) would wait forever */
            fprintf(stderr, "claim_order: round %d: (%d, any) got tag %d\n", round, peer,
                    st[0].MPI_TAG);
            MPI_Recv(buf[0], BIG, MPI_INT, peer, 2, tcomm, MPI_STATUS_IGNORE);
            MPI_Cancel(&r[1]);
            MPI_Waitall(2, &r[1], &st[1]);
            continue;
        }
        CHECK(MPI_Waitall(2, &r[1], &st[1]) == MPI_SUCCESS);
        CHECK(buf[1][0] == 4 && buf[2][0] == 9);
    }
    for (int k = 0; k < 3; k++)
        free(buf[k]);
}

static void rule_any_source(void)
{
    MPI_Comm comm = tcomm;
    for (int variant = 0; variant < 3; variant++) {
        /* 0: blocking wildcard receives; 1: all posted first; 2: Mprobe */
        if (rank != 0) {
            int *buf[FANIN_N];
            MPI_Request req[FANIN_N];
            await_note(0, 10); /* rank 0 is done with the previous variant */
            for (int i = 0; i < FANIN_N; i++) {
                buf[i] = xmalloc((size_t)(fanin_len(i) + 1) * sizeof(int));
                seq_fill(buf[i], fanin_len(i) + 1, rank * 1000 + i); /* first int: who */
                MPI_Isend(buf[i], fanin_len(i) + 1, MPI_INT, 0, 100 + i % 2, comm, &req[i]);
            }
            CHECK(wait_all(FANIN_N, req) == MPI_SUCCESS);
            for (int i = 0; i < FANIN_N; i++)
                free(buf[i]);
            continue;
        }
        int total = FANIN_N * (size - 1), next[64] = {0};
        int **buf = xmalloc((size_t)total * sizeof *buf);
        MPI_Request *req = xmalloc((size_t)total * sizeof *req);
        MPI_Status *st = xmalloc((size_t)total * sizeof *st);
        garble(st, total);
        for (int k = 0; k < total; k++)
            buf[k] = xmalloc((FANIN_BIG_INTS + 1) * sizeof(int));
        if (variant != 1)
            for (int r = 1; r < size; r++)
                notify(r, 10);
        if (variant == 1) {
            for (int k = 0; k < total; k++)
                MPI_Irecv(buf[k], FANIN_BIG_INTS + 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm,
                          &req[k]);
            for (int r = 1; r < size; r++)
                notify(r, 10);
            CHECK(MPI_Waitall(total, req, st) == MPI_SUCCESS);
        } else {
            for (int k = 0; k < total; k++) {
                if (variant == 0) {
                    CHECK(MPI_Recv(buf[k], FANIN_BIG_INTS + 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
                                   comm, &st[k]) == MPI_SUCCESS);
                } else {
                    MPI_Message msg;
                    MPI_Status pst;
                    MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &msg, &pst);
                    MPI_Mrecv(buf[k], FANIN_BIG_INTS + 1, MPI_INT, &msg, &st[k]);
                    CHECK(pst.MPI_SOURCE == st[k].MPI_SOURCE && pst.MPI_TAG == st[k].MPI_TAG);
                    CHECK(count_of(&pst, MPI_INT) == count_of(&st[k], MPI_INT));
                }
            }
        }
        /* Check in completion order for blocking receives; for the posted
         * ones, in posting order (which is matching order per sender). */
        for (int k = 0; k < total; k++) {
            int src = st[k].MPI_SOURCE;
            CHECK(src >= 1 && src < size);
            if (src < 1 || src >= size)
                continue;
            int i = next[src]++;
            int n = count_of(&st[k], MPI_INT);
            CHECK(st[k].MPI_TAG == 100 + i % 2);
            CHECK(n == fanin_len(i) + 1);
            CHECK(n >= 1 && seq_ok(buf[k], n, src * 1000 + i));
        }
        for (int r = 1; r < size; r++)
            CHECK(next[r] == FANIN_N);
        for (int k = 0; k < total; k++)
            free(buf[k]);
        free(buf), free(req), free(st);
    }
}

/* Status fields: MPI_SOURCE, MPI_TAG, MPI_Get_count, MPI_Get_elements. */
static void rule_status(void)
{
    if (peer < 0)
        return;
    struct pair {
        int i;
        double d;
    } pairs[5];
    MPI_Datatype tpair, tpair_r, two_ints;
    int lens[2] = {1, 1};
    MPI_Aint disps[2] = {offsetof(struct pair, i), offsetof(struct pair, d)};
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Type_create_struct(2, lens, disps, types, &tpair_r);
    MPI_Type_create_resized(tpair_r, 0, sizeof(struct pair), &tpair);
    MPI_Type_commit(&tpair);
    MPI_Type_contiguous(2, MPI_INT, &two_ints);
    MPI_Type_commit(&two_ints);
    int ints[8];
    if (am_a) {
        for (int k = 0; k < 3; k++)
            pairs[k].i = k, pairs[k].d = k + 0.5;
        for (int k = 0; k < 8; k++)
            ints[k] = k * 3;
        MPI_Send(pairs, 3, tpair, peer, 21, MPI_COMM_WORLD);
        MPI_Send(ints, 7, MPI_INT, peer, 22, MPI_COMM_WORLD);
        MPI_Send(ints, 0, MPI_INT, peer, 23, MPI_COMM_WORLD);
        MPI_Send(ints, 1, MPI_INT, peer, 42, MPI_COMM_WORLD);
    } else {
        MPI_Status st;
        MPI_Count big = -1;
        garble(&st, 1);
        MPI_Recv(pairs, 5, tpair, peer, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == 21);
        CHECK(count_of(&st, tpair) == 3);
        CHECK(elements_of(&st, tpair) == 6); /* 3 ints and 3 doubles */
        MPI_Get_elements_x(&st, tpair, &big);
        CHECK(big == 6);
        for (int k = 0; k < 3; k++)
            CHECK(pairs[k].i == k && pairs[k].d == k + 0.5);
        garble(&st, 1);
        MPI_Recv(ints, 4, two_ints, MPI_ANY_SOURCE, 22, MPI_COMM_WORLD, &st);
        CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == 22);
        CHECK(count_of(&st, two_ints) == MPI_UNDEFINED); /* 7 ints: 3.5 elements */
        CHECK(elements_of(&st, two_ints) == 7);
        CHECK(count_of(&st, MPI_INT) == 7);
        for (int k = 0; k < 7; k++)
            CHECK(ints[k] == k * 3);
        garble(&st, 1);
        MPI_Recv(ints, 4, two_ints, peer, 23, MPI_COMM_WORLD, &st);
        CHECK(st.MPI_TAG == 23 && count_of(&st, two_ints) == 0 && elements_of(&st, two_ints) == 0);
        garble(&st, 1);
        MPI_Recv(ints, 8, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == 42 && count_of(&st, MPI_INT) == 1);
        CHECK(!cancelled(&st));
    }
    MPI_Type_free(&tpair_r);
    MPI_Type_free(&tpair);
    MPI_Type_free(&two_ints);
}

/* ------------------------------------------------------------------ probes */

static void rule_probe(void)
{
    if (peer < 0)
        return;
    MPI_Comm comm = tcomm;
    int a[20], b[20];
    enum { BIGP = 256 * 1024 };
    int *big = xmalloc(BIGP * sizeof(int));
    if (am_a) {
        MPI_Request req[5];
        seq_fill(a, 10, 1);
        seq_fill(b, 20, 2);
        seq_fill(big, BIGP, 3);
        MPI_Isend(a, 10, MPI_INT, peer, 1, comm, &req[0]);
        MPI_Isend(b, 20, MPI_INT, peer, 2, comm, &req[1]);
        MPI_Isend(a, 5, MPI_INT, peer, 5, comm, &req[2]);
        MPI_Isend(a, 4, MPI_INT, peer, 4, comm, &req[3]);
        MPI_Isend(big, BIGP, MPI_INT, peer, 6, comm, &req[4]);
        CHECK(wait_all(5, req) == MPI_SUCCESS);
    } else {
        MPI_Status st, st2;
        /* A probe for tag 2 skips the tag 1 message; probing does not consume. */
        MPI_Probe(peer, 2, comm, &st);
        CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == 2 && count_of(&st, MPI_INT) == 20);
        MPI_Probe(MPI_ANY_SOURCE, 2, comm, &st2);
        CHECK(st2.MPI_SOURCE == peer && st2.MPI_TAG == 2 && count_of(&st2, MPI_INT) == 20);
        int flag = 0;
        while (!flag)
            MPI_Iprobe(peer, 1, comm, &flag, &st);
        CHECK(st.MPI_TAG == 1 && count_of(&st, MPI_INT) == 10);
        /* With ANY_TAG the first message sent is the one probed. */
        MPI_Probe(peer, MPI_ANY_TAG, comm, &st);
        CHECK(st.MPI_TAG == 1);
        memset(b, 0, sizeof b);
        MPI_Recv(b, 20, MPI_INT, st2.MPI_SOURCE, st2.MPI_TAG, comm, &st);
        CHECK(st.MPI_TAG == 2 && seq_ok(b, 20, 2));
        MPI_Recv(a, 10, MPI_INT, peer, 1, comm, &st);
        CHECK(st.MPI_TAG == 1 && seq_ok(a, 10, 1));
        /* tag 5 was sent before tag 4 */
        MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st);
        CHECK(st.MPI_TAG == 5 && count_of(&st, MPI_INT) == 5);
        MPI_Recv(a, 5, MPI_INT, peer, 5, comm, &st);
        MPI_Recv(a, 4, MPI_INT, peer, 4, comm, &st);
        CHECK(st.MPI_TAG == 4 && count_of(&st, MPI_INT) == 4 && seq_ok(a, 4, 1));
        /* A big message is probed whole before it is received. */
        MPI_Probe(peer, 6, comm, &st);
        CHECK(count_of(&st, MPI_INT) == BIGP);
        memset(big, 0, BIGP * sizeof(int));
        MPI_Recv(big, BIGP, MPI_INT, peer, 6, comm, &st);
        CHECK(seq_ok(big, BIGP, 3));
        /* Nothing left. */
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &flag, &st);
        CHECK(!flag);
    }
    free(big);
}

static void rule_mprobe(void)
{
    MPI_Comm comm = tcomm;
    MPI_Message msg = MPI_MESSAGE_NULL, msg2 = MPI_MESSAGE_NULL;
    MPI_Status st, pst;
    int flag = 0, buf[16];
    /* MPI_PROC_NULL: the no-process message, which Mrecv/Imrecv accept. */
    garble(&st, 1);
    CHECK(MPI_Mprobe(MPI_PROC_NULL, 3, comm, &msg, &st) == MPI_SUCCESS);
    CHECK(msg == MPI_MESSAGE_NO_PROC && is_proc_null_status(&st));
    garble(&st, 1);
    CHECK(MPI_Mrecv(buf, 4, MPI_INT, &msg, &st) == MPI_SUCCESS);
    CHECK(msg == MPI_MESSAGE_NULL && is_proc_null_status(&st));
    garble(&st, 1);
    CHECK(MPI_Improbe(MPI_PROC_NULL, MPI_ANY_TAG, comm, &flag, &msg, &st) == MPI_SUCCESS);
    CHECK(flag && msg == MPI_MESSAGE_NO_PROC && is_proc_null_status(&st));
    MPI_Request req;
    CHECK(MPI_Imrecv(buf, 4, MPI_INT, &msg, &req) == MPI_SUCCESS);
    CHECK(msg == MPI_MESSAGE_NULL);
    garble(&st, 1);
    MPI_Wait(&req, &st);
    CHECK(is_proc_null_status(&st));
    /* Nothing is ever sent with this tag: Improbe says so. */
    MPI_Improbe(MPI_ANY_SOURCE, 12345, comm, &flag, &msg, &st);
    CHECK(!flag);

    if (peer >= 0) {
        enum { BIGM = 300000 };
        int *big = xmalloc(BIGM * sizeof(int));
        if (am_a) {
            MPI_Request r[3];
            int one[5], two[6];
            seq_fill(one, 5, 1);
            seq_fill(two, 6, 2);
            seq_fill(big, BIGM, 3);
            MPI_Isend(one, 5, MPI_INT, peer, 1, comm, &r[0]);
            MPI_Isend(two, 6, MPI_INT, peer, 1, comm, &r[1]);
            MPI_Isend(big, BIGM, MPI_INT, peer, 2, comm, &r[2]);
            wait_all(3, r);
        } else {
            /* A matched message is gone from matching: the next probe sees
             * the second one. */
            CHECK(MPI_Mprobe(MPI_ANY_SOURCE, 1, comm, &msg, &pst) == MPI_SUCCESS);
            CHECK(msg != MPI_MESSAGE_NULL && msg != MPI_MESSAGE_NO_PROC);
            CHECK(pst.MPI_SOURCE == peer && pst.MPI_TAG == 1 && count_of(&pst, MPI_INT) == 5);
            MPI_Probe(MPI_ANY_SOURCE, 1, comm, &st);
            CHECK(count_of(&st, MPI_INT) == 6);
            flag = 0;
            while (!flag)
                MPI_Improbe(peer, MPI_ANY_TAG, comm, &flag, &msg2, &st);
            CHECK(st.MPI_TAG == 1 && count_of(&st, MPI_INT) == 6);
            /* Received in the other order than matched. */
            memset(buf, 0, sizeof buf);
            garble(&st, 1);
            CHECK(MPI_Mrecv(buf, 16, MPI_INT, &msg2, &st) == MPI_SUCCESS);
            CHECK(msg2 == MPI_MESSAGE_NULL && seq_ok(buf, 6, 2) && count_of(&st, MPI_INT) == 6);
            CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == 1);
            memset(buf, 0, sizeof buf);
            MPI_Imrecv(buf, 16, MPI_INT, &msg, &req);
            CHECK(msg == MPI_MESSAGE_NULL);
            garble(&st, 1);
            MPI_Wait(&req, &st);
            CHECK(seq_ok(buf, 5, 1) && count_of(&st, MPI_INT) == 5 && st.MPI_SOURCE == peer);
            /* A big message, matched then received. */
            MPI_Mprobe(peer, 2, comm, &msg, &pst);
            CHECK(count_of(&pst, MPI_INT) == BIGM);
            memset(big, 0, BIGM * sizeof(int));
            MPI_Mrecv(big, BIGM, MPI_INT, &msg, &st);
            CHECK(seq_ok(big, BIGM, 3) && count_of(&st, MPI_INT) == BIGM);
            MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &flag, &st);
            CHECK(!flag);
        }
        free(big);
    }
}

/* ------------------------------------------------------------------ cancel */

static void rule_cancel(void)
{
    MPI_Comm comm = tcomm;
    MPI_Request req;
    MPI_Status st;
    int buf[8] = {0}, flag = 0;
    /* A receive that nothing matches is cancelled. */
    MPI_Irecv(buf, 8, MPI_INT, MPI_ANY_SOURCE, 999, comm, &req);
    MPI_Cancel(&req);
    garble(&st, 1);
    MPI_Wait(&req, &st);
    CHECK(req == MPI_REQUEST_NULL && cancelled(&st) == 1);
    /* The same through MPI_Test. */
    MPI_Irecv(buf, 8, MPI_INT, peer >= 0 ? peer : rank, 998, comm, &req);
    MPI_Cancel(&req);
    while (!flag)
        MPI_Test(&req, &flag, &st);
    CHECK(cancelled(&st) == 1);
    /* A persistent receive: cancelled, then started again and matched. */
    MPI_Request preq;
    MPI_Recv_init(buf, 8, MPI_INT, MPI_ANY_SOURCE, 997, comm, &preq);
    MPI_Start(&preq);
    MPI_Cancel(&preq);
    MPI_Wait(&preq, &st);
    CHECK(preq != MPI_REQUEST_NULL && cancelled(&st) == 1);

    if (peer >= 0) {
        if (am_a) {
            int data[8];
            seq_fill(data, 8, 5);
            await_note(peer, 1); /* its cancelled receives are gone */
            MPI_Send(data, 8, MPI_INT, peer, 999, comm);
            MPI_Send(data, 8, MPI_INT, peer, 997, comm);
            /* The receive for this one is posted, and Ssend returns only once
             * it is matched: then the peer cancels, too late. */
            await_note(peer, 2);
            MPI_Ssend(data, 8, MPI_INT, peer, 5, comm);
            notify(peer, 3);
        } else {
            notify(peer, 1);
            /* The message that the cancelled receive did not take is there. */
            memset(buf, 0, sizeof buf);
            MPI_Recv(buf, 8, MPI_INT, peer, 999, comm, &st);
            CHECK(seq_ok(buf, 8, 5) && !cancelled(&st));
            memset(buf, 0, sizeof buf);
            MPI_Start(&preq);
            MPI_Wait(&preq, &st);
            CHECK(seq_ok(buf, 8, 5) && !cancelled(&st) && st.MPI_TAG == 997);
            int got[8] = {0};
            MPI_Irecv(got, 8, MPI_INT, peer, 5, comm, &req);
            notify(peer, 2);
            await_note(peer, 3);
            MPI_Cancel(&req);
            garble(&st, 1);
            MPI_Wait(&req, &st);
            CHECK(cancelled(&st) == 0);
            CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == 5 && count_of(&st, MPI_INT) == 8);
            CHECK(seq_ok(got, 8, 5));
        }
    }
    MPI_Request_free(&preq);
    CHECK(preq == MPI_REQUEST_NULL);
}

/* ------------------------------------------------------------------- modes */

/* Synchronous sends complete only once the receive is posted. No timing is
 * asserted: the receiver posts only after the sender has seen MPI_Test
 * say "not complete", or it checks that the sender's "Ssend returned"
 * notice has not come before it posted. */
static void rule_ssend(void)
{
    MPI_Comm comm = tcomm;
    int *buf = xmalloc(300000 * sizeof(int));
    static const int lens[3] = {16, 0, 300000};
    for (int v = 0; v < 3 && peer >= 0; v++) {
        int n = lens[v], flag = 0;
        MPI_Request req;
        MPI_Status st;
        if (am_a) {
            seq_fill(buf, n, v);
            MPI_Issend(buf, n, MPI_INT, peer, 1, comm, &req);
            await_note(peer, 1); /* the message is visible at the peer */
            for (int k = 0; k < 10; k++) {
                MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
                CHECK(!flag);
                sleep_ms(1);
            }
            notify(peer, 2);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
            /* Blocking Ssend: "returned" is announced after it returns. */
            MPI_Ssend(buf, n, MPI_INT, peer, 2, comm);
            notify(peer, 3);
        } else {
            for (int k = 0; !flag; k++) {
                MPI_Iprobe(peer, 1, comm, &flag, &st);
                if (k > 10)
                    sleep_ms(1);
            }
            notify(peer, 1);
            await_note(peer, 2);
            memset(buf, 0, (size_t)n * sizeof(int));
            MPI_Recv(buf, n, MPI_INT, peer, 1, comm, &st);
            CHECK(count_of(&st, MPI_INT) == n && seq_ok(buf, n, v));
            flag = 0;
            for (int k = 0; !flag; k++) {
                MPI_Iprobe(peer, 2, comm, &flag, &st);
                if (k > 10)
                    sleep_ms(1);
            }
            for (int k = 0; k < 20; k++) {
                int early = 0;
                MPI_Iprobe(peer, 3, ctl, &early, MPI_STATUS_IGNORE);
                CHECK(!early);
                sleep_ms(1);
            }
            memset(buf, 0, (size_t)n * sizeof(int));
            MPI_Recv(buf, n, MPI_INT, peer, 2, comm, &st);
            CHECK(count_of(&st, MPI_INT) == n && seq_ok(buf, n, v));
            await_note(peer, 3);
        }
    }
    /* Issend to self: not complete until this process receives it. */
    MPI_Request req;
    int flag = 0, self[4] = {1, 2, 3, 4}, got[4] = {0};
    MPI_Issend(self, 4, MPI_INT, rank, 7, comm, &req);
    for (int k = 0; k < 5; k++) {
        MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
        CHECK(!flag);
    }
    MPI_Recv(got, 4, MPI_INT, rank, 7, comm, MPI_STATUS_IGNORE);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(got[0] == 1 && got[3] == 4);
    free(buf);
}

static void rule_bsend(void)
{
    MPI_Comm comm = tcomm;
    /* MIDB: above the engine's smallest single copy, within an immediate
     * message (the user's heap buffer was read after the send returned). */
    enum { SMALLB = 100, MIDB = 512, BIGB = 256 * 1024 };
    int attach_size = 12 * (SMALLB * 4 + MPI_BSEND_OVERHEAD) + 2 * (BIGB * 4 + MPI_BSEND_OVERHEAD) +
                      2 * (MIDB * 4 + MPI_BSEND_OVERHEAD) + 4 * MPI_BSEND_OVERHEAD + 64;
    char *attach = xmalloc((size_t)attach_size);
    MPI_Buffer_attach(attach, attach_size);
    int *buf = xmalloc(BIGB * sizeof(int));
    MPI_Status st;
    /* Buffered to self, received afterwards. */
    seq_fill(buf, SMALLB, 77);
    MPI_Bsend(buf, SMALLB, MPI_INT, rank, 9, comm);
    memset(buf, 0, SMALLB * sizeof(int));
    MPI_Recv(buf, SMALLB, MPI_INT, rank, 9, comm, &st);
    CHECK(seq_ok(buf, SMALLB, 77));
    if (peer >= 0 && am_a) {
        /* All complete locally before the peer posts anything; the user's
         * buffer is reused at once. */
        for (int i = 0; i < 10; i++) {
            seq_fill(buf, SMALLB, i);
            CHECK(MPI_Bsend(buf, SMALLB, MPI_INT, peer, 1, comm) == MPI_SUCCESS);
        }
        for (int i = 0; i < 2; i++) {
            seq_fill(buf, MIDB, 20 + i);
            CHECK(MPI_Bsend(buf, MIDB, MPI_INT, peer, 5, comm) == MPI_SUCCESS);
        }
        seq_fill(buf, BIGB, 10);
        CHECK(MPI_Bsend(buf, BIGB, MPI_INT, peer, 2, comm) == MPI_SUCCESS);
        memset(buf, 0, BIGB * sizeof(int));
        seq_fill(buf, BIGB, 11);
        MPI_Request req;
        MPI_Ibsend(buf, BIGB, MPI_INT, peer, 3, comm, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        memset(buf, 0, BIGB * sizeof(int));
        MPI_Bsend(buf, 0, MPI_INT, peer, 4, comm);
        notify(peer, 1);
    } else if (peer >= 0) {
        await_note(peer, 1);
        for (int i = 0; i < 10; i++) {
            MPI_Recv(buf, SMALLB, MPI_INT, peer, 1, comm, &st);
            CHECK(seq_ok(buf, SMALLB, i));
        }
        for (int i = 0; i < 2; i++) {
            MPI_Recv(buf, MIDB, MPI_INT, peer, 5, comm, &st);
            CHECK(seq_ok(buf, MIDB, 20 + i));
        }
        MPI_Recv(buf, BIGB, MPI_INT, peer, 2, comm, &st);
        CHECK(seq_ok(buf, BIGB, 10) && count_of(&st, MPI_INT) == BIGB);
        MPI_Recv(buf, BIGB, MPI_INT, peer, MPI_ANY_TAG, comm, &st);
        CHECK(seq_ok(buf, BIGB, 11) && st.MPI_TAG == 3);
        MPI_Recv(buf, BIGB, MPI_INT, MPI_ANY_SOURCE, 4, comm, &st);
        CHECK(count_of(&st, MPI_INT) == 0);
    }
    /* Detach waits for the buffered messages and gives the buffer back. */
    void *back = NULL;
    int back_size = 0;
    MPI_Buffer_detach(&back, &back_size);
    CHECK(back == attach && back_size == attach_size);
    free(attach);
    free(buf);
}

/* A persistent buffered send started again, once complete, sends the data
 * of that start, also while the last start's message is still in transit
 * (Open MPI 4.1.4 natively sent other data in fuzz seed 144 and in a
 * smaller program: docs/testing.md). wisp starts each round as a new
 * buffered send. */
static void rule_bsend_restart(void)
{
    enum { N = 4, COUNT = 16, ROUNDS = 200 };
    /* Room for every round: a round's messages may still be in transit when
     * the next one starts. */
    int attach_size = ROUNDS * N * (COUNT * 4 + MPI_BSEND_OVERHEAD) + 64;
    char *attach = xmalloc((size_t)attach_size);
    MPI_Buffer_attach(attach, attach_size);
    int buf[N][COUNT], bad = 0;
    MPI_Request q[N];
    MPI_Status st[N];
    for (int k = 0; k < N && peer >= 0; k++) {
        if (am_a)
            MPI_Bsend_init(buf[k], COUNT, MPI_INT, peer, k, tcomm, &q[k]);
        else
            MPI_Recv_init(buf[k], COUNT, MPI_INT, peer, k, tcomm, &q[k]);
    }
    for (int round = 0; round < ROUNDS && peer >= 0; round++) {
        for (int k = 0; k < N; k++) {
            if (am_a)
                seq_fill(buf[k], COUNT, round * N + k);
            MPI_Start(&q[k]);
        }
        CHECK(MPI_Waitall(N, q, st) == MPI_SUCCESS);
        for (int k = 0; k < N && !am_a; k++)
            bad += !seq_ok(buf[k], COUNT, round * N + k);
    }
    CHECK(bad == 0);
    for (int k = 0; k < N && peer >= 0; k++)
        MPI_Request_free(&q[k]);
    void *b;
    int n;
    MPI_Buffer_detach(&b, &n);
    free(attach);
}

static void rule_rsend(void)
{
    MPI_Comm comm = tcomm;
    enum { BIGR = 200000 };
    int *big = xmalloc(BIGR * sizeof(int)), small[10], tiny[5];
    MPI_Request req[3];
    MPI_Status st[3];
    if (peer >= 0 && !am_a) {
        MPI_Irecv(small, 10, MPI_INT, peer, 1, comm, &req[0]);
        MPI_Irecv(big, BIGR, MPI_INT, MPI_ANY_SOURCE, 2, comm, &req[1]);
        MPI_Irecv(tiny, 5, MPI_INT, peer, MPI_ANY_TAG, comm, &req[2]);
    }
    MPI_Barrier(MPI_COMM_WORLD); /* every ready-mode send below has its receive posted */
    if (peer >= 0 && am_a) {
        seq_fill(small, 10, 1);
        seq_fill(big, BIGR, 2);
        seq_fill(tiny, 5, 3);
        CHECK(MPI_Rsend(small, 10, MPI_INT, peer, 1, comm) == MPI_SUCCESS);
        CHECK(MPI_Rsend(big, BIGR, MPI_INT, peer, 2, comm) == MPI_SUCCESS);
        MPI_Irsend(tiny, 5, MPI_INT, peer, 3, comm, &req[0]);
        MPI_Wait(&req[0], MPI_STATUS_IGNORE);
    } else if (peer >= 0) {
        garble(st, 3);
        MPI_Waitall(3, req, st);
        CHECK(seq_ok(small, 10, 1) && seq_ok(big, BIGR, 2) && seq_ok(tiny, 5, 3));
        CHECK(st[1].MPI_SOURCE == peer && count_of(&st[1], MPI_INT) == BIGR);
        CHECK(st[2].MPI_TAG == 3);
    }
    free(big);
}

/* -------------------------------------------------------------- persistent */

static void rule_persistent(void)
{
    MPI_Comm comm = tcomm;
    enum { N = 64, ITER = 40, BIGP = 100000 };
    int attach_size = 2 * (N * 4 + MPI_BSEND_OVERHEAD);
    char *attach = xmalloc((size_t)attach_size);
    MPI_Buffer_attach(attach, attach_size);
    int *buf[5];
    for (int k = 0; k < 5; k++)
        buf[k] = xmalloc(BIGP * sizeof(int));
    MPI_Request req[5];
    MPI_Status st[5];
    if (peer >= 0) {
        if (am_a) {
            MPI_Send_init(buf[0], N, MPI_INT, peer, 0, comm, &req[0]);
            MPI_Ssend_init(buf[1], N, MPI_INT, peer, 1, comm, &req[1]);
            MPI_Bsend_init(buf[2], N, MPI_INT, peer, 2, comm, &req[2]);
            MPI_Rsend_init(buf[3], N, MPI_INT, peer, 3, comm, &req[3]);
            MPI_Send_init(buf[4], BIGP, MPI_INT, peer, 4, comm, &req[4]);
        } else {
            for (int k = 0; k < 4; k++)
                MPI_Recv_init(buf[k], N, MPI_INT, k % 2 ? MPI_ANY_SOURCE : peer, k, comm, &req[k]);
            /* Started last, so the specific ones take their messages first. */
            MPI_Recv_init(buf[4], BIGP, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &req[4]);
        }
        for (int it = 0; it < ITER; it++) {
            if (am_a) {
                await_note(peer, 1); /* the receives are started: ready mode is allowed */
                for (int k = 0; k < 5; k++)
                    seq_fill(buf[k], k == 4 ? BIGP : N, it * 5 + k);
                if (it % 2) {
                    MPI_Startall(5, req);
                } else {
                    for (int k = 4; k >= 0; k--)
                        MPI_Start(&req[k]);
                }
                CHECK(MPI_Waitall(5, req, st) == MPI_SUCCESS);
            } else {
                for (int k = 0; k < 5; k++)
                    memset(buf[k], 0, N * sizeof(int));
                if (it % 2)
                    MPI_Startall(5, req);
                else
                    for (int k = 0; k < 5; k++)
                        MPI_Start(&req[k]);
                notify(peer, 1);
                garble(st, 5);
                CHECK(MPI_Waitall(5, req, st) == MPI_SUCCESS);
                for (int k = 0; k < 5; k++) {
                    int n = k == 4 ? BIGP : N;
                    CHECK(seq_ok(buf[k], n, it * 5 + k));
                    CHECK(st[k].MPI_SOURCE == peer && st[k].MPI_TAG == k);
                    CHECK(count_of(&st[k], MPI_INT) == n);
                }
            }
            for (int k = 0; k < 5; k++)
                CHECK(req[k] != MPI_REQUEST_NULL); /* persistent requests stay */
        }
        /* Inactive persistent requests: Test and Wait return at once with an
         * empty status, and they can be freed. */
        int flag = 0;
        garble(st, 1);
        MPI_Test(&req[0], &flag, &st[0]);
        CHECK(flag && is_empty_status(&st[0]) && req[0] != MPI_REQUEST_NULL);
        garble(st, 1);
        MPI_Wait(&req[1], &st[0]);
        CHECK(is_empty_status(&st[0]) && req[1] != MPI_REQUEST_NULL);
        for (int k = 0; k < 5; k++) {
            MPI_Request_free(&req[k]);
            CHECK(req[k] == MPI_REQUEST_NULL);
        }
    }
    /* Persistent to and from MPI_PROC_NULL. */
    MPI_Send_init(buf[0], N, MPI_INT, MPI_PROC_NULL, 0, comm, &req[0]);
    MPI_Recv_init(buf[1], N, MPI_INT, MPI_PROC_NULL, 0, comm, &req[1]);
    for (int it = 0; it < 3; it++) {
        MPI_Startall(2, req);
        garble(st, 2);
        MPI_Waitall(2, req, st);
        CHECK(is_proc_null_status_nb(&st[1]));
    }
    MPI_Request_free(&req[0]);
    MPI_Request_free(&req[1]);
    /* A persistent send to self, started many times. */
    int one = 0, got = -1;
    MPI_Send_init(&one, 1, MPI_INT, rank, 5, comm, &req[0]);
    MPI_Recv_init(&got, 1, MPI_INT, MPI_ANY_SOURCE, 5, comm, &req[1]);
    for (int it = 0; it < 100; it++) {
        one = it;
        MPI_Start(&req[1]);
        MPI_Start(&req[0]);
        MPI_Waitall(2, req, st);
        CHECK(got == it && st[1].MPI_SOURCE == rank);
    }
    MPI_Request_free(&req[0]);
    MPI_Request_free(&req[1]);
    void *back;
    int back_size;
    MPI_Buffer_detach(&back, &back_size);
    free(attach);
    for (int k = 0; k < 5; k++)
        free(buf[k]);
}

/* ---------------------------------------------------------------- sendrecv */

static void rule_sendrecv(void)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int out[10], in[20];
    MPI_Status st;
    seq_fill(out, 10, rank);
    garble(&st, 1);
    MPI_Sendrecv(out, 10, MPI_INT, next, rank, in, 20, MPI_INT, prev, MPI_ANY_TAG, MPI_COMM_WORLD,
                 &st);
    CHECK(st.MPI_SOURCE == prev && st.MPI_TAG == prev && count_of(&st, MPI_INT) == 10);
    CHECK(seq_ok(in, 10, prev));
    garble(&st, 1);
    MPI_Sendrecv(out, 3, MPI_INT, next, 5, in, 20, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &st);
    CHECK(st.MPI_SOURCE == prev && count_of(&st, MPI_INT) == 3 && seq_ok(in, 3, prev));
    /* With self. */
    MPI_Sendrecv(out, 10, MPI_INT, rank, 6, in, 20, MPI_INT, rank, 6, MPI_COMM_WORLD, &st);
    CHECK(st.MPI_SOURCE == rank && seq_ok(in, 10, rank));
    /* Replace, contiguous. */
    int rep[100];
    seq_fill(rep, 100, rank);
    MPI_Sendrecv_replace(rep, 100, MPI_INT, next, 7, prev, 7, MPI_COMM_WORLD, &st);
    CHECK(seq_ok(rep, 100, prev) && count_of(&st, MPI_INT) == 100);
    /* Replace with a vector: only the type's elements move, the gaps stay. */
    double v[16];
    MPI_Datatype vec;
    MPI_Type_vector(8, 1, 2, MPI_DOUBLE, &vec);
    MPI_Type_commit(&vec);
    for (int k = 0; k < 16; k++)
        v[k] = k % 2 ? -1.0 - k : rank * 100 + k;
    MPI_Sendrecv_replace(v, 1, vec, next, 8, MPI_ANY_SOURCE, 8, MPI_COMM_WORLD, &st);
    for (int k = 0; k < 16; k++)
        CHECK(v[k] == (k % 2 ? -1.0 - k : prev * 100 + k));
    CHECK(elements_of(&st, vec) == 8 && count_of(&st, vec) == 1);
    MPI_Type_free(&vec);
    /* A big one around the ring. */
    enum { BIGS = 1 << 20 };
    int *big = xmalloc(BIGS * sizeof(int)), *bigin = xmalloc(BIGS * sizeof(int));
    seq_fill(big, BIGS, rank + 50);
    MPI_Sendrecv(big, BIGS, MPI_INT, next, 9, bigin, BIGS, MPI_INT, prev, 9, MPI_COMM_WORLD, &st);
    CHECK(seq_ok(bigin, BIGS, prev + 50));
    MPI_Sendrecv_replace(big, BIGS, MPI_INT, next, 10, prev, 10, MPI_COMM_WORLD, &st);
    CHECK(seq_ok(big, BIGS, prev + 50));
    free(big);
    free(bigin);
}

/* MPI-4's nonblocking sendrecv: the peer may match with plain receives and
 * sends, both halves progress together, the status is the receive's. */
static void rule_isendrecv(void)
{
#if MPI_VERSION >= 4
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int out[10], in[20];
    MPI_Status st;
    MPI_Request r;
    if (peer >= 0) { /* the pair: one side Isendrecv, the other Recv then Send */
        seq_fill(out, 10, rank);
        if (am_a) {
            MPI_Isendrecv(out, 10, MPI_INT, peer, 1, in, 20, MPI_INT, peer, 2, tcomm, &r);
            garble(&st, 1);
            MPI_Wait(&r, &st);
            CHECK(r == MPI_REQUEST_NULL && st.MPI_SOURCE == peer && st.MPI_TAG == 2);
            CHECK(count_of(&st, MPI_INT) == 10 && seq_ok(in, 10, peer));
        } else {
            MPI_Recv(in, 20, MPI_INT, peer, 1, tcomm, &st);
            CHECK(count_of(&st, MPI_INT) == 10 && seq_ok(in, 10, peer));
            MPI_Send(out, 10, MPI_INT, peer, 2, tcomm);
        }
    }
    /* Around the ring, a wildcard receive, completed by MPI_Test. */
    seq_fill(out, 10, rank);
    MPI_Isendrecv(out, 10, MPI_INT, next, 3, in, 20, MPI_INT, MPI_ANY_SOURCE, 3, tcomm, &r);
    for (int flag = 0; !flag;)
        MPI_Test(&r, &flag, &st);
    CHECK(st.MPI_SOURCE == prev && seq_ok(in, 10, prev));
    /* Replace, contiguous and large (staged or single copy). */
    enum { BIGS = 1 << 18 };
    int *big = xmalloc(BIGS * sizeof(int));
    seq_fill(big, BIGS, rank + 7);
    MPI_Isendrecv_replace(big, BIGS, MPI_INT, next, 4, prev, 4, tcomm, &r);
    MPI_Waitall(1, &r, &st);
    CHECK(seq_ok(big, BIGS, prev + 7) && count_of(&st, MPI_INT) == BIGS);
    free(big);
    /* Replace with a vector: the gaps stay. */
    double v[16];
    MPI_Datatype vec;
    MPI_Type_vector(8, 1, 2, MPI_DOUBLE, &vec);
    MPI_Type_commit(&vec);
    for (int k = 0; k < 16; k++)
        v[k] = k % 2 ? -1.0 - k : rank * 100 + k;
    MPI_Isendrecv_replace(v, 1, vec, next, 5, MPI_ANY_SOURCE, 5, tcomm, &r);
    MPI_Wait(&r, &st);
    for (int k = 0; k < 16; k++)
        CHECK(v[k] == (k % 2 ? -1.0 - k : prev * 100 + k));
    MPI_Type_free(&vec);
    /* With MPI_PROC_NULL on both sides: an empty receive status. */
    MPI_Isendrecv(out, 10, MPI_INT, MPI_PROC_NULL, 6, in, 20, MPI_INT, MPI_PROC_NULL, 6, tcomm, &r);
    MPI_Wait(&r, &st);
    CHECK(is_proc_null_status_nb(&st));
#endif
}

/* Erroneous calls reach the communicator's error handler with the class
 * MPI defines: a tag above MPI_TAG_UB (to self and to the pair's peer), and
 * MPI_Start on an active request (Open MPI 4.1 natively accepts that one, so
 * only a reported error is checked). */
static int handler_calls, handler_class;
static void count_error(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    handler_calls++;
    handler_class = error_class(*code);
}

static void rule_errors(void)
{
    MPI_Errhandler eh;
    MPI_Comm_create_errhandler(count_error, &eh);
    MPI_Comm_set_errhandler(tcomm, eh);
    int *tag_ub, found = 0, x = 1;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &found);
    CHECK(found);
    if (found && *tag_ub < 2147483647) {
        int to[2] = {rank, peer};
        for (int k = 0; k < 2 && to[k] >= 0; k++) {
            handler_calls = 0;
            int rc = MPI_Send(&x, 1, MPI_INT, to[k], *tag_ub + 1, tcomm);
            CHECK(rc != MPI_SUCCESS && error_class(rc) == MPI_ERR_TAG);
            CHECK(handler_calls == 1 && handler_class == MPI_ERR_TAG);
        }
    }
    MPI_Request r;
    MPI_Recv_init(&x, 1, MPI_INT, rank, 7, tcomm, &r);
    MPI_Start(&r);
    handler_calls = 0;
    int rc = MPI_Start(&r);
    if (rc != MPI_SUCCESS)
        CHECK(error_class(rc) == MPI_ERR_REQUEST && handler_calls == 1);
    MPI_Send(&x, 1, MPI_INT, rank, 7, tcomm);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Request_free(&r);
    MPI_Comm_set_errhandler(tcomm, MPI_ERRORS_ARE_FATAL);
    MPI_Errhandler_free(&eh);
}

/* An empty message of MPI_DATATYPE_NULL (count 0, as MPICH's own tests
 * send): MPICH takes it, Open MPI refuses it with MPI_ERR_TYPE. A send to
 * the peer must do what the MPI does to MPI_PROC_NULL (asked of the MPI
 * itself, through PMPI), and a message taken arrives in order, empty. */
static void rule_null_type(void)
{
    if (peer < 0)
        return;
    MPI_Errhandler eh;
    MPI_Comm_create_errhandler(count_error, &eh);
    MPI_Comm_set_errhandler(tcomm, eh);
    int taken = PMPI_Send(NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 0, tcomm) == MPI_SUCCESS;
    int x = 41, rc;
    handler_calls = 0;
    if (am_a) {
        rc = MPI_Send(NULL, 0, MPI_DATATYPE_NULL, peer, 5, tcomm);
        x++;
        MPI_Send(&x, 1, MPI_INT, peer, 6, tcomm);
    } else {
        MPI_Status st;
        rc = MPI_Recv(NULL, 0, MPI_DATATYPE_NULL, peer, 5, tcomm, &st);
        if (taken)
            CHECK(count_of(&st, MPI_BYTE) == 0 && st.MPI_SOURCE == peer && st.MPI_TAG == 5);
        MPI_Recv(&x, 1, MPI_INT, peer, 6, tcomm, MPI_STATUS_IGNORE);
        CHECK(x == 42);
    }
    if (taken)
        CHECK(rc == MPI_SUCCESS && handler_calls == 0);
    else
        CHECK(error_class(rc) == MPI_ERR_TYPE && handler_calls == 1 &&
              handler_class == MPI_ERR_TYPE);
    MPI_Comm_set_errhandler(tcomm, MPI_ERRORS_ARE_FATAL);
    MPI_Errhandler_free(&eh);
}

/* A derived type not yet committed is an error to pack or send (both MPIs
 * return MPI_ERR_TYPE), under wisp as natively: wisp's engine must not
 * pack it. Committed afterwards, the same handle works. */
static void rule_uncommitted_type(void)
{
    MPI_Errhandler eh;
    MPI_Comm_create_errhandler(count_error, &eh);
    MPI_Comm_set_errhandler(tcomm, eh);
    MPI_Datatype t;
    MPI_Type_vector(4, 1, 2, MPI_INT, &t);
    int in[8] = {1, 2, 3, 4, 5, 6, 7, 8}, out[4] = {0}, at = 0;
    handler_calls = 0;
    int rc = MPI_Pack(in, 1, t, out, (int)sizeof out, &at, tcomm);
    CHECK(error_class(rc) == MPI_ERR_TYPE && handler_calls == 1 && at == 0);
    int refused = peer >= 0 && PMPI_Send(in, 1, t, MPI_PROC_NULL, 0, tcomm) != MPI_SUCCESS;
    if (refused && am_a) { /* the MPI refuses it before it looks at the peer */
        handler_calls = 0;
        rc = MPI_Send(in, 1, t, peer, 8, tcomm);
        CHECK(error_class(rc) == MPI_ERR_TYPE && handler_calls == 1);
    }
    MPI_Type_commit(&t);
    at = 0;
    CHECK(MPI_Pack(in, 1, t, out, (int)sizeof out, &at, tcomm) == MPI_SUCCESS && at == 16);
    CHECK(out[0] == 1 && out[1] == 3 && out[2] == 5 && out[3] == 7);
    if (peer >= 0) { /* and the committed handle travels: nothing of the refused send arrived */
        int got[8] = {0};
        if (am_a)
            MPI_Send(in, 1, t, peer, 8, tcomm);
        else
            MPI_Recv(got, 1, t, peer, 8, tcomm, MPI_STATUS_IGNORE);
        CHECK(am_a || (got[0] == 1 && got[2] == 3 && got[4] == 5 && got[6] == 7 && got[1] == 0));
    }
    MPI_Type_free(&t);
    MPI_Comm_set_errhandler(tcomm, MPI_ERRORS_ARE_FATAL);
    MPI_Errhandler_free(&eh);
}

/* Freed types' handles come back for new types (MPICH gives the next type
 * the handle just freed): what wisp knew of a freed type must not describe
 * the next one, and a type made from a freed one keeps its own layout.
 * Rounds alternate strides, so a stale description would misplace data. */
static void rule_type_handle_reuse(void)
{
    if (peer < 0)
        return;
    enum { ROUNDS = 40, N = 64 };
    int in[4 * N], out[4 * N];
    for (int i = 0; i < 4 * N; i++)
        in[i] = i + 1;
    for (int r = 0; r < ROUNDS; r++) {
        int stride = 1 + r % 3; /* 1 is contiguous: the dense case */
        MPI_Datatype inner, outer;
        MPI_Type_vector(N / 2, 1, stride, MPI_INT, &inner);
        MPI_Type_contiguous(1, inner, &outer); /* keeps inner's layout after inner's free */
        MPI_Type_commit(&inner);
        MPI_Type_commit(&outer);
        MPI_Datatype first = r % 2 ? outer : inner;
        memset(out, 0, sizeof out);
        if (am_a)
            MPI_Send(in, 1, first, peer, 30, tcomm);
        else
            MPI_Recv(out, 1, first, peer, 30, tcomm, MPI_STATUS_IGNORE);
        MPI_Type_free(&inner);
        memset(out + 2 * N, 0, 2 * N * sizeof *out);
        if (am_a)
            MPI_Send(in, 1, outer, peer, 31, tcomm);
        else
            MPI_Recv(out + 2 * N, 1, outer, peer, 31, tcomm, MPI_STATUS_IGNORE);
        MPI_Type_free(&outer);
        for (int k = 0; !am_a && k < N / 2 * stride; k++) {
            int want = k % stride ? 0 : k + 1;
            CHECK(out[k] == want && out[2 * N + k] == want);
        }
    }
}

/* A type made by a large-count constructor (MPI-4) travels between
 * processes of a node as any other. */
static void rule_large_count_type(void)
{
#if MPI_VERSION >= 4
    if (peer < 0)
        return;
    MPI_Datatype t;
    MPI_Type_vector_c(4, 1, 2, MPI_INT, &t);
    MPI_Type_commit(&t);
    int in[8] = {1, 2, 3, 4, 5, 6, 7, 8}, got[4] = {0};
    if (am_a) {
        MPI_Send(in, 1, t, peer, 9, tcomm);
    } else {
        MPI_Recv(got, 4, MPI_INT, peer, 9, tcomm, MPI_STATUS_IGNORE);
        CHECK(got[0] == 1 && got[1] == 3 && got[2] == 5 && got[3] == 7);
    }
    MPI_Type_free(&t);
#endif
}

/* MPI_Request_c2f / MPI_Request_f2c round trips (MPI_Request_toint /
 * fromint in the MPI-5 ABI), distinct for requests alive at once, and the
 * request still works after the trip; a matched message's likewise. */
static void rule_fortran_handles(void)
{
    int a = -1, b = -1, out[2] = {rank, rank + 1};
    MPI_Request r[2];
    MPI_Irecv(&a, 1, MPI_INT, rank, 1, tcomm, &r[0]);
    MPI_Irecv(&b, 1, MPI_INT, rank, 2, tcomm, &r[1]);
    request_int f[2] = {REQUEST_TO_INT(r[0]), REQUEST_TO_INT(r[1])};
    CHECK(f[0] != f[1]);
    MPI_Request back[2] = {REQUEST_FROM_INT(f[0]), REQUEST_FROM_INT(f[1])};
    CHECK(back[0] == r[0] && back[1] == r[1]);
    MPI_Send(&out[1], 1, MPI_INT, rank, 2, tcomm);
    MPI_Send(&out[0], 1, MPI_INT, rank, 1, tcomm);
    MPI_Status st[2];
    CHECK(MPI_Waitall(2, back, st) == MPI_SUCCESS);
    CHECK(a == rank && b == rank + 1);
    CHECK(REQUEST_TO_INT(MPI_REQUEST_NULL) == REQUEST_TO_INT(back[0]));

    MPI_Message m;
    MPI_Request s;
    MPI_Isend(&out[0], 1, MPI_INT, rank, 3, tcomm, &s);
    MPI_Mprobe(rank, 3, tcomm, &m, MPI_STATUS_IGNORE);
    MPI_Message m_back = MESSAGE_FROM_INT(MESSAGE_TO_INT(m));
    CHECK(m_back == m);
    a = -1;
    CHECK(MPI_Mrecv(&a, 1, MPI_INT, &m_back, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(a == rank && m_back == MPI_MESSAGE_NULL);
    MPI_Wait(&s, MPI_STATUS_IGNORE);
}

/* ---------------------------------------------------------- MPI_PROC_NULL */

static void rule_proc_null(void)
{
    int buf[4] = {1, 2, 3, 4};
    MPI_Status st;
    MPI_Request req;
    int flag = 0;
    char attach[64 + MPI_BSEND_OVERHEAD];
    MPI_Buffer_attach(attach, sizeof attach);
    CHECK(MPI_Send(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(MPI_Ssend(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(MPI_Rsend(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(MPI_Bsend(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD) == MPI_SUCCESS);
    MPI_Request sreq[4];
    MPI_Isend(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &sreq[0]);
    MPI_Issend(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &sreq[1]);
    MPI_Irsend(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &sreq[2]);
    MPI_Ibsend(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &sreq[3]);
    CHECK(wait_all(4, sreq) == MPI_SUCCESS);
    garble(&st, 1);
    CHECK(MPI_Recv(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
    CHECK(is_proc_null_status(&st) && buf[0] == 1 && buf[3] == 4);
    CHECK(elements_of(&st, MPI_INT) == 0);
    MPI_Irecv(buf, 4, MPI_INT, MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &req);
    garble(&st, 1);
    for (int k = 0; k < 1000000 && !flag; k++) /* as soon as possible */
        MPI_Test(&req, &flag, &st);
    CHECK(flag && req == MPI_REQUEST_NULL && is_proc_null_status_nb(&st));
    MPI_Irecv(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &req);
    garble(&st, 1);
    MPI_Wait(&req, &st);
    CHECK(is_proc_null_status_nb(&st));
    garble(&st, 1);
    MPI_Probe(MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st);
    CHECK(is_proc_null_status(&st));
    garble(&st, 1);
    flag = 0;
    MPI_Iprobe(MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
    CHECK(flag && is_proc_null_status(&st));
    garble(&st, 1);
    MPI_Sendrecv(buf, 4, MPI_INT, MPI_PROC_NULL, 1, buf, 4, MPI_INT, MPI_PROC_NULL, 1,
                 MPI_COMM_WORLD, &st);
    CHECK(is_proc_null_status(&st) && buf[0] == 1);
    garble(&st, 1);
    MPI_Sendrecv_replace(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st);
    CHECK(is_proc_null_status(&st) && buf[0] == 1 && buf[3] == 4);
    /* Half of a Sendrecv to MPI_PROC_NULL: the other half to self still works. */
    int got[4] = {0};
    MPI_Isend(buf, 4, MPI_INT, rank, 2, MPI_COMM_WORLD, &req);
    MPI_Sendrecv(buf, 4, MPI_INT, MPI_PROC_NULL, 1, got, 4, MPI_INT, rank, 2, MPI_COMM_WORLD, &st);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(st.MPI_SOURCE == rank && got[0] == 1 && got[3] == 4);
    void *back;
    int back_size;
    MPI_Buffer_detach(&back, &back_size);
}

/* -------------------------------------------------------------------- self */

static void rule_self(void)
{
    MPI_Comm comm = tcomm;
    int out[100], in[100];
    MPI_Request req, reqs[2];
    MPI_Status st;
    seq_fill(out, 100, 1);
    MPI_Isend(out, 100, MPI_INT, rank, 1, comm, &req);
    MPI_Recv(in, 100, MPI_INT, rank, 1, comm, &st);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(seq_ok(in, 100, 1) && st.MPI_SOURCE == rank && st.MPI_TAG == 1);
    /* Wildcards: only this rank sends to itself on comm, in order. */
    int a = 5, b = 6, x = 0, y = 0;
    MPI_Isend(&a, 1, MPI_INT, rank, 5, comm, &reqs[0]);
    MPI_Isend(&b, 1, MPI_INT, rank, 6, comm, &reqs[1]);
    MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st);
    CHECK(x == 5 && st.MPI_SOURCE == rank && st.MPI_TAG == 5);
    MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st);
    CHECK(st.MPI_SOURCE == rank && st.MPI_TAG == 6);
    MPI_Recv(&y, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st);
    CHECK(y == 6 && st.MPI_TAG == 6);
    wait_all(2, reqs);
    /* Blocking sends to self with the receive posted first. */
    MPI_Irecv(in, 100, MPI_INT, MPI_ANY_SOURCE, 2, comm, &req);
    MPI_Send(out, 50, MPI_INT, rank, 2, comm);
    MPI_Wait(&req, &st);
    CHECK(count_of(&st, MPI_INT) == 50 && seq_ok(in, 50, 1));
    MPI_Irecv(in, 100, MPI_INT, rank, MPI_ANY_TAG, comm, &req);
    MPI_Ssend(out, 60, MPI_INT, rank, 3, comm);
    MPI_Wait(&req, &st);
    CHECK(count_of(&st, MPI_INT) == 60 && st.MPI_TAG == 3);
    /* Big, to self. */
    enum { BIGSELF = 1 << 20 };
    int *big = xmalloc(BIGSELF * sizeof(int)), *bigin = xmalloc(BIGSELF * sizeof(int));
    seq_fill(big, BIGSELF, 9);
    MPI_Isend(big, BIGSELF, MPI_INT, rank, 4, comm, &req);
    MPI_Recv(bigin, BIGSELF, MPI_INT, rank, 4, comm, &st);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(seq_ok(bigin, BIGSELF, 9));
    memset(bigin, 0, BIGSELF * sizeof(int));
    MPI_Sendrecv(big, BIGSELF, MPI_INT, rank, 5, bigin, BIGSELF, MPI_INT, MPI_ANY_SOURCE, 5, comm,
                 &st);
    CHECK(seq_ok(bigin, BIGSELF, 9) && st.MPI_SOURCE == rank);
    free(big);
    free(bigin);
}

static void rule_comm_self(void)
{
    int a = 42, b = 0, flag = 1;
    MPI_Request req;
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_SELF, &flag, &st);
    CHECK(!flag);
    MPI_Isend(&a, 1, MPI_INT, 0, 3, MPI_COMM_SELF, &req);
    MPI_Recv(&b, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_SELF, &st);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(b == 42 && st.MPI_SOURCE == 0 && st.MPI_TAG == 3);
    b = 0;
    MPI_Sendrecv(&a, 1, MPI_INT, 0, 4, &b, 1, MPI_INT, 0, 4, MPI_COMM_SELF, &st);
    CHECK(b == 42 && st.MPI_SOURCE == 0);
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_SELF, &dup);
    MPI_Isend(&a, 1, MPI_INT, 0, 3, dup, &req);
    flag = 0;
    MPI_Iprobe(0, 3, MPI_COMM_SELF, &flag, &st);
    CHECK(!flag); /* not on MPI_COMM_SELF itself */
    b = 0;
    MPI_Recv(&b, 1, MPI_INT, 0, 3, dup, &st);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(b == 42);
    MPI_Comm_free(&dup);
}

/* ---------------------------------------------------------- communicators */

/* A ring exchange on comm: each rank gets its left neighbour's rank in comm. */
static void ring_check(MPI_Comm comm)
{
    int r, n;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &n);
    int got = -1, next = (r + 1) % n, prev = (r + n - 1) % n;
    MPI_Status st;
    MPI_Sendrecv(&r, 1, MPI_INT, next, 11, &got, 1, MPI_INT, MPI_ANY_SOURCE, 11, comm, &st);
    CHECK(got == prev && st.MPI_SOURCE == prev);
}

static void rule_communicators(void)
{
    /* Same tag on two communicators: no cross-matching, in either order. */
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    if (peer >= 0) {
        int w = 1, d = 2, got = 0;
        MPI_Status st;
        if (am_a) {
            MPI_Request req[4];
            MPI_Isend(&w, 1, MPI_INT, peer, 5, MPI_COMM_WORLD, &req[0]);
            MPI_Isend(&d, 1, MPI_INT, peer, 5, dup, &req[1]);
            await_note(peer, 1);
            MPI_Isend(&w, 1, MPI_INT, peer, 5, MPI_COMM_WORLD, &req[2]);
            MPI_Isend(&d, 1, MPI_INT, peer, 5, dup, &req[3]);
            wait_all(4, req);
        } else {
            MPI_Recv(&got, 1, MPI_INT, peer, 5, dup, &st);
            CHECK(got == 2);
            MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            CHECK(got == 1);
            int g1 = 0, g2 = 0;
            MPI_Request req[2];
            MPI_Irecv(&g1, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, dup, &req[0]);
            MPI_Irecv(&g2, 1, MPI_INT, peer, 5, MPI_COMM_WORLD, &req[1]);
            notify(peer, 1);
            wait_all(2, req);
            CHECK(g1 == 2 && g2 == 1);
        }
    }
    MPI_Comm_free(&dup);

    /* Split with reversed ranks, create from a reversed group, create_group,
     * a periodic cartesian ring. */
    MPI_Comm split, created, cart;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &split);
    ring_check(split);
    MPI_Group world_group, rev_group;
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    int ranges[1][3] = {{size - 1, 0, -1}};
    MPI_Group_range_incl(world_group, 1, ranges, &rev_group);
    MPI_Comm_create(MPI_COMM_WORLD, rev_group, &created);
    int crank;
    MPI_Comm_rank(created, &crank);
    CHECK(crank == size - 1 - rank);
    ring_check(created);
    MPI_Group even_group;
    int even_ranges[1][3] = {{0, size - 1, 2}};
    MPI_Group_range_incl(world_group, 1, even_ranges, &even_group);
    if (rank % 2 == 0) {
        MPI_Comm evens;
        MPI_Comm_create_group(MPI_COMM_WORLD, even_group, 7, &evens);
        ring_check(evens);
        MPI_Comm_free(&evens);
    }
    int dims[2] = {0, 0}, periods[2] = {1, 1};
    MPI_Dims_create(size, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &cart);
    for (int dim = 0; dim < 2; dim++) {
        int src, dst, me, got = -1;
        MPI_Comm_rank(cart, &me);
        MPI_Cart_shift(cart, dim, 1, &src, &dst);
        MPI_Sendrecv(&me, 1, MPI_INT, dst, dim, &got, 1, MPI_INT, src, dim, cart,
                     MPI_STATUS_IGNORE);
        CHECK(got == src);
    }
    MPI_Comm_free(&cart);
    MPI_Comm_free(&created);
    MPI_Group_free(&rev_group);
    MPI_Group_free(&even_group);
    MPI_Group_free(&world_group);

    /* An intercommunicator between the even and the odd ranks: every rank
     * sends to every remote rank and receives with MPI_ANY_SOURCE. */
    MPI_Comm inter, merged;
    int other_parity_top = (size - 1) % 2 != rank % 2 ? size - 1 : size - 2; /* its local leader */
    MPI_Intercomm_create(split, 0, MPI_COMM_WORLD, other_parity_top, 77, &inter);
    int is_inter = 0, rsize, lrank;
    MPI_Comm_test_inter(inter, &is_inter);
    MPI_Comm_remote_size(inter, &rsize);
    MPI_Comm_rank(inter, &lrank);
    CHECK(is_inter && rsize == (rank % 2 ? (size + 1) / 2 : size / 2));
    int *out = xmalloc((size_t)rsize * sizeof(int)), seen[64] = {0};
    MPI_Request *req = xmalloc((size_t)rsize * sizeof *req);
    for (int r = 0; r < rsize; r++) {
        out[r] = lrank * 1000 + r;
        MPI_Isend(&out[r], 1, MPI_INT, r, lrank, inter, &req[r]);
    }
    for (int k = 0; k < rsize; k++) {
        int got = -1;
        MPI_Status st;
        MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, inter, &st);
        CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < rsize && st.MPI_TAG == st.MPI_SOURCE);
        CHECK(got == st.MPI_SOURCE * 1000 + lrank);
        if (st.MPI_SOURCE >= 0 && st.MPI_SOURCE < rsize)
            seen[st.MPI_SOURCE]++;
    }
    for (int r = 0; r < rsize; r++)
        CHECK(seen[r] == 1);
    wait_all(rsize, req);
    MPI_Intercomm_merge(inter, rank % 2, &merged);
    ring_check(merged);
    MPI_Comm_free(&merged);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&split);
    free(out);
    free(req);

    /* Free and create again, many times: a new communicator may reuse the
     * old one's context, and must not see anything of it. */
    for (int it = 0; it < 50; it++) {
        MPI_Comm c;
        if (it % 2)
            MPI_Comm_dup(MPI_COMM_WORLD, &c);
        else
            MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &c);
        int next = (rank + 1) % size, prev = (rank + size - 1) % size, got = -1,
            val = it * 100 + rank;
        MPI_Request r;
        MPI_Isend(&val, 1, MPI_INT, next, 3, c, &r);
        MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, c, MPI_STATUS_IGNORE);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        CHECK(got == it * 100 + prev);
        MPI_Comm_free(&c);
    }
}

/* Statuses that the program fills itself. */
static void rule_status_set(void)
{
    MPI_Status st;
    MPI_Datatype two;
    MPI_Type_contiguous(2, MPI_INT, &two);
    MPI_Type_commit(&two);
    garble(&st, 1);
    MPI_Status_set_elements(&st, MPI_INT, 5);
    CHECK(count_of(&st, MPI_INT) == 5 && elements_of(&st, MPI_INT) == 5);
#ifndef MPICH_VERSION /* MPICH 4.0.2 counts elements of the derived type, not basic ones */
    MPI_Status_set_elements(&st, two, 6);
    CHECK(count_of(&st, two) == 3 && elements_of(&st, two) == 6);
#endif
    MPI_Status_set_elements(&st, MPI_INT, 3);
    CHECK(count_of(&st, two) == MPI_UNDEFINED && elements_of(&st, two) == 3);
    MPI_Status_set_elements_x(&st, MPI_DOUBLE, (MPI_Count)7);
    MPI_Count n = -1;
    MPI_Get_elements_x(&st, MPI_DOUBLE, &n);
    CHECK(n == 7 && count_of(&st, MPI_DOUBLE) == 7);
    MPI_Status_set_cancelled(&st, 1);
    CHECK(cancelled(&st) == 1);
    MPI_Status_set_cancelled(&st, 0);
    CHECK(cancelled(&st) == 0);
    MPI_Type_free(&two);
}

/* ------------------------------------------------------------- truncation */

static void rule_truncate(void)
{
    if (peer < 0)
        return;
    MPI_Comm comm = tcomm;
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    /* MPICH 4.0.2 raises an error of MPI_Wait on MPI_COMM_WORLD's handler,
     * not on the request's communicator's. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int data[10];
    if (am_a) {
        MPI_Request req[6];
        seq_fill(data, 10, 4);
        for (int t = 1; t <= 6; t++)
            MPI_Isend(data, 10, MPI_INT, peer, t, comm, &req[t - 1]);
        CHECK(wait_all(6, req) == MPI_SUCCESS);
    } else {
        int buf[12], buf2[12];
        MPI_Status st, sts[2];
        MPI_Request req, reqs[2];
        /* MPI_Recv returns the error; nothing past the buffer is written. */
        for (int k = 0; k < 12; k++)
            buf[k] = -7;
        int rc = MPI_Recv(buf, 5, MPI_INT, peer, 1, comm, &st);
        CHECK(rc != MPI_SUCCESS && error_class(rc) == MPI_ERR_TRUNCATE);
        for (int k = 5; k < 12; k++)
            CHECK(buf[k] == -7);
        /* MPI_Wait on the receive. */
        for (int k = 0; k < 12; k++)
            buf[k] = -7;
        MPI_Irecv(buf, 5, MPI_INT, peer, 2, comm, &req);
        rc = MPI_Wait(&req, &st);
        CHECK(rc != MPI_SUCCESS && error_class(rc) == MPI_ERR_TRUNCATE);
        CHECK(buf[5] == -7 && buf[11] == -7);
        /* MPI_Waitall: MPI_ERR_IN_STATUS, the error in the status. */
        MPI_Irecv(buf2, 12, MPI_INT, peer, 3, comm, &reqs[0]);
        MPI_Irecv(buf, 5, MPI_INT, peer, 4, comm, &reqs[1]);
        garble(sts, 2);
        rc = MPI_Waitall(2, reqs, sts);
        CHECK(rc == MPI_ERR_IN_STATUS);
        CHECK(sts[0].MPI_ERROR == MPI_SUCCESS && seq_ok(buf2, 10, 4));
        CHECK(sts[1].MPI_ERROR != MPI_SUCCESS && error_class(sts[1].MPI_ERROR) == MPI_ERR_TRUNCATE);
        /* Zero room for a message of 10. */
        rc = MPI_Recv(buf, 0, MPI_INT, MPI_ANY_SOURCE, 5, comm, &st);
        CHECK(error_class(rc) == MPI_ERR_TRUNCATE);
        /* The truncated messages were consumed: the next one comes whole. */
        memset(buf, 0, sizeof buf);
        rc = MPI_Recv(buf, 12, MPI_INT, peer, MPI_ANY_TAG, comm, &st);
        CHECK(rc == MPI_SUCCESS && st.MPI_TAG == 6 && seq_ok(buf, 10, 4));
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* -------------------------------------------------------------- datatypes */

struct rec {
    char c;
    double d;
    int i[3];
};

static void rule_datatypes(void)
{
    if (peer < 0)
        return;
    MPI_Status st;
    /* 1. A strided vector of doubles, received contiguous, and back. */
    MPI_Datatype vec;
    MPI_Type_vector(10, 2, 5, MPI_DOUBLE, &vec);
    MPI_Type_commit(&vec);
    double v[50], flat[20];
    /* 2. Indexed ints (extent 19 ints), two of them. */
    MPI_Datatype idx;
    int blens[4] = {1, 3, 2, 4}, bdisp[4] = {0, 2, 8, 15};
    MPI_Type_indexed(4, blens, bdisp, MPI_INT, &idx);
    MPI_Type_commit(&idx);
    int iv[38], iflat[20];
    /* 3. A struct with gaps, and a packed layout with the same signature. */
    MPI_Datatype trec, trec0, tpacked, tpacked0;
    int rl[3] = {1, 1, 3};
    MPI_Aint rd[3] = {offsetof(struct rec, c), offsetof(struct rec, d), offsetof(struct rec, i)};
    MPI_Aint pd[3] = {0, 1, 9};
    MPI_Datatype rt[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
    MPI_Type_create_struct(3, rl, rd, rt, &trec0);
    MPI_Type_create_resized(trec0, 0, sizeof(struct rec), &trec);
    MPI_Type_commit(&trec);
    MPI_Type_create_struct(3, rl, pd, rt, &tpacked0);
    MPI_Type_create_resized(tpacked0, 0, 21, &tpacked);
    MPI_Type_commit(&tpacked);
    struct rec recs[5];
    unsigned char packed[5 * 21];
    /* 4. Every third int (a resized int). */
    MPI_Datatype third;
    MPI_Type_create_resized(MPI_INT, 0, 3 * sizeof(int), &third);
    MPI_Type_commit(&third);
    int tv[21], tflat[7];
    /* 5. 3-D subarrays of different arrays. */
    MPI_Datatype sub_a, sub_b;
    int sz_a[3] = {6, 5, 4}, sz_b[3] = {4, 4, 4}, subsz[3] = {2, 3, 2}, st_a[3] = {1, 1, 1},
        st_b[3] = {0, 1, 2};
    MPI_Type_create_subarray(3, sz_a, subsz, st_a, MPI_ORDER_C, MPI_INT, &sub_a);
    MPI_Type_create_subarray(3, sz_b, subsz, st_b, MPI_ORDER_C, MPI_INT, &sub_b);
    MPI_Type_commit(&sub_a);
    MPI_Type_commit(&sub_b);
    int arr_a[120], arr_b[64], sflat[12];
    /* 6. A big strided vector. */
    enum { BIGV = 65536 };
    MPI_Datatype bigvec;
    MPI_Type_vector(BIGV, 1, 2, MPI_DOUBLE, &bigvec);
    MPI_Type_commit(&bigvec);
    double *bv = xmalloc(2 * BIGV * sizeof(double)), *bflat = xmalloc(BIGV * sizeof(double));
    /* 7. Absolute addresses from MPI_BOTTOM. */
    int abs_i[3];
    double abs_d[2];
    MPI_Datatype tabs;
    MPI_Aint ad[2];
    MPI_Get_address(abs_i, &ad[0]);
    MPI_Get_address(abs_d, &ad[1]);
    int al[2] = {3, 2};
    MPI_Datatype at[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Type_create_struct(2, al, ad, at, &tabs);
    MPI_Type_commit(&tabs);

    if (am_a) {
        for (int k = 0; k < 50; k++)
            v[k] = k;
        MPI_Send(v, 1, vec, peer, 1, MPI_COMM_WORLD);
        for (int k = 0; k < 20; k++)
            flat[k] = 100 + k;
        MPI_Send(flat, 20, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD);
        for (int k = 0; k < 38; k++)
            iv[k] = k;
        MPI_Send(iv, 2, idx, peer, 3, MPI_COMM_WORLD);
        for (int k = 0; k < 5; k++) {
            memset(&recs[k], 0x33, sizeof recs[k]);
            recs[k].c = (char)('a' + k);
            recs[k].d = k * 1.5;
            for (int j = 0; j < 3; j++)
                recs[k].i[j] = k * 10 + j;
        }
        MPI_Send(recs, 5, trec, peer, 4, MPI_COMM_WORLD);
        MPI_Send(recs, 5, trec, peer, 5, MPI_COMM_WORLD);
        for (int k = 0; k < 21; k++)
            tv[k] = k;
        MPI_Send(tv, 7, third, peer, 6, MPI_COMM_WORLD);
        for (int k = 0; k < 120; k++)
            arr_a[k] = k;
        MPI_Send(arr_a, 1, sub_a, peer, 7, MPI_COMM_WORLD);
        MPI_Send(arr_a, 1, sub_a, peer, 8, MPI_COMM_WORLD);
        for (int k = 0; k < 2 * BIGV; k++)
            bv[k] = k;
        MPI_Request req;
        MPI_Isend(bv, 1, bigvec, peer, 9, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        abs_i[0] = 7, abs_i[1] = 8, abs_i[2] = 9, abs_d[0] = 0.25, abs_d[1] = 0.5;
        MPI_Send(MPI_BOTTOM, 1, tabs, peer, 10, MPI_COMM_WORLD);
        char packbuf[64];
        int pos = 0, pi = 5;
        double pdv = 2.5;
        MPI_Pack(&pi, 1, MPI_INT, packbuf, sizeof packbuf, &pos, MPI_COMM_WORLD);
        MPI_Pack(&pdv, 1, MPI_DOUBLE, packbuf, sizeof packbuf, &pos, MPI_COMM_WORLD);
        MPI_Pack("xyz", 3, MPI_CHAR, packbuf, sizeof packbuf, &pos, MPI_COMM_WORLD);
        MPI_Send(packbuf, pos, MPI_PACKED, peer, 11, MPI_COMM_WORLD);
    } else {
        MPI_Recv(flat, 20, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, &st);
        CHECK(count_of(&st, MPI_DOUBLE) == 20);
        for (int k = 0; k < 20; k++)
            CHECK(flat[k] == (k / 2) * 5 + k % 2);
        for (int k = 0; k < 50; k++)
            v[k] = -1;
        MPI_Recv(v, 1, vec, peer, 2, MPI_COMM_WORLD, &st);
        CHECK(count_of(&st, vec) == 1 && elements_of(&st, vec) == 20);
        for (int k = 0; k < 50; k++)
            CHECK(v[k] == (k % 5 < 2 && k < 47 ? 100 + (k / 5) * 2 + k % 5 : -1));
        MPI_Recv(iflat, 20, MPI_INT, peer, 3, MPI_COMM_WORLD, &st);
        CHECK(count_of(&st, MPI_INT) == 20);
        static const int ipos[10] = {0, 2, 3, 4, 8, 9, 15, 16, 17, 18};
        for (int k = 0; k < 20; k++)
            CHECK(iflat[k] == (k / 10) * 19 + ipos[k % 10]);
        /* The padding of the receiver's structs is not written. */
        struct rec got[5];
        memset(got, 0x77, sizeof got);
        MPI_Recv(got, 5, trec, peer, 4, MPI_COMM_WORLD, &st);
        CHECK(count_of(&st, trec) == 5 && elements_of(&st, trec) == 25);
        for (int k = 0; k < 5; k++) {
            CHECK(got[k].c == 'a' + k && got[k].d == k * 1.5);
            for (int j = 0; j < 3; j++)
                CHECK(got[k].i[j] == k * 10 + j);
            const unsigned char *raw = (const unsigned char *)&got[k];
            for (size_t off = offsetof(struct rec, c) + 1; off < offsetof(struct rec, d); off++)
                CHECK(raw[off] == 0x77);
            for (size_t off = offsetof(struct rec, i) + sizeof got[k].i; off < sizeof got[k]; off++)
                CHECK(raw[off] == 0x77);
        }
        memset(packed, 0x77, sizeof packed);
        MPI_Recv(packed, 5, tpacked, peer, 5, MPI_COMM_WORLD, &st);
        CHECK(count_of(&st, tpacked) == 5);
        for (int k = 0; k < 5; k++) {
            double d;
            int i3[3];
            memcpy(&d, packed + k * 21 + 1, sizeof d);
            memcpy(i3, packed + k * 21 + 9, sizeof i3);
            CHECK(packed[k * 21] == 'a' + k && d == k * 1.5);
            CHECK(i3[0] == k * 10 && i3[2] == k * 10 + 2);
        }
        MPI_Recv(tflat, 7, MPI_INT, peer, 6, MPI_COMM_WORLD, &st);
        for (int k = 0; k < 7; k++)
            CHECK(tflat[k] == 3 * k);
        MPI_Recv(sflat, 12, MPI_INT, peer, 7, MPI_COMM_WORLD, &st);
        CHECK(count_of(&st, MPI_INT) == 12);
        for (int k = 0; k < 64; k++)
            arr_b[k] = -1;
        MPI_Recv(arr_b, 1, sub_b, peer, 8, MPI_COMM_WORLD, &st);
        CHECK(count_of(&st, sub_b) == 1 && elements_of(&st, sub_b) == 12);
        int n = 0, written = 0;
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 3; j++)
                for (int k = 0; k < 2; k++, n++) {
                    int want = ((1 + i) * 5 + (1 + j)) * 4 + (1 + k);
                    CHECK(sflat[n] == want);
                    CHECK(arr_b[((0 + i) * 4 + (1 + j)) * 4 + (2 + k)] == want);
                }
        for (int k = 0; k < 64; k++)
            written += arr_b[k] != -1;
        CHECK(written == 12);
        MPI_Recv(bflat, BIGV, MPI_DOUBLE, peer, 9, MPI_COMM_WORLD, &st);
        for (int k = 0; k < BIGV; k++)
            if (bflat[k] != 2.0 * k) {
                CHECK(bflat[k] == 2.0 * k);
                break;
            }
        memset(abs_i, 0, sizeof abs_i);
        memset(abs_d, 0, sizeof abs_d);
        MPI_Recv(MPI_BOTTOM, 1, tabs, peer, 10, MPI_COMM_WORLD, &st);
        CHECK(abs_i[0] == 7 && abs_i[2] == 9 && abs_d[0] == 0.25 && abs_d[1] == 0.5);
        char packbuf[64], chars[4] = {0};
        int pos = 0, pi = 0;
        double pdv = 0;
        MPI_Recv(packbuf, sizeof packbuf, MPI_PACKED, peer, 11, MPI_COMM_WORLD, &st);
        int plen = count_of(&st, MPI_PACKED);
        MPI_Unpack(packbuf, plen, &pos, &pi, 1, MPI_INT, MPI_COMM_WORLD);
        MPI_Unpack(packbuf, plen, &pos, &pdv, 1, MPI_DOUBLE, MPI_COMM_WORLD);
        MPI_Unpack(packbuf, plen, &pos, chars, 3, MPI_CHAR, MPI_COMM_WORLD);
        CHECK(pi == 5 && pdv == 2.5 && !strcmp(chars, "xyz") && pos == plen);
    }
    MPI_Type_free(&vec);
    MPI_Type_free(&idx);
    MPI_Type_free(&trec0);
    MPI_Type_free(&trec);
    MPI_Type_free(&tpacked0);
    MPI_Type_free(&tpacked);
    MPI_Type_free(&third);
    MPI_Type_free(&sub_a);
    MPI_Type_free(&sub_b);
    MPI_Type_free(&bigvec);
    MPI_Type_free(&tabs);
    free(bv);
    free(bflat);
}

/* ------------------------------------------------------ completion arrays */

/* A mixed array: null, inactive persistent, an Ibarrier, receives and sends
 * to the peer (or self) and to self. Slots 0 and 1 never complete. */
enum { MIX_N = 7 };

typedef struct {
    MPI_Request req[MIX_N];
    int out[2], in[2], persist_buf;
    MPI_Request persistent;
} mix_t;

static void mix_start(mix_t *m, MPI_Comm comm, int it)
{
    int other = peer >= 0 ? peer : rank;
    m->req[0] = MPI_REQUEST_NULL;
    m->req[1] = m->persistent; /* inactive */
    MPI_Ibarrier(comm, &m->req[2]);
    m->out[0] = rank * 100 + it, m->out[1] = rank * 100 + it + 50;
    m->in[0] = m->in[1] = -1;
    MPI_Irecv(&m->in[0], 1, MPI_INT, other, 1, comm, &m->req[3]);
    MPI_Isend(&m->out[0], 1, MPI_INT, other, 1, comm, &m->req[4]);
    MPI_Irecv(&m->in[1], 1, MPI_INT, MPI_ANY_SOURCE, 2, comm, &m->req[5]);
    MPI_Isend(&m->out[1], 1, MPI_INT, rank, 2, comm, &m->req[6]);
}

static void mix_check(mix_t *m, MPI_Status *st, int it)
{
    int other = peer >= 0 ? peer : rank;
    CHECK(m->req[0] == MPI_REQUEST_NULL && m->req[1] == m->persistent);
    for (int i = 2; i < MIX_N; i++)
        CHECK(m->req[i] == MPI_REQUEST_NULL);
    CHECK(m->in[0] == other * 100 + it && m->in[1] == rank * 100 + it + 50);
    if (st) {
        CHECK(st[3].MPI_SOURCE == other && st[3].MPI_TAG == 1 && count_of(&st[3], MPI_INT) == 1);
        CHECK(st[5].MPI_SOURCE == rank && st[5].MPI_TAG == 2);
    }
}

static void rule_completion(void)
{
    MPI_Comm comm = tcomm;
    mix_t m;
    MPI_Status st[MIX_N];
    int idx[MIX_N], out, index, flag;
    MPI_Recv_init(&m.persist_buf, 1, MPI_INT, MPI_ANY_SOURCE, 99, comm, &m.persistent);
    int it = 0;
    /* Waitall: null and inactive entries get an empty status. */
    mix_start(&m, comm, ++it);
    garble(st, MIX_N);
    CHECK(MPI_Waitall(MIX_N, m.req, st) == MPI_SUCCESS);
    CHECK(is_empty_status(&st[0]) && is_empty_status(&st[1]));
    mix_check(&m, st, it);
    /* Testall until done. */
    mix_start(&m, comm, ++it);
    for (flag = 0; !flag;)
        MPI_Testall(MIX_N, m.req, &flag, st);
    CHECK(is_empty_status(&st[0]) && is_empty_status(&st[1]));
    mix_check(&m, st, it);
    /* Waitany / Testany: each active entry once, never a null or inactive one. */
    for (int test = 0; test < 2; test++) {
        int seen[MIX_N] = {0};
        mix_start(&m, comm, ++it);
        for (int k = 0; k < MIX_N - 2;) {
            MPI_Status s;
            index = -5, flag = 1;
            if (test)
                MPI_Testany(MIX_N, m.req, &index, &flag, &s);
            else
                MPI_Waitany(MIX_N, m.req, &index, &s);
            if (!flag) {
                CHECK(index == MPI_UNDEFINED);
                continue;
            }
            CHECK(index >= 2 && index < MIX_N && !seen[index]);
            if (index < 2 || index >= MIX_N || seen[index])
                break;
            seen[index] = 1, st[index] = s, k++;
        }
        mix_check(&m, st, it);
        garble(st, 1);
        index = -5, flag = 0;
        if (test)
            MPI_Testany(MIX_N, m.req, &index, &flag, &st[0]);
        else
            MPI_Waitany(MIX_N, m.req, &index, &st[0]), flag = 1;
        CHECK(flag && index == MPI_UNDEFINED);
#ifdef MPICH_VERSION /* MPICH 4.0.2's Testany leaves the status alone with an inactive persistent  \
                        request */
        if (!test)
#endif
            CHECK(is_empty_status(&st[0]));
    }
    /* Waitsome / Testsome: indices and outcount. */
    for (int test = 0; test < 2; test++) {
        int seen[MIX_N] = {0};
        MPI_Status s[MIX_N];
        mix_start(&m, comm, ++it);
        for (int k = 0; k < MIX_N - 2;) {
            out = -5;
            if (test)
                MPI_Testsome(MIX_N, m.req, &out, idx, s);
            else
                MPI_Waitsome(MIX_N, m.req, &out, idx, s);
            CHECK(out >= (test ? 0 : 1) && out <= MIX_N - 2 - k);
            if (out < 0 || out > MIX_N - 2 - k)
                break;
            for (int j = 0; j < out; j++) {
                CHECK(idx[j] >= 2 && idx[j] < MIX_N && !seen[idx[j]]);
                if (idx[j] >= 2 && idx[j] < MIX_N)
                    seen[idx[j]] = 1, st[idx[j]] = s[j];
            }
            k += out;
        }
        mix_check(&m, st, it);
        out = -5;
        if (test)
            MPI_Testsome(MIX_N, m.req, &out, idx, s);
        else
            MPI_Waitsome(MIX_N, m.req, &out, idx, s);
        CHECK(out == MPI_UNDEFINED);
    }
    /* Only null and inactive requests, and empty arrays. */
    MPI_Request none[3] = {MPI_REQUEST_NULL, m.persistent, MPI_REQUEST_NULL};
    garble(st, 3);
    MPI_Waitany(3, none, &index, &st[0]);
    CHECK(index == MPI_UNDEFINED && is_empty_status(&st[0]));
    MPI_Testany(3, none, &index, &flag, &st[0]);
    CHECK(flag && index == MPI_UNDEFINED);
    MPI_Testany(1, &none[1], &index, &flag, &st[0]); /* no null: wisp's alone under wisp */
    CHECK(flag && index == MPI_UNDEFINED && none[1] == m.persistent);
    MPI_Waitsome(3, none, &out, idx, st);
    CHECK(out == MPI_UNDEFINED);
    MPI_Testsome(3, none, &out, idx, st);
    CHECK(out == MPI_UNDEFINED);
    garble(st, 3);
    MPI_Testall(3, none, &flag, st);
    CHECK(flag && is_empty_status(&st[0]) && is_empty_status(&st[1]) && is_empty_status(&st[2]));
    CHECK(none[1] == m.persistent);
    MPI_Waitany(0, none, &index, &st[0]);
    CHECK(index == MPI_UNDEFINED);
    MPI_Testany(0, none, &index, &flag, &st[0]);
    CHECK(flag && index == MPI_UNDEFINED);
    MPI_Waitsome(0, none, &out, idx, st);
    CHECK(out == MPI_UNDEFINED);
    CHECK(MPI_Waitall(0, none, st) == MPI_SUCCESS);
    garble(st, 1);
    MPI_Wait(&none[0], &st[0]);
    CHECK(is_empty_status(&st[0]));
    MPI_Test(&none[0], &flag, &st[0]);
    CHECK(flag);
    /* A receive whose message is not sent yet: Testsome says 0, not
     * MPI_UNDEFINED; Testall says no and leaves the requests alone. */
    if (peer >= 0) {
        int v = 0, w = 7;
        MPI_Request q[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
        MPI_Irecv(&v, 1, MPI_INT, peer, 3, comm, &q[1]);
        MPI_Testsome(3, q, &out, idx, st);
        CHECK(out == 0);
        MPI_Testall(3, q, &flag, st);
        CHECK(!flag && q[1] != MPI_REQUEST_NULL);
        MPI_Testany(3, q, &index, &flag, &st[0]);
        CHECK(!flag && index == MPI_UNDEFINED);
        MPI_Request both[2] = {m.persistent, q[1]}; /* no null: all wisp's under wisp */
        MPI_Testany(2, both, &index, &flag, &st[0]);
        CHECK(!flag && index == MPI_UNDEFINED);
        notify(peer, 1);
        await_note(peer, 1);
        MPI_Send(&w, 1, MPI_INT, peer, 3, comm);
        MPI_Waitany(3, q, &index, &st[0]);
        CHECK(index == 1 && v == 7 && q[1] == MPI_REQUEST_NULL);
    }
    MPI_Request_free(&m.persistent);
}

/* MPI_Request_free of active sends: the messages are still delivered. */
static void rule_request_free(void)
{
    if (peer < 0)
        return;
    MPI_Comm comm = tcomm;
    enum { BIGF = 500000 };
    int *big = xmalloc(BIGF * sizeof(int)), small[4];
    if (am_a) {
        MPI_Request req;
        seq_fill(small, 4, 1);
        seq_fill(big, BIGF, 2);
        MPI_Isend(small, 4, MPI_INT, peer, 1, comm, &req);
        MPI_Request_free(&req);
        CHECK(req == MPI_REQUEST_NULL);
        MPI_Isend(big, BIGF, MPI_INT, peer, 2, comm, &req);
        MPI_Request_free(&req);
        CHECK(req == MPI_REQUEST_NULL);
        MPI_Issend(small, 4, MPI_INT, peer, 3, comm, &req);
        MPI_Request_free(&req);
        await_note(peer, 1); /* only now may the buffers go */
    } else {
        MPI_Status st;
        int got[4];
        MPI_Recv(got, 4, MPI_INT, peer, 1, comm, &st);
        CHECK(seq_ok(got, 4, 1));
        MPI_Recv(big, BIGF, MPI_INT, peer, 2, comm, &st);
        CHECK(seq_ok(big, BIGF, 2) && count_of(&st, MPI_INT) == BIGF);
        MPI_Recv(got, 4, MPI_INT, peer, 3, comm, &st);
        CHECK(seq_ok(got, 4, 1));
        notify(peer, 1);
    }
    free(big);
}

/* MPI_Request_get_status reports completion without freeing the request. */
static void rule_get_status(void)
{
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Status st;
    int flag = 0;
    garble(&st, 1);
    MPI_Request_get_status(req, &flag, &st);
    CHECK(flag && is_empty_status(&st));
    int buf = 0;
    MPI_Recv_init(&buf, 1, MPI_INT, 0, 0, MPI_COMM_SELF, &req); /* inactive */
    flag = 0;
    MPI_Request_get_status(req, &flag, &st);
    CHECK(flag && is_empty_status(&st) && req != MPI_REQUEST_NULL);
    MPI_Request_free(&req);
    if (peer < 0)
        return;
    MPI_Comm comm = tcomm;
    if (am_a) {
        int v = 1234;
        await_note(peer, 1);
        MPI_Send(&v, 1, MPI_INT, peer, 4, comm);
    } else {
        MPI_Irecv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 4, comm, &req);
        flag = 1;
        MPI_Request_get_status(req, &flag, &st);
        CHECK(!flag); /* the peer waits for the note below */
        notify(peer, 1);
        for (flag = 0; !flag;)
            MPI_Request_get_status(req, &flag, &st);
        CHECK(req != MPI_REQUEST_NULL);
        CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == 4 && buf == 1234);
        MPI_Request_get_status(req, &flag, &st); /* still there, still complete */
        CHECK(flag && req != MPI_REQUEST_NULL);
        garble(&st, 1);
        MPI_Wait(&req, &st);
        CHECK(req == MPI_REQUEST_NULL && st.MPI_SOURCE == peer && count_of(&st, MPI_INT) == 1);
    }
}

/* --------------------------------------------------------------- sizes */

/* Every size up to 130 bytes, and 2^k - 1, 2^k, 2^k + 1 up to 4 MiB, from
 * aligned and unaligned buffers, heap and static, blocking and not; the
 * receiver checks that nothing past the message is written. */
static unsigned char size_static[(4 << 20) + 64];

static int size_count(void)
{
    return 131 + 3 * 16;
}

static size_t size_at(int i)
{
    if (i < 131)
        return (size_t)i;
    i -= 131;
    return ((size_t)128 << (i / 3)) + (size_t)(i % 3) - 1;
}

static unsigned char size_byte(size_t n, size_t k)
{
    return (unsigned char)(n * 31 + k * 7 + (k >> 9));
}

static void rule_sizes(void)
{
    if (peer < 0)
        return;
    MPI_Comm comm = tcomm;
    unsigned char *heap = xmalloc((4 << 20) + 64);
    for (int dir = 0; dir < 2; dir++) {
        int sender = dir == 0 ? am_a : !am_a;
        for (int i = 0; i < size_count(); i++) {
            size_t n = size_at(i), off = (size_t)i % 4;
            unsigned char *buf = (i % 2 ? heap : size_static) + off;
            MPI_Request req;
            if (sender) {
                for (size_t k = 0; k < n; k++)
                    buf[k] = size_byte(n, k);
                if (dir == 0)
                    MPI_Send(buf, (int)n, MPI_BYTE, peer, i, comm);
                else {
                    MPI_Isend(buf, (int)n, MPI_BYTE, peer, i, comm, &req);
                    MPI_Wait(&req, MPI_STATUS_IGNORE);
                }
            } else {
                MPI_Status st;
                memset(buf, 0xee, n + 16);
                if (dir == 0)
                    MPI_Recv(buf, (int)n + 16, MPI_BYTE, peer, i, comm, &st);
                else {
                    MPI_Irecv(buf, (int)n + 16, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &req);
                    MPI_Wait(&req, &st);
                }
                CHECK(count_of(&st, MPI_BYTE) == (int)n && st.MPI_TAG == i);
                size_t bad = n;
                for (size_t k = 0; k < n && bad == n; k++)
                    if (buf[k] != size_byte(n, k))
                        bad = k;
                if (bad != n)
                    fprintf(stderr, "p2p_semantics sizes: %zu bytes: byte %zu differs\n", n, bad);
                CHECK(bad == n);
                for (size_t k = n; k < n + 16; k++)
                    CHECK(buf[k] == 0xee);
            }
        }
    }
    free(heap);
}

/* Handles a request keeps: a persistent request may be started after its
 * communicator and datatype were freed, and a pending receive completes
 * with its datatype and communicator freed (MPI: the objects are freed when
 * no operation uses them any more). */
static void strided(MPI_Datatype *t)
{
    MPI_Type_vector(4, 1, 2, MPI_INT, t); /* every other int of 8 */
    MPI_Type_commit(t);
}

static int strided_ok(const int *buf, int seq)
{
    for (int k = 0; k < 8; k++)
        if (buf[k] != (k % 2 ? -1 : seq * 100 + k / 2))
            return 0;
    return 1;
}

static void strided_fill(int *buf, int seq)
{
    for (int k = 0; k < 8; k++)
        buf[k] = k % 2 ? -1 : seq * 100 + k / 2;
}

static void rule_references(void)
{
    enum { ROUNDS = 3 };
    int buf[8];
    MPI_Comm comm, second;
    MPI_Datatype t;
    MPI_Request req;
    MPI_Status st;
    MPI_Comm_dup(tcomm, &comm); /* collective: also where there is no peer */
    MPI_Comm_dup(tcomm, &second);
    if (peer < 0) {
        MPI_Comm_free(&comm);
        MPI_Comm_free(&second);
        return;
    }
    /* Persistent: init, free the type and the communicator, then start. */
    strided(&t);
    if (am_a)
        MPI_Send_init(buf, 1, t, peer, 7, comm, &req);
    else
        MPI_Recv_init(buf, 1, t, peer, 7, comm, &req);
    MPI_Type_free(&t);
    MPI_Comm_free(&comm);
    strided(&t); /* a new type may get the freed handle */
    for (int round = 0; round < ROUNDS; round++) {
        if (am_a)
            strided_fill(buf, round);
        else
            for (int k = 0; k < 8; k++)
                buf[k] = -1;
        MPI_Start(&req);
        CHECK(MPI_Wait(&req, &st) == MPI_SUCCESS);
        if (!am_a)
            CHECK(strided_ok(buf, round) && st.MPI_SOURCE == peer && st.MPI_TAG == 7);
    }
    MPI_Request_free(&req);
    MPI_Type_free(&t);
    /* Pending receive: its type and communicator freed before the message comes. */
    comm = second;
    strided(&t);
    if (am_a) {
        await_note(peer, 1);
        strided_fill(buf, 9);
        MPI_Send(buf, 1, t, peer, 8, comm);
    } else {
        for (int k = 0; k < 8; k++)
            buf[k] = -1;
        MPI_Irecv(buf, 1, t, peer, 8, comm, &req);
        MPI_Type_free(&t);
        MPI_Comm_free(&comm);
        MPI_Datatype other;
        strided(&other);
        notify(peer, 1);
        CHECK(MPI_Wait(&req, &st) == MPI_SUCCESS && strided_ok(buf, 9));
        MPI_Type_free(&other);
    }
    if (am_a) {
        MPI_Type_free(&t);
        MPI_Comm_free(&comm);
    }
}

/* ------------------------------------------------------------------ main */

static const struct {
    const char *name;
    void (*fn)(void);
} rules[] = {
    {"nonovertaking", rule_nonovertaking},
    {"any_source", rule_any_source},
    {"held_behind_wildcard", rule_held_behind_wildcard},
    {"wildcards_polled", rule_wildcards_polled},
    {"wildcard_collective", rule_wildcard_collective},
    {"ssend_lent_wildcard", rule_ssend_lent_wildcard},
    {"lent_handback", rule_lent_handback},
    {"probe_behind_wildcard", rule_probe_behind_wildcard},
    {"probe_polls_wildcard", rule_probe_polls_wildcard},
    {"unlend_order", rule_unlend_order},
    {"claim_order", rule_claim_order},
    {"status", rule_status},
    {"probe", rule_probe},
    {"mprobe", rule_mprobe},
    {"cancel", rule_cancel},
    {"ssend", rule_ssend},
    {"bsend", rule_bsend},
    {"bsend_restart", rule_bsend_restart},
    {"rsend", rule_rsend},
    {"persistent", rule_persistent},
    {"sendrecv", rule_sendrecv},
    {"isendrecv", rule_isendrecv},
    {"proc_null", rule_proc_null},
    {"self", rule_self},
    {"comm_self", rule_comm_self},
    {"communicators", rule_communicators},
    {"status_set", rule_status_set},
    {"errors", rule_errors},
    {"null_type", rule_null_type},
    {"uncommitted_type", rule_uncommitted_type},
    {"type_handle_reuse", rule_type_handle_reuse},
    {"large_count_type", rule_large_count_type},
    {"fortran_handles", rule_fortran_handles},
    {"truncate", rule_truncate},
    {"datatypes", rule_datatypes},
    {"completion", rule_completion},
    {"request_free", rule_request_free},
    {"get_status", rule_get_status},
    {"sizes", rule_sizes},
    {"references", rule_references},
};
enum { NRULES = sizeof rules / sizeof rules[0] };

static void watchdog(int sig)
{
    (void)sig;
    const char *a = "p2p_semantics: a rule hangs: ", *name = rules[current_rule].name;
    if (write(2, a, strlen(a)) < 0 || write(2, name, strlen(name)) < 0 || write(2, "\n", 1) < 0)
        _exit(3);
    _exit(3);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int selected[NRULES] = {0}, bad = size < 2 || size > 64;
    for (int a = 1; a < argc; a++) {
        int found = 0;
        for (int i = 0; i < NRULES; i++)
            if (!strcmp(argv[a], "all") || !strcmp(argv[a], rules[i].name))
                selected[i] = found = 1;
        bad |= !found;
    }
    if (argc < 2)
        for (int i = 0; i < NRULES; i++)
            selected[i] = 1;
    if (bad) {
        if (rank == 0) {
            fprintf(stderr, "usage: p2p_semantics [all | rule...] on 2 to 64 processes; rules:");
            for (int i = 0; i < NRULES; i++)
                fprintf(stderr, " %s", rules[i].name);
            fprintf(stderr, "\n");
        }
        MPI_Finalize();
        return 2;
    }
    if (size % 2 == 0)
        peer = (rank + size / 2) % size;
    else
        peer = rank == size - 1 ? -1 : rank ^ 1;
    am_a = peer >= 0 && rank < peer;
    MPI_Comm_dup(MPI_COMM_WORLD, &ctl);
    signal(SIGALRM, watchdog);

    int failed_rules = 0, ran = 0;
    for (int i = 0; i < NRULES; i++) {
        if (!selected[i])
            continue;
        current_rule = i;
        alarm(WATCHDOG_S);
        int before = failures, mine, all = 0;
        MPI_Comm_dup(MPI_COMM_WORLD, &tcomm);
        rules[i].fn();
        MPI_Comm_free(&tcomm);
        mine = failures - before;
        MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (all && mine)
            fprintf(stderr, "p2p_semantics: rule %s failed on rank %d (%d checks)\n", rules[i].name,
                    rank, mine);
        if (rank == 0)
            printf("p2p_semantics: %-14s %s\n", rules[i].name, all ? "FAILED" : "ok");
        failed_rules += all != 0;
        ran++;
    }
    alarm(0);
    MPI_Comm_free(&ctl);
    if (rank == 0)
        printf("p2p_semantics: %d ranks, %d rules, %s\n", size, ran,
               failed_rules ? "FAILED" : "OK");
    MPI_Finalize();
    return failed_rules ? 1 : 0;
}
