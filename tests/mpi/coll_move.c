/* The node's collectives that move blocks (docs/coll.md): MPI_Gather(v),
 * MPI_Scatter(v) and MPI_Allgather(v) against the placement the test
 * computes itself, every byte of the receive buffers compared (the holes
 * between blocks keep their filler).
 *
 * Every root; MPI_IN_PLACE at every root and in the allgathers; blocks of
 * 0, 1, 7, 40, 41, 48, 49 and 1000 bytes, 64 KiB and 1 MiB + 13 (not
 * `quick`); ints as one block or every other int (a resized type, not
 * contiguous) on either side, so the sender's and the receiver's types
 * differ; in the v-forms, counts that vary by rank with zeros among them
 * and blocks in reverse rank order with gaps; buffers from malloc (the
 * shared heap under wisp: read in place) and from mmap (not: staged);
 * MPI_BOTTOM with absolute addresses; the large-count forms (MPI-4); a
 * root out of range (the MPI's error, with MPI_ERRORS_RETURN). On
 * MPI_COMM_WORLD, the world reversed, halves, pairs and MPI_COMM_SELF.
 *
 * Arguments: `served` checks that wisp ran the collectives
 * (wisp_coll_counter), `passed` that it ran none, `some` that it ran some;
 * `quick` leaves out the 1 MiB sizes. With `served` under WISP_COLL=auto
 * (the default) also that auto leaves a call below its limits to the MPI:
 * MPI_Gatherv, which auto gives the MPI at every size (docs/coll.md). */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "mpi/coll_check.h"

static unsigned calls; /* the collectives of this test that wisp may serve */

/* ---- elements, kinds and buffers ----------------------------------------- */

/* An element type: its size and the distance between elements in memory
 * (2 for every other int). */
struct kind {
    const char *name;
    MPI_Datatype t;
    size_t size;
    size_t stride;
};
static struct kind kbyte, kint, ksint;

static int value(int r, size_t i, int salt)
{
    return (int)((size_t)r * 100003u + i * 7u + (size_t)salt * 31u + i / 253u);
}

static void put(const struct kind *k, char *buf, size_t at, int v)
{
    if (k->size == 1)
        buf[at * k->stride] = (char)v;
    else
        memcpy(buf + at * k->stride * sizeof(int), &v, sizeof v);
}

static size_t span(const struct kind *k, size_t elements)
{
    return elements * k->stride * k->size + 1; /* one byte past the end to check */
}

/* malloc (the shared heap under wisp) or a private mapping (not). */
static char *alloc(size_t bytes, bool priv)
{
    if (!priv)
        return malloc(bytes);
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static void release(char *p, size_t bytes, bool priv)
{
    if (priv)
        munmap(p, bytes);
    else
        free(p);
}

static void compare(const char *what, const char *got, const char *want, size_t bytes, int root,
                    size_t per, const struct kind *s, const struct kind *r, bool in_place)
{
    if (!memcmp(got, want, bytes))
        return;
    size_t at = 0;
    while (got[at] == want[at])
        at++;
    COLL_WRONG("rank %d: %s root %d count %zu %s->%s%s: byte %zu of %zu wrong (%02x, not %02x)\n",
               me, what, root, per, s->name, r->name, in_place ? " in place" : "", at, bytes,
               (unsigned char)got[at], (unsigned char)want[at]);
}

/* One call's blocks: counts and displacements (elements) per member. */
struct blocks {
    int n;
    int counts[8], displs[8];
    size_t total; /* elements the receive (gather) or send (scatter) buffer spans */
};

static struct blocks uniform(int n, int per)
{
    struct blocks b = {n, {0}, {0}, (size_t)per * (size_t)n};
    for (int m = 0; m < n; m++) {
        b.counts[m] = per;
        b.displs[m] = per * m;
    }
    return b;
}

/* Counts that vary, a zero among them; blocks in reverse rank order, gaps
 * of 3 elements between them. (Alone, no gap: MPICH 4.0.2's own
 * MPI_Allgatherv on a communicator of one process puts the block at
 * displacement 0.) */
static struct blocks varying(int n, int per, int salt)
{
    struct blocks b = {n, {0}, {0}, 0};
    int gap = n > 1 ? 3 : 0;
    for (int m = n - 1; m >= 0; m--) {
        b.counts[m] = (m + salt) % 3 == 1 ? 0 : per + m * 3;
        b.displs[m] = (int)b.total + gap;
        b.total += (size_t)gap + (size_t)b.counts[m];
    }
    return b;
}

/* ---- the collectives ------------------------------------------------------ */

/* MPI_X, MPI_Xv, MPI_Xv_c (MPI_Xv before MPI-4) */
enum form { PLAIN, VECTOR, LARGE };

/* MPI_Gather(v) to `root`: every member's block; in place at the root. */
static void gather(MPI_Comm comm, struct blocks b, int root, bool in_place, bool priv,
                   const struct kind *s, const struct kind *r, enum form form, int salt)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    size_t sbytes = span(s, (size_t)b.counts[rank]), rbytes = span(r, b.total);
    char *send = alloc(sbytes, priv), *recv = alloc(rbytes, priv), *want = malloc(rbytes);
    for (size_t i = 0; i < (size_t)b.counts[rank]; i++)
        put(s, send, i, value(rank, i, salt));
    memset(recv, 0x5a, rbytes);
    memset(want, 0x5a, rbytes);
    for (int m = 0; m < b.n; m++)
        for (size_t i = 0; i < (size_t)b.counts[m]; i++)
            put(r, want, (size_t)b.displs[m] + i, value(m, i, salt));
    bool here = in_place && rank == root;
    if (here)
        for (size_t i = 0; i < (size_t)b.counts[rank]; i++)
            put(r, recv, (size_t)b.displs[rank] + i, value(rank, i, salt));
    const void *from = here ? MPI_IN_PLACE : send;
    int rc;
    if (form == PLAIN)
        rc = MPI_Gather(from, b.counts[rank], s->t, recv, b.counts[rank], r->t, root, comm);
    else if (form == VECTOR || MPI_VERSION < 4)
        rc = MPI_Gatherv(from, b.counts[rank], s->t, recv, b.counts, b.displs, r->t, root, comm);
#if MPI_VERSION >= 4
    else {
        MPI_Count counts[8];
        MPI_Aint displs[8];
        for (int m = 0; m < b.n; m++) {
            counts[m] = b.counts[m];
            displs[m] = b.displs[m];
        }
        rc = MPI_Gatherv_c(from, b.counts[rank], s->t, recv, counts, displs, r->t, root, comm);
    }
#endif
    CHECK(rc == MPI_SUCCESS);
    calls++;
    if (rank == root)
        compare(form == PLAIN ? "MPI_Gather" : "MPI_Gatherv", recv, want, rbytes, root,
                (size_t)b.counts[0], s, r, in_place);
    release(send, sbytes, priv);
    release(recv, rbytes, priv);
    free(want);
}

/* MPI_Scatter(v) from `root`; in place at the root (its buffer unchanged). */
static void scatter(MPI_Comm comm, struct blocks b, int root, bool in_place, bool priv,
                    const struct kind *s, const struct kind *r, enum form form, int salt)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    size_t sbytes = span(s, b.total), rbytes = span(r, (size_t)b.counts[rank]);
    char *send = alloc(sbytes, priv), *recv = alloc(rbytes, priv), *want = malloc(rbytes);
    char *kept = malloc(sbytes);
    memset(send, 0x3c, sbytes);
    for (int m = 0; m < b.n && rank == root; m++)
        for (size_t i = 0; i < (size_t)b.counts[m]; i++)
            put(s, send, (size_t)b.displs[m] + i, value(m, i, salt));
    memcpy(kept, send, sbytes);
    memset(recv, 0x5a, rbytes);
    memset(want, 0x5a, rbytes);
    for (size_t i = 0; i < (size_t)b.counts[rank]; i++)
        put(r, want, i, value(rank, i, salt));
    bool here = in_place && rank == root;
    void *to = here ? MPI_IN_PLACE : recv;
    int rc;
    if (form == PLAIN)
        rc = MPI_Scatter(send, b.counts[rank], s->t, to, b.counts[rank], r->t, root, comm);
    else if (form == VECTOR || MPI_VERSION < 4)
        rc = MPI_Scatterv(send, b.counts, b.displs, s->t, to, b.counts[rank], r->t, root, comm);
#if MPI_VERSION >= 4
    else {
        MPI_Count counts[8];
        MPI_Aint displs[8];
        for (int m = 0; m < b.n; m++) {
            counts[m] = b.counts[m];
            displs[m] = b.displs[m];
        }
        rc = MPI_Scatterv_c(send, counts, displs, s->t, to, b.counts[rank], r->t, root, comm);
    }
#endif
    CHECK(rc == MPI_SUCCESS);
    calls++;
    const char *what = form == PLAIN ? "MPI_Scatter" : "MPI_Scatterv";
    if (!here)
        compare(what, recv, want, rbytes, root, (size_t)b.counts[rank], s, r, in_place);
    if (rank == root)
        compare(what, send, kept, sbytes, root, (size_t)b.counts[rank], s, r, in_place);
    release(send, sbytes, priv);
    release(recv, rbytes, priv);
    free(want);
    free(kept);
}

/* MPI_Allgather(v); in place: every member's block in its receive buffer. */
static void allgather(MPI_Comm comm, struct blocks b, bool in_place, bool priv,
                      const struct kind *s, const struct kind *r, enum form form, int salt)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    size_t sbytes = span(s, (size_t)b.counts[rank]), rbytes = span(r, b.total);
    char *send = alloc(sbytes, priv), *recv = alloc(rbytes, priv), *want = malloc(rbytes);
    for (size_t i = 0; i < (size_t)b.counts[rank]; i++)
        put(s, send, i, value(rank, i, salt));
    memset(recv, 0x5a, rbytes);
    memset(want, 0x5a, rbytes);
    for (int m = 0; m < b.n; m++)
        for (size_t i = 0; i < (size_t)b.counts[m]; i++)
            put(r, want, (size_t)b.displs[m] + i, value(m, i, salt));
    if (in_place)
        for (size_t i = 0; i < (size_t)b.counts[rank]; i++)
            put(r, recv, (size_t)b.displs[rank] + i, value(rank, i, salt));
    const void *from = in_place ? MPI_IN_PLACE : send;
    int rc;
    if (form == PLAIN)
        rc = MPI_Allgather(from, b.counts[rank], s->t, recv, b.counts[rank], r->t, comm);
    else if (form == VECTOR || MPI_VERSION < 4)
        rc = MPI_Allgatherv(from, b.counts[rank], s->t, recv, b.counts, b.displs, r->t, comm);
#if MPI_VERSION >= 4
    else {
        MPI_Count counts[8];
        MPI_Aint displs[8];
        for (int m = 0; m < b.n; m++) {
            counts[m] = b.counts[m];
            displs[m] = b.displs[m];
        }
        rc = MPI_Allgatherv_c(from, b.counts[rank], s->t, recv, counts, displs, r->t, comm);
    }
#endif
    CHECK(rc == MPI_SUCCESS);
    calls++;
    compare(form == PLAIN ? "MPI_Allgather" : "MPI_Allgatherv", recv, want, rbytes, -1,
            (size_t)b.counts[0], s, r, in_place);
    release(send, sbytes, priv);
    release(recv, rbytes, priv);
    free(want);
}

/* The large-count uniform forms, once each (MPI-4). */
static void large_forms(MPI_Comm comm)
{
#if MPI_VERSION >= 4
    int rank, n;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    enum { PER = 1000 };
    int *send = malloc(PER * sizeof(int)), *recv = malloc((size_t)n * PER * sizeof(int));
    for (int i = 0; i < PER; i++)
        send[i] = value(rank, (size_t)i, 9);
    CHECK(MPI_Allgather_c(send, PER, MPI_INT, recv, PER, MPI_INT, comm) == MPI_SUCCESS);
    for (int m = 0; m < n; m++)
        for (int i = 0; i < PER; i++)
            CHECK(recv[m * PER + i] == value(m, (size_t)i, 9));
    memset(recv, 0, (size_t)n * PER * sizeof(int));
    CHECK(MPI_Gather_c(send, PER, MPI_INT, recv, PER, MPI_INT, n - 1, comm) == MPI_SUCCESS);
    for (int m = 0; m < n && rank == n - 1; m++)
        CHECK(recv[m * PER] == value(m, 0, 9) && recv[m * PER + PER - 1] == value(m, PER - 1, 9));
    for (int m = 0; m < n; m++)
        for (int i = 0; i < PER; i++)
            recv[m * PER + i] = value(m, (size_t)i, 10);
    CHECK(MPI_Scatter_c(recv, PER, MPI_INT, send, PER, MPI_INT, 0, comm) == MPI_SUCCESS);
    for (int i = 0; i < PER; i++)
        CHECK(send[i] == value(rank, (size_t)i, 10));
    calls += 3;
    free(send);
    free(recv);
#else
    (void)comm;
#endif
}

/* MPI_BOTTOM: an allgather and a gather whose buffers are types of absolute
 * addresses. */
static void bottom(MPI_Comm comm)
{
    int rank, n;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    enum { PER = 300 };
    int *send = malloc(PER * sizeof(int)), *recv = malloc((size_t)n * PER * sizeof(int));
    for (int i = 0; i < PER; i++)
        send[i] = value(rank, (size_t)i, 11);
    MPI_Aint at_send, at_recv;
    MPI_Get_address(send, &at_send);
    MPI_Get_address(recv, &at_recv);
    int len = PER;
    MPI_Datatype ts, tr;
    MPI_Type_create_hindexed(1, &len, &at_send, MPI_INT, &ts);
    MPI_Type_create_hindexed(1, &len, &at_recv, MPI_INT, &tr);
    MPI_Type_commit(&ts);
    MPI_Type_commit(&tr);
    /* Block m at MPI_BOTTOM + m * extent(tr) + at_recv: recv + m * PER ints. */
    memset(recv, 0, (size_t)n * PER * sizeof(int));
    CHECK(MPI_Allgather(MPI_BOTTOM, 1, ts, MPI_BOTTOM, 1, tr, comm) == MPI_SUCCESS);
    for (int m = 0; m < n; m++)
        for (int i = 0; i < PER; i++)
            if (recv[m * PER + i] != value(m, (size_t)i, 11)) {
                fprintf(stderr, "rank %d: MPI_Allgather at MPI_BOTTOM: %d:%d wrong\n", me, m, i);
                failures++;
                m = n;
                break;
            }
    memset(recv, 0, (size_t)n * PER * sizeof(int));
    CHECK(MPI_Gather(MPI_BOTTOM, 1, ts, MPI_BOTTOM, 1, tr, 0, comm) == MPI_SUCCESS);
    for (int m = 0; m < n && rank == 0; m++)
        CHECK(recv[m * PER + PER - 1] == value(m, PER - 1, 11));
    calls += 2;
    MPI_Type_free(&ts);
    MPI_Type_free(&tr);
    free(send);
    free(recv);
}

/* A root out of range: the MPI's error, reported to the caller. */
static void bad_root(MPI_Comm comm)
{
    int n, x = 1, y[8];
    MPI_Comm_size(comm, &n);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    CHECK(MPI_Gather(&x, 1, MPI_INT, y, 1, MPI_INT, n, comm) != MPI_SUCCESS);
    CHECK(MPI_Scatter(y, 1, MPI_INT, &x, 1, MPI_INT, -2, comm) != MPI_SUCCESS);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_ARE_FATAL);
}

/* The kinds of a case: bytes alike, or ints with either side strided. */
static void kinds_of(int k, bool bytes, const struct kind **s, const struct kind **r)
{
    *s = bytes ? &kbyte : k % 3 == 1 ? &ksint : &kint;
    *r = bytes ? &kbyte : k % 3 == 2 ? &ksint : &kint;
}

static void one_size(MPI_Comm comm, int per, bool bytes, int *k)
{
    int n;
    MPI_Comm_size(comm, &n);
    bool big = (size_t)per * (bytes ? 1 : 4) > 65536;
    for (int root = 0; root < n; root++) {
        if (big && root != n - 1)
            continue;
        for (int in_place = 0; in_place < 2; in_place++) {
            const struct kind *s, *r;
            kinds_of(*k, bytes, &s, &r);
            bool priv = *k % 2;
            struct blocks u = uniform(n, per), v = varying(n, per, *k);
            gather(comm, u, root, in_place, priv, s, r, PLAIN, *k);
            gather(comm, v, root, in_place, !priv, s, r, VECTOR, *k);
            scatter(comm, u, root, in_place, priv, s, r, PLAIN, *k);
            scatter(comm, v, root, in_place, !priv, s, r, VECTOR, *k);
            if (root == 0) {
                allgather(comm, u, in_place, priv, s, r, PLAIN, *k);
                allgather(comm, v, in_place, !priv, s, r, VECTOR, *k);
            }
            if (!big && in_place && root == n - 1) {
                gather(comm, v, root, false, priv, s, r, LARGE, *k);
                scatter(comm, v, root, false, priv, s, r, LARGE, *k);
                allgather(comm, v, false, priv, s, r, LARGE, *k);
            }
            ++*k;
        }
    }
}

/* Every check on `comm` (any of coll_each_comm's). */
static void all_of(MPI_Comm comm, enum coll_comm which)
{
    (void)which;
    int k = 0;
    int bsizes[] = {0, 1, 7, 40, 41, 48, 49, 1000, 65536, (1 << 20) + 13};
    for (size_t s = 0; s < sizeof bsizes / sizeof bsizes[0]; s++)
        if (!(quick && bsizes[s] > 65536))
            one_size(comm, bsizes[s], true, &k);
    int isizes[] = {1, 12, 13, 1000, 16384, (1 << 18) + 3};
    for (size_t s = 0; s < sizeof isizes / sizeof isizes[0]; s++)
        if (!(quick && isizes[s] > 16384))
            one_size(comm, isizes[s], false, &k);
    large_forms(comm);
    bottom(comm);
    bad_root(comm);
}

static void types(void)
{
    kbyte = (struct kind){"byte", MPI_BYTE, 1, 1};
    kint = (struct kind){"int", MPI_INT, sizeof(int), 1};
    MPI_Datatype every_other;
    MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &every_other);
    MPI_Type_commit(&every_other);
    ksint = (struct kind){"every other int", every_other, sizeof(int), 2};
}

/* WISP_COLL=auto (the default), which leaves some calls to the MPI. */
static bool under_auto(void)
{
    const char *mode = getenv("WISP_COLL");
    return !mode || !strcmp(mode, "auto");
}

/* Under WISP_COLL=auto, an MPI_Gatherv of an int from each member on a
 * communicator whose area is set up goes to the MPI (`passed`), right. */
static void auto_passes(void)
{
    if (!under_auto())
        return;
    int mine = value(me, 0, 5), *got = calloc((size_t)np, sizeof(int));
    int *counts = calloc((size_t)np, sizeof(int)), *displs = calloc((size_t)np, sizeof(int));
    CHECK(got && counts && displs);
    for (int m = 0; m < np; m++) {
        counts[m] = 1;
        displs[m] = np - 1 - m;
    }
    MPI_Barrier(MPI_COMM_WORLD); /* past WISP_COLL_AFTER on the world */
    unsigned long long by_wisp = wisp_coll_counter("served"), by_mpi = wisp_coll_counter("passed");
    MPI_Gatherv(&mine, 1, MPI_INT, got, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
    CHECK(wisp_coll_counter("passed") == by_mpi + 1);
    CHECK(wisp_coll_counter("served") == by_wisp);
    for (int m = 0; m < np && me == 0; m++)
        CHECK(got[np - 1 - m] == value(m, 0, 5));
    free(got);
    free(counts);
    free(displs);
}

int main(int argc, char **argv)
{
    coll_start("coll_move", &argc, &argv);
    CHECK(np <= 8);
    types();
    coll_each_comm(all_of, COLL_HALF);
    MPI_Type_free(&ksint.t);
    if (served)
        auto_passes();
    /* Under auto, which leaves small and vector forms to the MPI, some. */
    return coll_finish("coll_move", under_auto() ? 0 : calls / 2, calls);
}
