/*
 * MPI_Alltoall, MPI_Alltoallv and MPI_Alltoallw through the area (area.h
 * has the phases), with any types: a block whose type is one contiguous
 * piece is read or written as bytes, any other is packed by its sender
 * and unpacked by its receiver (the members' types differ while their
 * signatures match).
 *
 * MPI_Alltoall whose blocks of every member fit in a line (48 bytes): one
 * phase; every member puts its blocks inline and takes its own from every
 * line. Else two phases. In the first, every member publishes in its
 * staging half a table of where its block for each member lies: in its
 * send buffer itself where that block is contiguous and in the heap (read
 * in place: one copy), else copied in after the table, or into a private
 * heap allocation where the half has no room; every member then copies (or
 * unpacks) its block from every other member's place. In the second,
 * nobody reads anyone's blocks any more; blocks below WISP_COLL_SINGLE_COPY
 * are copied into the half where they fit, and where no member's blocks
 * are read in place (or from a heap allocation) every member says so in
 * the first phase and the second is left out, alike everywhere (the next
 * call's half is the other one, and its writer waits for this phase's
 * readers as usual). Under MPI_IN_PLACE a member's blocks are always
 * copied out first, since it overwrites them. A nonblocking call whose
 * member has no room in the heap for its blocks streams them through its
 * half instead, in phases after the first (MPI_Ialltoall's, below).
 *
 * The decision: the communicator and the size of a block (alike in every
 * member for MPI_Alltoall); for the v and w forms, where each member knows
 * only its own counts and types, the communicator alone. A member that
 * cannot take part (a type it cannot pack, a count the MPI's pack cannot
 * take, no memory) says so in its line in the first phase, and then every
 * member makes the MPI's call instead.
 */
#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "coll/area.h"
#include "coll/coll.h"
#include "coll/layout.h"
#include "coll/mpi_more.h"
#include "coll/nb.h"
#include "coll/persist.h"
#include "coll/view.h"
#include "core/log.h"
#include "p2p/p2p.h"
#include "dt/dt.h"
#include "shm/heap.h"

enum form { ALL, V, W };

/* One call's description: the send side (or, in place, the receive side)
 * and the receive side; per member i, through block(). */
struct call {
    enum form form;
    bool large, in_place;
    const char *sendbuf;
    char *recvbuf;
    MPI_Count scount, rcount;                          /* ALL */
    const void *scounts, *sdispls, *rcounts, *rdispls; /* V, W */
    MPI_Datatype stype, rtype;                         /* ALL, V */
    const MPI_Datatype *stypes, *rtypes;               /* W */
    MPI_Comm comm;
    /* ALL, V: asked once a call (extents()): a type's extent (-1: none)
     * and, where its elements follow each other as one piece (`flat`),
     * one element's layout, which gives any count's without the MPI. */
    MPI_Aint sextent, rextent;
    struct wisp_coll_layout sunit, runit;
    bool sflat, rflat;
    /* A nonblocking call's bytes (ialltoall_start): a member whose blocks
     * to copy fit neither its half nor its outbox streams them through its
     * half instead of a spill (`stream`); `where[2m]` and `where[2m + 1]`
     * are where this member's block lies in member m's stream and its bytes
     * (0: none streamed). */
    bool stream;
    uint64_t *where;
};

/* A block in a member's table: where its bytes are, how many. */
struct entry {
    uint64_t at, bytes;
};

/* A block of the call's send side (`send`) or receive side for member i. */
struct block {
    uintptr_t base; /* the buffer plus the displacement (MPI_BOTTOM: 0) */
    MPI_Count count;
    MPI_Datatype type;
    struct wisp_coll_layout l;
};

static MPI_Count count_at(const void *a, int i, bool large)
{
    return large ? ((const MPI_Count *)a)[i] : ((const int *)a)[i];
}
static MPI_Aint displ_at(const void *a, int i, bool large)
{
    return large ? ((const MPI_Aint *)a)[i] : ((const int *)a)[i];
}

/* The block's layout; false where wisp cannot take its type. */
static bool block_at(const struct call *k, bool send, int i, struct block *b)
{
    bool recv_side = !send || k->in_place;
    uintptr_t buf = (uintptr_t)(recv_side ? k->recvbuf : k->sendbuf);
    MPI_Aint extent, displ;
    switch (k->form) {
    case ALL:
        b->count = recv_side ? k->rcount : k->scount;
        b->type = recv_side ? k->rtype : k->stype;
        if ((extent = recv_side ? k->rextent : k->sextent) < 0)
            return false;
        displ = (MPI_Aint)i * (MPI_Aint)b->count * extent;
        break;
    case V:
        b->count = count_at(recv_side ? k->rcounts : k->scounts, i, k->large);
        b->type = recv_side ? k->rtype : k->stype;
        if ((extent = recv_side ? k->rextent : k->sextent) < 0)
            return false;
        displ = displ_at(recv_side ? k->rdispls : k->sdispls, i, k->large) * extent;
        break;
    case W:
    default:
        b->count = count_at(recv_side ? k->rcounts : k->scounts, i, k->large);
        b->type = (recv_side ? k->rtypes : k->stypes)[i];
        displ = displ_at(recv_side ? k->rdispls : k->sdispls, i, k->large);
        break;
    }
    b->base = buf + (uintptr_t)displ;
    if (k->form != W && (recv_side ? k->rflat : k->sflat) && b->count >= 0) {
        const struct wisp_coll_layout *u = recv_side ? &k->runit : &k->sunit;
        b->l = (struct wisp_coll_layout){(uint64_t)b->count * u->bytes, u->lb, true};
        return true;
    }
    return wisp_coll_layout_of(b->type, b->count, &b->l);
}

/* False where wisp cannot take the block (the MPI's call then). MPICH
 * 4.0.2's MPI_Pack refuses MPI_BOTTOM (a null buffer): the MPI's. */
static bool block(const struct call *k, bool send, int i, struct block *b)
{
    return block_at(k, send, i, b) && (b->base || b->l.contiguous || !b->l.bytes);
}

/* The extent of one type of the ALL and V forms (-1: none, a type wisp
 * cannot take), and whether its elements are one piece (`unit`: one's). */
static MPI_Aint extent_of(MPI_Datatype type, struct wisp_coll_layout *unit, bool *flat)
{
    MPI_Aint lb, extent;
    *flat = false;
    if (type == MPI_DATATYPE_NULL || PMPI_Type_get_extent(type, &lb, &extent) != MPI_SUCCESS)
        return -1;
    *flat = wisp_coll_layout_of(type, 1, unit) && unit->contiguous && unit->bytes &&
            (uint64_t)extent == unit->bytes;
    return extent;
}
static void extents(struct call *k)
{
    k->rextent = extent_of(k->rtype, &k->runit, &k->rflat);
    k->sextent = k->rextent;
    k->sunit = k->runit;
    k->sflat = k->rflat;
    if (!k->in_place)
        k->sextent = extent_of(k->stype, &k->sunit, &k->sflat);
}

/* The block's bytes into `to` (packed where its type is not one piece). */
static bool take_out(const struct call *k, const struct block *b, char *to)
{
    if (b->l.contiguous || !b->l.bytes) {
        if (b->l.bytes) /* an empty block's address may be NULL */
            memcpy(to, (const char *)(b->base + (uintptr_t)b->l.lb), b->l.bytes);
        return true;
    }
    return wisp_coll_pack((const void *)b->base, b->count, b->type, to, b->l.bytes, k->comm);
}

/* `bytes` bytes from `from` into the block (unpacked where needed); a
 * sender with more bytes than the block takes is erroneous: cut short. */
static void put_in(const struct call *k, const struct block *b, const char *from, uint64_t bytes)
{
    if (bytes > b->l.bytes)
        bytes = b->l.bytes;
    if (!bytes)
        return;
    if (b->l.contiguous)
        memcpy((char *)(b->base + (uintptr_t)b->l.lb), from, bytes);
    else if (!wisp_coll_unpack(from, bytes, (void *)b->base, b->count, b->type, k->comm))
        PMPI_Abort(k->comm, 1);
}

/* Can this member take part? Every receive block must be one wisp can
 * write; the send side is checked while the table is filled. */
static bool receivable(const struct call *k, int size)
{
    struct block b;
    for (int i = 0; i < size; i++)
        if (!block(k, false, i, &b))
            return false;
    return true;
}

/* MPI_Alltoall with every member's blocks inline: `bytes` a block. */
static bool alltoall_inline(struct wisp_coll_comm *c, const struct call *k, uint64_t bytes)
{
    uint64_t p = wisp_coll_next(c);
    wisp_coll_reuse_line(c, p);
    struct wisp_coll_line *line = wisp_coll_line(c, c->rank, p);
    bool ok = receivable(k, c->size);
    struct block b;
    for (int i = 0; ok && i < c->size; i++)
        ok = i == c->rank || (block(k, true, i, &b) && b.l.bytes == bytes &&
                              take_out(k, &b, (char *)line->data + i * bytes));
    line->aux = ok;
    wisp_coll_publish(c, p);
    wisp_coll_wait_all(c, p);
    for (int m = 0; m < c->size; m++)
        if (!wisp_coll_line(c, m, p)->aux)
            return false;
    for (int m = 0; m < c->size; m++) {
        if (m == c->rank && k->in_place)
            continue;
        block(k, false, m, &b);
        if (m == c->rank) {
            struct block s;
            block(k, true, m, &s);
            char tmp[WISP_COLL_INLINE];
            take_out(k, &s, tmp);
            put_in(k, &b, tmp, s.l.bytes);
        } else {
            put_in(k, &b, (const char *)wisp_coll_line(c, m, p)->data + c->rank * bytes, bytes);
        }
    }
    return true;
}

/* Whether the block others read where it is (contiguous, in the heap). */
static bool direct(const struct call *k, const struct block *b)
{
    return !k->in_place && b->l.contiguous &&
           wisp_shm_heap_holds((const void *)(b->base + (uintptr_t)b->l.lb), b->l.bytes);
}

/* Phase 1's table: this member's block for every member, in place or
 * copied after the table or into `*spill` (a heap allocation); false where
 * this member cannot take part. A block below WISP_COLL_SINGLE_COPY is
 * copied where all such fit the half: then, if no block is read in place
 * or from the spill, nobody needs the end phase (`*end` false). Where the
 * call streams (k->stream) and the copies do not fit the half, none is
 * copied: each is a STAGED entry, its bytes (`*streamed` in all) sent
 * through the half in the phases after (stream_out). */
#define STAGED 0 /* an entry's address: streamed (with bytes); no heap block is at 0 */
static bool offer_blocks(struct wisp_coll_comm *c, const struct call *k, uint64_t p, void **spill,
                         bool *end, uint64_t *streamed)
{
    struct entry *table = (struct entry *)wisp_coll_half(c, c->rank, p);
    char *room = (char *)(table + c->size);
    uint64_t free_bytes = c->half - (uint64_t)c->size * sizeof *table, copied = 0, small = 0;
    struct block b;
    for (int i = 0; i < c->size; i++) {
        if (!block(k, true, i, &b))
            return false;
        char *at = (char *)(b.base + (uintptr_t)b.l.lb);
        bool in_place = direct(k, &b);
        uint64_t room_bytes = (b.l.bytes + 63) & ~(uint64_t)63;
        table[i] = (struct entry){in_place ? (uint64_t)(uintptr_t)at : STAGED, b.l.bytes};
        if (!in_place && i != c->rank) {
            copied += room_bytes;
            *streamed += b.l.bytes;
        } else if (in_place && i != c->rank && b.l.bytes < wisp_coll.single_copy_min) {
            small += room_bytes;
        }
    }
    if (small && copied + small <= free_bytes) {
        for (int i = 0; i < c->size; i++)
            if (i != c->rank && table[i].at && table[i].bytes < wisp_coll.single_copy_min)
                table[i].at = 0;
        copied += small;
    }
    char *to = room;
    if (copied > free_bytes && k->stream) {
        /* Nothing copied: the small blocks stay read in place (copied +
         * small > free_bytes too), so stream_out finds the same blocks. */
        for (int i = 0; i < c->size; i++)
            *end = *end || (i != c->rank && table[i].at != STAGED && table[i].bytes);
        return true;
    }
    *streamed = 0;
    if (copied > free_bytes) {
        *spill = wisp_shm_heap_alloc(copied, WISP_COLL_LINE, false);
        if (!*spill || !wisp_shm_heap_holds(*spill, copied))
            return false;
        to = *spill;
    }
    *end = *spill != NULL;
    for (int i = 0; i < c->size; i++) {
        if (i == c->rank || !table[i].bytes)
            continue;
        if (table[i].at) {
            *end = true;
            continue;
        }
        if (!block(k, true, i, &b) || !take_out(k, &b, to))
            return false;
        table[i].at = (uint64_t)(uintptr_t)to;
        to += (b.l.bytes + 63) & ~(uint64_t)63;
    }
    return true;
}

/* This member's own block, from its send side to its receive side. */
static void own_block(struct wisp_coll_comm *c, const struct call *k)
{
    if (k->in_place)
        return; /* already where it belongs */
    struct block s, r;
    block(k, true, c->rank, &s);
    block(k, false, c->rank, &r);
    if (!s.l.bytes)
        return;
    if (s.l.contiguous) {
        put_in(k, &r, (const char *)(s.base + (uintptr_t)s.l.lb), s.l.bytes);
        return;
    }
    char *tmp = malloc(s.l.bytes);
    if (!tmp || !take_out(k, &s, tmp)) {
        wisp_log_error("MPI_Alltoall: no memory for %llu bytes to pack",
                       (unsigned long long)s.l.bytes);
        PMPI_Abort(k->comm, 1);
    }
    put_in(k, &r, tmp, s.l.bytes);
    free(tmp);
}

/* Its line's word in phase 1: whether it takes part, whether others
 * read its send buffer or spill (the end phase), and whether it streams
 * (its line's data then holds how many bytes). */
enum { TAKES_PART = 1, NEEDS_END = 2, STREAMS = 4 };

/* Bytes [from, from + half) of this member's stream into its half of
 * phase p: its STAGED blocks (offer_blocks), one after another in member
 * order. Its table is gone from the half by then, so they are found again
 * as offer_blocks found them. */
static void stream_out(struct wisp_coll_comm *c, const struct call *k, uint64_t p, uint64_t from)
{
    char *half = wisp_coll_half(c, c->rank, p);
    uint64_t upto = from + c->half, at = 0;
    struct block b;
    for (int i = 0; i < c->size && at < upto; i++) {
        if (i == c->rank || !block(k, true, i, &b) || !b.l.bytes || direct(k, &b))
            continue;
        uint64_t lo = at > from ? at : from, hi = at + b.l.bytes < upto ? at + b.l.bytes : upto;
        if (lo < hi)
            memcpy(half + (lo - from), (const char *)(b.base + (uintptr_t)b.l.lb) + (lo - at),
                   hi - lo);
        at += b.l.bytes;
    }
}

/* This member's part of bytes [from, from + half) of member m's stream,
 * from m's half of phase p into its receive block (k->where). */
static void stream_in(struct wisp_coll_comm *c, const struct call *k, int m, uint64_t p,
                      uint64_t from)
{
    uint64_t off = k->where[2 * m], bytes = k->where[2 * m + 1], upto = from + c->half;
    uint64_t lo = off > from ? off : from, hi = off + bytes < upto ? off + bytes : upto;
    if (!bytes || lo >= hi)
        return;
    struct block b;
    block(k, false, m, &b);
    memcpy((char *)(b.base + (uintptr_t)b.l.lb) + (lo - off), wisp_coll_half(c, m, p) + (lo - from),
           hi - lo);
}

/* Where this member's block lies in member m's stream (its STAGED entries
 * before it, in member order), read from m's table of phase p1. */
static void stream_find(struct wisp_coll_comm *c, const struct call *k, int m, uint64_t p1)
{
    const struct entry *table = (const struct entry *)wisp_coll_half(c, m, p1);
    uint64_t off = 0;
    for (int i = 0; i < c->rank; i++)
        if (i != m && table[i].at == STAGED)
            off += table[i].bytes;
    struct block b;
    block(k, false, m, &b);
    k->where[2 * m] = off;
    k->where[2 * m + 1] = table[c->rank].bytes < b.l.bytes ? table[c->rank].bytes : b.l.bytes;
}

/* Two phases (above), one where nobody needs the end; false (one phase
 * spent alike) where some member cannot take part. A call that streams
 * (k->stream, alike in every member) has as many phases after the tables
 * as its longest stream needs halves, each member's published in phase 1
 * (at least one where the end is needed): in each, every member that
 * streams writes its next half of it, and every member takes its part of
 * every stream. */
static bool alltoall_tables(struct wisp_coll_comm *c, const struct call *k)
{
    uint64_t p1 = wisp_coll_next(c);
    wisp_coll_reuse_half(c, p1);
    void *spill = NULL;
    bool end = false;
    uint64_t streamed = 0, rounds = 0;
    bool ok = receivable(k, c->size) && offer_blocks(c, k, p1, &spill, &end, &streamed);
    struct wisp_coll_line *line = wisp_coll_line(c, c->rank, p1);
    line->aux = (ok ? TAKES_PART : 0) | (end ? NEEDS_END : 0) | (ok && streamed ? STREAMS : 0);
    memcpy(line->data, &streamed, sizeof streamed);
    wisp_coll_publish(c, p1);
    wisp_coll_wait_all(c, p1);
    for (int m = 0; m < c->size; m++) {
        const struct wisp_coll_line *l = wisp_coll_line(c, m, p1);
        uint64_t word = l->aux, bytes;
        ok = ok && (word & TAKES_PART);
        end = end || (word & NEEDS_END);
        memcpy(&bytes, l->data, sizeof bytes);
        if ((word & STREAMS) && (bytes + c->half - 1) / c->half > rounds)
            rounds = (bytes + c->half - 1) / c->half;
    }
    if (ok) {
        struct block b;
        for (int m = 0; m < c->size; m++) {
            if (m == c->rank)
                continue;
            const struct entry *e = (const struct entry *)wisp_coll_half(c, m, p1) + c->rank;
            bool staged = (wisp_coll_line(c, m, p1)->aux & STREAMS) && e->at == STAGED;
            if (k->stream)
                k->where[2 * m + 1] = 0;
            if (staged)
                stream_find(c, k, m, p1);
            else if (block(k, false, m, &b))
                put_in(k, &b, (const char *)(uintptr_t)e->at, e->bytes);
        }
        own_block(c, k);
        for (uint64_t r = 0; r < (rounds ? rounds : end); r++) {
            uint64_t p = p1 + 1 + r;
            wisp_coll_reuse_half(c, p);
            if (r * c->half < streamed)
                stream_out(c, k, p, r * c->half);
            wisp_coll_publish(c, p);
            wisp_coll_wait_all(c, p);
            for (int m = 0; rounds && m < c->size; m++)
                if (m != c->rank)
                    stream_in(c, k, m, p, r * c->half);
        }
    }
    if (spill)
        wisp_shm_heap_free(spill);
    return ok;
}

/* A table that leaves the half little room: the MPI's, alike everywhere. */
static bool tables_fit(const struct wisp_coll_comm *c)
{
    return (uint64_t)c->size * sizeof(struct entry) <= c->half / 2;
}

/* The phases: inline where MPI_Alltoall's blocks (`inline_bytes`, 0 for
 * the v and w forms) of every member fit a line, else the tables. */
static bool alltoall_phases(struct wisp_coll_comm *c, const struct call *k, uint64_t inline_bytes)
{
    if (inline_bytes && inline_bytes * (uint64_t)c->size <= WISP_COLL_INLINE)
        return alltoall_inline(c, k, inline_bytes);
    return alltoall_tables(c, k);
}

/* The call through the area, or false where the MPI must make it (alike in
 * every member). */
static bool alltoall(struct wisp_coll_comm *c, struct call *k, uint64_t inline_bytes)
{
    if (k->form != W)
        extents(k);
    if (!tables_fit(c))
        return false;
    return alltoall_phases(c, k, k->form == ALL ? inline_bytes : 0);
}

int wisp_coll_alltoall(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                       bool large)
{
    struct wisp_coll_comm *c = wisp_coll.on ? wisp_coll_comm_get(comm) : NULL;
    /* The receive side's block size is alike in every member. */
    MPI_Count size = 0;
    uint64_t bytes = 0;
    if (c && recvcount >= 0 && recvtype != MPI_DATATYPE_NULL &&
        PMPI_Type_size_x(recvtype, &size) == MPI_SUCCESS && size != MPI_UNDEFINED)
        bytes = (uint64_t)recvcount * (uint64_t)size;
    else
        c = NULL;
    if (!c || bytes > wisp_coll.alltoall_max || (bytes && bytes < wisp_coll.alltoall_min) ||
        (sendbuf == recvbuf && bytes))
        return wisp_coll_mpi_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                      comm, large);
    if (!bytes) {
        wisp_coll_count(&wisp_coll.served);
        return MPI_SUCCESS;
    }
    struct call k = {.form = ALL,
                     .large = large,
                     .in_place = sendbuf == MPI_IN_PLACE,
                     .sendbuf = sendbuf,
                     .recvbuf = recvbuf,
                     .scount = sendcount,
                     .rcount = recvcount,
                     .stype = sendtype,
                     .rtype = recvtype,
                     .comm = comm};
    if (!alltoall(c, &k, bytes))
        return wisp_coll_mpi_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                      comm, large);
    wisp_coll_count(&wisp_coll.served);
    return MPI_SUCCESS;
}

int wisp_coll_alltoallv(const void *sendbuf, const void *sendcounts, const void *sdispls,
                        MPI_Datatype sendtype, void *recvbuf, const void *recvcounts,
                        const void *rdispls, MPI_Datatype recvtype, MPI_Comm comm, bool large)
{
    struct wisp_coll_comm *c =
        wisp_coll.on && wisp_coll.alltoallv ? wisp_coll_comm_get(comm) : NULL;
    struct call k = {.form = V,
                     .large = large,
                     .in_place = sendbuf == MPI_IN_PLACE,
                     .sendbuf = sendbuf,
                     .recvbuf = recvbuf,
                     .scounts = sendcounts,
                     .sdispls = sdispls,
                     .rcounts = recvcounts,
                     .rdispls = rdispls,
                     .stype = sendtype,
                     .rtype = recvtype,
                     .comm = comm};
    if (!c || !alltoall(c, &k, 0))
        return wisp_coll_mpi_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                       rdispls, recvtype, comm, large);
    wisp_coll_count(&wisp_coll.served);
    return MPI_SUCCESS;
}

int wisp_coll_alltoallw(const void *sendbuf, const void *sendcounts, const void *sdispls,
                        const MPI_Datatype *sendtypes, void *recvbuf, const void *recvcounts,
                        const void *rdispls, const MPI_Datatype *recvtypes, MPI_Comm comm,
                        bool large)
{
    struct wisp_coll_comm *c =
        wisp_coll.on && wisp_coll.alltoallv ? wisp_coll_comm_get(comm) : NULL;
    struct call k = {.form = W,
                     .large = large,
                     .in_place = sendbuf == MPI_IN_PLACE,
                     .sendbuf = sendbuf,
                     .recvbuf = recvbuf,
                     .scounts = sendcounts,
                     .sdispls = sdispls,
                     .rcounts = recvcounts,
                     .rdispls = rdispls,
                     .stypes = sendtypes,
                     .rtypes = recvtypes,
                     .comm = comm};
    if (!c || !alltoall(c, &k, 0))
        return wisp_coll_mpi_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                                       rdispls, recvtypes, comm, large);
    wisp_coll_count(&wisp_coll.served);
    return MPI_SUCCESS;
}

/* ---- MPI_Ialltoall, MPI_Ialltoallv, MPI_Ialltoallw (nb.h) ---------------------- */

/*
 * A nonblocking all-to-all cannot fall back to the MPI in the middle of
 * its phases (they run on a coroutine, which calls no MPI function), so
 * nothing in them may refuse a block: at its start, in the user's call,
 * every block becomes bytes that the phases only copy. A send block that
 * is one piece in the heap is read in place; every other one (not one
 * piece, not in the heap, or under MPI_IN_PLACE) is packed or copied into
 * an outbox, one allocation in the heap; a receive block that is not one
 * piece is received into a private copy that `settle` unpacks. The phases
 * then run an all-to-all of bytes at absolute addresses (the w form,
 * MPI_BYTE, MPI_BOTTOM), which every member can take part in and none
 * needs a spill for. The decision is the blocking form's, which depends
 * on what every member passes alike.
 *
 * A member whose outbox finds no room in the heap cannot fall back to the
 * MPI either (the others decided already, and would wait for it in the
 * phases), nor can it know at the start whether another member found room:
 * so the members agree inside the phases. That member packs (or, under
 * MPI_IN_PLACE, copies) into a private outbox instead, leaves its blocks
 * that are one piece where they are, and in phase 1 marks every block the
 * others cannot read as STAGED in its table and publishes how many bytes
 * that is (STREAMS); it then streams them through its staging half, a
 * half per phase, in as many phases after the tables as the longest
 * stream of any member needs (alltoall_tables), which every member counts
 * alike from the lines of phase 1. Only bytes move on the coroutine, so
 * the packing stays in the user's call. What still ends the job: no
 * memory for the private outbox or the receive copies, a type wisp cannot
 * take (the others are in wisp's phases already, and would wait for it).
 */
struct ialltoall {
    struct call k;    /* the bytes' call */
    struct call user; /* the user's, for the unpacking */
    uint64_t inline_bytes;
    char *outbox;     /* the send blocks not read in place (below) */
    bool private_box; /* no room in the heap for it: malloc's */
    bool copies;      /* some receive block is a private copy */
    /* After the struct, n of each: send and receive counts and
     * displacements (absolute), MPI_BYTE, the w form's receive types kept,
     * the receive blocks' copies; 2n: where each stream holds this
     * member's block (call.where). */
    MPI_Count *scounts, *rcounts;
    MPI_Aint *sdispls, *rdispls;
    MPI_Datatype *bytes, *kept; /* kept: the w form's receive types, kept */
    char **copy;
    uint64_t *where;
};

/* Pack or unpack a block that is not one piece, in a call of the user's:
 * through the MPI, or at MPI_BOTTOM, which MPICH 4.0.2's MPI_Pack refuses,
 * through wisp's datatype engine. */
static bool pack_user(const struct call *k, const struct block *b, char *to)
{
    if (b->base || b->l.contiguous)
        return take_out(k, b, to);
    wisp_dt_desc_t *d;
    if (wisp_dt_desc_get(b->type, &d) != WISP_DT_OK)
        return false;
    size_t n = wisp_dt_layout_pack(NULL, b->count, d, 0, b->l.bytes, to);
    wisp_dt_desc_release(d);
    return n == b->l.bytes;
}

static bool unpack_user(const struct call *k, const struct block *b, const char *from)
{
    if (b->base)
        return wisp_coll_unpack(from, b->l.bytes, (void *)b->base, b->count, b->type, k->comm);
    wisp_dt_desc_t *d;
    if (wisp_dt_desc_get(b->type, &d) != WISP_DT_OK)
        return false;
    size_t n = wisp_dt_layout_unpack(from, 0, b->l.bytes, NULL, b->count, d);
    wisp_dt_desc_release(d);
    return n == b->l.bytes;
}

/* The outbox goes: streamed (malloc's) or read (the heap's) by the last phase. */
static void outbox_free(struct ialltoall *a)
{
    if (a->private_box)
        free(a->outbox);
    else if (a->outbox)
        wisp_shm_heap_free(a->outbox);
    a->outbox = NULL;
}

static void ialltoall_run(struct wisp_coll_comm *c, void *args)
{
    struct ialltoall *a = args;
    alltoall_phases(c, &a->k, a->inline_bytes); /* takes every block: true */
    outbox_free(a);
}

/* The receive blocks that were copies, unpacked in a call of the user's. */
static int ialltoall_settle(struct wisp_coll_comm *c, void *args)
{
    struct ialltoall *a = args;
    struct block b;
    for (int m = 0; m < c->size; m++) {
        if (!a->copy[m])
            continue;
        if (!block_at(&a->user, false, m, &b) || !unpack_user(&a->user, &b, a->copy[m])) {
            wisp_log_error("a nonblocking all-to-all: unpacking a received block failed");
            PMPI_Abort(c->handle, 1);
        }
        free(a->copy[m]);
        if (a->user.form == W)
            wisp_coll_type_let_go(a->kept[m]);
    }
    if (a->user.form != W)
        wisp_coll_type_let_go(a->user.rtype);
    return MPI_SUCCESS;
}

static _Noreturn void ialltoall_fail(struct wisp_coll_comm *c, const char *what, uint64_t bytes)
{
    wisp_log_error("a nonblocking all-to-all that every member started through the shared heap: "
                   "%s (%llu bytes); WISP_COLL=off leaves it to the MPI",
                   what, (unsigned long long)bytes);
    PMPI_Abort(c->handle, 1);
    abort();
}

/* block_at, where an empty block's type is not looked at (a program may
 * pass any type with a count of 0, which the MPI's call takes). */
static bool block_or_none(const struct call *k, bool send, int i, struct block *b)
{
    bool recv_side = !send || k->in_place;
    MPI_Count count = k->form == ALL ? (recv_side ? k->rcount : k->scount)
                                     : count_at(recv_side ? k->rcounts : k->scounts, i, k->large);
    if (count)
        return block_at(k, send, i, b);
    *b = (struct block){.count = 0, .type = MPI_BYTE, .l = {0, 0, true}};
    return true;
}

/* Whether member i's send block is read where it is (none under
 * MPI_IN_PLACE: the receive side overwrites it). */
static bool read_in_place(const struct wisp_coll_comm *c, const struct call *k, int i,
                          const struct block *b)
{
    if (!b->l.bytes)
        return true;
    return !k->in_place && b->l.contiguous &&
           (i == c->rank ||
            wisp_shm_heap_holds((const void *)(b->base + (uintptr_t)b->l.lb), b->l.bytes));
}

/* The call's blocks as bytes (decided already, alike in every member),
 * at its start, in a call of the user's. */
static struct ialltoall *ialltoall_make(struct wisp_coll_comm *c, struct call *user,
                                        uint64_t inline_bytes)
{
    int n = c->size;
    if (user->form != W)
        extents(user);
    size_t each = 2 * sizeof(MPI_Count) + 2 * sizeof(MPI_Aint) + 2 * sizeof(MPI_Datatype) +
                  sizeof(char *) + 2 * sizeof(uint64_t);
    struct ialltoall *a = calloc(1, sizeof *a + (size_t)n * each);
    if (!a)
        ialltoall_fail(c, "no memory", sizeof *a + (size_t)n * each);
    a->user = *user;
    a->inline_bytes = inline_bytes;
    a->scounts = (MPI_Count *)(a + 1);
    a->rcounts = a->scounts + n;
    a->sdispls = (MPI_Aint *)(a->rcounts + n);
    a->rdispls = a->sdispls + n;
    a->bytes = (MPI_Datatype *)(a->rdispls + n);
    a->kept = a->bytes + n;
    a->copy = (char **)(a->kept + n);
    a->where = (uint64_t *)(a->copy + n);
    struct block b;
    for (int m = 0; m < n; m++) {
        a->bytes[m] = MPI_BYTE;
        if (m == c->rank && user->in_place)
            continue; /* its own block stays where it is */
        if (!block_or_none(user, false, m, &b))
            ialltoall_fail(c, "a receive block of a type wisp cannot take", 0);
        a->rcounts[m] = (MPI_Count)b.l.bytes;
        a->rdispls[m] = (MPI_Aint)(b.base + (uintptr_t)b.l.lb);
        if (b.l.contiguous || !b.l.bytes)
            continue;
        if (!(a->copy[m] = malloc(b.l.bytes)))
            ialltoall_fail(c, "no memory for a receive block's copy", b.l.bytes);
        a->rdispls[m] = (MPI_Aint)(uintptr_t)a->copy[m];
        a->copies = true;
    }
    uint64_t box = 0, made = 0; /* made: the blocks only a copy makes bytes */
    for (int i = 0; i < n; i++) {
        if (i == c->rank && user->in_place)
            continue;
        if (!block_or_none(user, true, i, &b))
            ialltoall_fail(c, "a send block of a type wisp cannot take", 0);
        if (read_in_place(c, user, i, &b))
            continue;
        box += (b.l.bytes + 63) & ~(uint64_t)63;
        if (user->in_place || !b.l.contiguous)
            made += (b.l.bytes + 63) & ~(uint64_t)63;
    }
    if (box) {
        a->outbox = wisp_shm_heap_alloc(box, WISP_COLL_LINE, false);
        if (a->outbox && !wisp_shm_heap_holds(a->outbox, box)) {
            wisp_shm_heap_free(a->outbox);
            a->outbox = NULL;
        }
    }
    if (box && !a->outbox) {
        /* No room in the heap: the others cannot read this member's blocks,
         * so it streams them through its half (alltoall_tables): those the
         * user's buffer holds as one piece from there, the others from a
         * private outbox. */
        static atomic_bool told; /* once a process: a program may do it often */
        a->private_box = true;
        if (!atomic_exchange(&told, true))
            wisp_log(1,
                     "a nonblocking all-to-all: no room in the shared heap for %llu bytes to send; "
                     "they go through the staging area",
                     (unsigned long long)box);
        if (made && !(a->outbox = malloc(made)))
            ialltoall_fail(c, "no memory for the blocks to send", made);
    }
    char *to = a->outbox;
    for (int i = 0; i < n; i++) {
        if (i == c->rank && user->in_place)
            continue;
        block_or_none(user, true, i, &b);
        a->scounts[i] = (MPI_Count)b.l.bytes;
        a->sdispls[i] = (MPI_Aint)(b.base + (uintptr_t)b.l.lb);
        if (read_in_place(c, user, i, &b) || (a->private_box && !user->in_place && b.l.contiguous))
            continue;
        if (!pack_user(user, &b, to))
            ialltoall_fail(c, "packing a block to send failed", b.l.bytes);
        a->sdispls[i] = (MPI_Aint)(uintptr_t)to;
        to += (b.l.bytes + 63) & ~(uint64_t)63;
    }
    /* The receive types of the copies, which the user may free now, kept
     * until they are unpacked. */
    if (a->copies && user->form == W) {
        for (int m = 0; m < n; m++)
            a->kept[m] = a->copy[m] ? wisp_coll_type_keep(user->rtypes[m], c->handle) : MPI_BYTE;
        a->user.rtypes = a->kept;
    } else if (a->copies) {
        a->user.rtype = wisp_coll_type_keep(user->rtype, c->handle);
    }
    a->k = (struct call){.form = W,
                         .large = true,
                         .scounts = a->scounts,
                         .sdispls = a->sdispls,
                         .rcounts = a->rcounts,
                         .rdispls = a->rdispls,
                         .stypes = a->bytes,
                         .rtypes = a->bytes,
                         .comm = c->handle,
                         .stream = true,
                         .where = a->where};
    return a;
}

/* Start the call as wisp's (decided already, alike in every member). */
static int ialltoall_start(struct wisp_coll_comm *c, struct call *user, uint64_t inline_bytes,
                           MPI_Request *request)
{
    struct ialltoall *a = ialltoall_make(c, user, inline_bytes);
    wisp_coll_count(&wisp_coll.served);
    return wisp_coll_nb_begin(c, ialltoall_run, a->copies ? ialltoall_settle : NULL, a, request);
}

/* The nonblocking and persistent MPI_Alltoall's decision (the blocking
 * form's, alike in every member: the receive side's block size, up to
 * INT_MAX bytes a block, which MPI_Pack takes): the view wisp serves it on,
 * its call in *k and a block's bytes in *bytes; or NULL, the MPI's. */
static struct wisp_coll_comm *all_take(const void *sendbuf, MPI_Count sendcount,
                                       MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                                       MPI_Datatype recvtype, MPI_Comm comm, bool large,
                                       struct call *k, uint64_t *bytes)
{
    struct wisp_coll_comm *c = wisp_coll_view_nb(comm);
    MPI_Count size = 0;
    if (!c || recvcount < 0 || recvtype == MPI_DATATYPE_NULL ||
        PMPI_Type_size_x(recvtype, &size) != MPI_SUCCESS || size == MPI_UNDEFINED)
        return NULL;
    uint64_t b = (uint64_t)recvcount * (uint64_t)size;
    if (!tables_fit(c) || b > INT_MAX || b > wisp_coll.alltoall_max ||
        (b && b < wisp_coll.alltoall_min) || (sendbuf == recvbuf && b))
        return NULL;
    *k = (struct call){.form = ALL,
                       .large = large,
                       .in_place = sendbuf == MPI_IN_PLACE,
                       .sendbuf = sendbuf,
                       .recvbuf = recvbuf,
                       .scount = b ? sendcount : 0,
                       .rcount = b ? recvcount : 0,
                       .stype = b ? sendtype : MPI_BYTE,
                       .rtype = b ? recvtype : MPI_BYTE,
                       .comm = comm};
    *bytes = b;
    return c;
}

/* The same for the v and w forms (their types left to the caller). */
static struct wisp_coll_comm *vw_take(enum form form, const void *sendbuf, const void *sendcounts,
                                      const void *sdispls, void *recvbuf, const void *recvcounts,
                                      const void *rdispls, MPI_Comm comm, bool large,
                                      struct call *k)
{
    struct wisp_coll_comm *c = wisp_coll.alltoallv ? wisp_coll_view_nb(comm) : NULL;
    if (!c || !tables_fit(c))
        return NULL;
    *k = (struct call){.form = form,
                       .large = large,
                       .in_place = sendbuf == MPI_IN_PLACE,
                       .sendbuf = sendbuf,
                       .recvbuf = recvbuf,
                       .scounts = sendcounts,
                       .sdispls = sdispls,
                       .rcounts = recvcounts,
                       .rdispls = rdispls,
                       .comm = comm};
    return c;
}

int wisp_coll_ialltoall(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                        MPI_Request *request, bool large)
{
    struct call k;
    uint64_t bytes;
    struct wisp_coll_comm *c = all_take(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                        comm, large, &k, &bytes);
    if (c)
        return ialltoall_start(c, &k, bytes, request);
#ifdef WISP_HAVE_MPI_Ialltoall_c
    if (large)
        return PMPI_Ialltoall_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                                request);
#endif
    (void)large;
    return PMPI_Ialltoall(sendbuf, (int)sendcount, sendtype, recvbuf, (int)recvcount, recvtype,
                          comm, request);
}

int wisp_coll_ialltoallv(const void *sendbuf, const void *sendcounts, const void *sdispls,
                         MPI_Datatype sendtype, void *recvbuf, const void *recvcounts,
                         const void *rdispls, MPI_Datatype recvtype, MPI_Comm comm,
                         MPI_Request *request, bool large)
{
    struct call k;
    struct wisp_coll_comm *c =
        vw_take(V, sendbuf, sendcounts, sdispls, recvbuf, recvcounts, rdispls, comm, large, &k);
    if (c) {
        k.stype = sendtype;
        k.rtype = recvtype;
        return ialltoall_start(c, &k, 0, request);
    }
#ifdef WISP_HAVE_MPI_Ialltoallv_c
    if (large)
        return PMPI_Ialltoallv_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                 rdispls, recvtype, comm, request);
#endif
    (void)large;
    return PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                           recvtype, comm, request);
}

int wisp_coll_ialltoallw(const void *sendbuf, const void *sendcounts, const void *sdispls,
                         const MPI_Datatype *sendtypes, void *recvbuf, const void *recvcounts,
                         const void *rdispls, const MPI_Datatype *recvtypes, MPI_Comm comm,
                         MPI_Request *request, bool large)
{
    struct call k;
    struct wisp_coll_comm *c =
        vw_take(W, sendbuf, sendcounts, sdispls, recvbuf, recvcounts, rdispls, comm, large, &k);
    if (c) {
        k.stypes = sendtypes;
        k.rtypes = recvtypes;
        return ialltoall_start(c, &k, 0, request);
    }
#ifdef WISP_HAVE_MPI_Ialltoallw_c
    if (large)
        return PMPI_Ialltoallw_c(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                                 rdispls, recvtypes, comm, request);
#endif
    (void)large;
    return PMPI_Ialltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                           recvtypes, comm, request);
}

/* ---- MPI_Alltoall(v, w)_init (persist.h) ------------------------------------------ */

#ifdef WISP_HAVE_MPI_Alltoall_init
/* The request's call, its types held; each round makes its blocks bytes
 * at its start (ialltoall_make, in the user's call: the outbox, the
 * copies), runs the phases on the lane and unpacks its copies in the call
 * that completes it: the nonblocking form's steps round after round (a
 * member without heap room for its outbox streams its blocks, as there). */
struct palltoall {
    struct call user;
    uint64_t inline_bytes;
    int n;
    MPI_Datatype *types; /* W: the 2n types used (send, then receive), some held */
    bool *held;          /* which of `types` (W), or of stype and rtype, are held */
    bool own[2];
    struct ialltoall *a; /* the round's, from its start to its settle */
};

/* A round's blocks that no settle unpacked (the MPI's request ran it,
 * persist.c): let go. */
static void palltoall_drop(struct palltoall *p)
{
    struct ialltoall *a = p->a;
    if (!a)
        return;
    outbox_free(a);
    for (int m = 0; m < p->n; m++) {
        if (!a->copy[m])
            continue;
        free(a->copy[m]);
        if (a->user.form == W)
            wisp_coll_type_let_go(a->kept[m]);
    }
    if (a->copies && a->user.form != W)
        wisp_coll_type_let_go(a->user.rtype);
    free(a);
    p->a = NULL;
}

static int palltoall_begin(struct wisp_coll_comm *c, void *args)
{
    struct palltoall *p = args;
    palltoall_drop(p);
    struct call user = p->user;
    p->a = ialltoall_make(c, &user, p->inline_bytes);
    return MPI_SUCCESS;
}

static void palltoall_run(struct wisp_coll_comm *c, void *args)
{
    ialltoall_run(c, ((struct palltoall *)args)->a);
}

static int palltoall_settle(struct wisp_coll_comm *c, void *args)
{
    struct palltoall *p = args;
    if (p->a->copies)
        ialltoall_settle(c, p->a);
    free(p->a);
    p->a = NULL;
    return MPI_SUCCESS;
}

static void palltoall_release(void *args)
{
    struct palltoall *p = args;
    palltoall_drop(p);
    if (p->types) {
        for (int i = 0; i < 2 * p->n; i++)
            if (p->held[i])
                wisp_p2p_type_unhold(p->types[i]);
        free(p->types);
        free(p->held);
    }
    if (p->own[0])
        wisp_p2p_type_unhold(p->user.stype);
    if (p->own[1])
        wisp_p2p_type_unhold(p->user.rtype);
    free(p);
}

static const struct wisp_coll_persist_ops palltoall = {.run = palltoall_run,
                                                       .settle = palltoall_settle,
                                                       .begin = palltoall_begin,
                                                       .release = palltoall_release};

/* A type the request uses, held (where it is a derived one): *own says so. */
static MPI_Datatype hold(MPI_Datatype type, bool used, bool *own)
{
    MPI_Datatype held;
    *own = used && type != MPI_DATATYPE_NULL && wisp_p2p_type_hold(type, &held);
    return *own ? held : type;
}

/* The request as wisp's, its call `k` decided (the nonblocking form's
 * decision, and a lane's half takes the tables); else the MPI's request
 * in *request stays the user's. */
static void palltoall_init(struct wisp_coll_comm *c, struct call *k, uint64_t inline_bytes,
                           MPI_Request *request)
{
    struct wisp_coll_comm lane = {.rank = c->rank, .size = c->size, .half = wisp_coll_lane_half()};
    if (!tables_fit(&lane))
        return;
    int n = c->size;
    struct palltoall *p = calloc(1, sizeof *p);
    if (p && k->form == W) {
        p->types = malloc(2 * (size_t)n * sizeof *p->types);
        p->held = calloc(2 * (size_t)n, sizeof *p->held);
    }
    if (!p || (k->form == W && (!p->types || !p->held))) {
        wisp_log_error("a persistent all-to-all: no memory");
        PMPI_Abort(c->handle, 1);
    }
    p->user = *k;
    p->inline_bytes = inline_bytes;
    p->n = n;
    if (k->form == W) {
        for (int i = 0; i < n; i++) {
            bool send = !k->in_place && count_at(k->scounts, i, k->large);
            p->types[i] = send ? hold(k->stypes[i], true, &p->held[i]) : MPI_BYTE;
            p->types[n + i] =
                hold(k->rtypes[i], count_at(k->rcounts, i, k->large) != 0, &p->held[n + i]);
        }
        p->user.stypes = p->types;
        p->user.rtypes = p->types + n;
    } else {
        p->user.stype = hold(k->stype, !k->in_place, &p->own[0]);
        p->user.rtype = hold(k->rtype, true, &p->own[1]);
    }
    wisp_coll_persist_init(c, &palltoall, p, request);
}

int wisp_coll_alltoall_init(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                            void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                            MPI_Comm comm, MPI_Info info, MPI_Request *request, bool large)
{
    int rc;
#ifdef WISP_HAVE_MPI_Alltoall_init_c
    if (large)
        rc = PMPI_Alltoall_init_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                                  info, request);
    else
#endif
        rc = PMPI_Alltoall_init(sendbuf, (int)sendcount, sendtype, recvbuf, (int)recvcount,
                                recvtype, comm, info, request);
    /* The MPI's request: the user's, or the lane's backup (persist.h). */
    struct call k;
    uint64_t bytes;
    struct wisp_coll_comm *c = rc != MPI_SUCCESS
                                   ? NULL
                                   : all_take(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                              recvtype, comm, large, &k, &bytes);
    if (c)
        palltoall_init(c, &k, bytes, request);
    return rc;
}
#endif

#ifdef WISP_HAVE_MPI_Alltoallv_init
int wisp_coll_alltoallv_init(const void *sendbuf, const void *sendcounts, const void *sdispls,
                             MPI_Datatype sendtype, void *recvbuf, const void *recvcounts,
                             const void *rdispls, MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Info info, MPI_Request *request, bool large)
{
    int rc;
#ifdef WISP_HAVE_MPI_Alltoallv_init_c
    if (large)
        rc = PMPI_Alltoallv_init_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                   rdispls, recvtype, comm, info, request);
    else
#endif
        rc = PMPI_Alltoallv_init(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                 rdispls, recvtype, comm, info, request);
    struct call k;
    struct wisp_coll_comm *c = rc != MPI_SUCCESS ? NULL
                                                 : vw_take(V, sendbuf, sendcounts, sdispls, recvbuf,
                                                           recvcounts, rdispls, comm, large, &k);
    if (c) {
        k.stype = sendtype;
        k.rtype = recvtype;
        palltoall_init(c, &k, 0, request);
    }
    return rc;
}
#endif

#ifdef WISP_HAVE_MPI_Alltoallw_init
int wisp_coll_alltoallw_init(const void *sendbuf, const void *sendcounts, const void *sdispls,
                             const MPI_Datatype *sendtypes, void *recvbuf, const void *recvcounts,
                             const void *rdispls, const MPI_Datatype *recvtypes, MPI_Comm comm,
                             MPI_Info info, MPI_Request *request, bool large)
{
    int rc;
#ifdef WISP_HAVE_MPI_Alltoallw_init_c
    if (large)
        rc = PMPI_Alltoallw_init_c(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                                   rdispls, recvtypes, comm, info, request);
    else
#endif
        rc = PMPI_Alltoallw_init(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                                 rdispls, recvtypes, comm, info, request);
    struct call k;
    struct wisp_coll_comm *c = rc != MPI_SUCCESS ? NULL
                                                 : vw_take(W, sendbuf, sendcounts, sdispls, recvbuf,
                                                           recvcounts, rdispls, comm, large, &k);
    if (c) {
        k.stypes = sendtypes;
        k.rtypes = recvtypes;
        palltoall_init(c, &k, 0, request);
    }
    return rc;
}
#endif
