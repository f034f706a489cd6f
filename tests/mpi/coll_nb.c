/* The nonblocking collectives (MPI_Ibarrier, MPI_Ibcast, MPI_Ireduce,
 * MPI_Iallreduce, MPI_Ireduce_scatter(_block), MPI_Iscan, MPI_Iexscan,
 * MPI_Igather(v), MPI_Iscatter(v), MPI_Iallgather(v), MPI_Ialltoall(v, w);
 * src/coll/nb.h) against values every rank computes itself.
 *
 * - each alone, at sizes from 0 to 1 MiB + odd (inline, staged, single
 *   copy from the heap), every root, MPI_IN_PLACE, a broadcast whose type
 *   is a vector at the root and contiguous elsewhere;
 * - the gathers, scatters, allgathers and all-to-alls from 0 to 560 KB a
 *   block, every root, MPI_IN_PLACE, vector forms with empty blocks in
 *   reverse order; every other long (a resized type) on one side, five in
 *   flight with a blocking allgather among them, completed in reverse
 *   order or with MPI_Waitall, holes left as they were; an allgather to
 *   unpack and a large allreduce behind it while rank 0 blocks in
 *   MPI_Comm_dup (the rescuer must move the allreduce);
 * - many in flight on one communicator at once (more than a member's 8
 *   lines), completed in reverse order, with MPI_Waitall, MPI_Testany,
 *   MPI_Waitsome and MPI_Test loops, mixed with point-to-point requests;
 * - blocking collectives started after nonblocking ones, which complete
 *   after them; a communicator freed with one in flight;
 * - members that start late (a sleep), and one that, after starting a
 *   large allreduce, makes a blocking call that needs the other member
 *   while that member waits for the allreduce (the rescuer must move it:
 *   no hang);
 * - erroneous calls (a root out of range, MPI_OP_NULL): the MPI's error
 *   class;
 * - an allreduce of doubles whose sum depends on the order: the same bits
 *   as the blocking allreduce, on every rank;
 * - two threads, each on its own communicator (MPI_THREAD_MULTIPLE), where
 *   the MPI provides it;
 * - MPI-4's persistent collectives (wisp's lanes where it serves them:
 *   src/coll/persist.h), started in different orders in different
 *   members, among wisp's nonblocking ones;
 * - on communicators that span (virtual) nodes (the world, and the world
 *   with its nodes' members interleaved: src/coll/hier.h), the barrier,
 *   broadcasts and reductions from every root, in place at odd roots,
 *   all in flight at once with point-to-point messages between the
 *   nodes and a blocking allreduce among them, completed in reverse
 *   order, with MPI_Waitall or by MPI_Testall polls.
 *
 * On MPI_COMM_WORLD, then on pairs of consecutive ranks (the virtual nodes
 * of WISP_VNODE_SIZE=2). Arguments: `served` checks that wisp ran them
 * (wisp_coll_counter), `pairs` that it ran the pairs', `across` that it
 * ran the nonblocking barrier, broadcasts and reductions of the world and
 * the interleaved world in stages (virtual nodes, an MPI at
 * MPI_THREAD_MULTIPLE), `single` asks the MPI for MPI_THREAD_SINGLE (then
 * those are the MPI's), `passed` that it ran none; `quick` leaves out
 * 1 MiB. */
#include <math.h>
#include <mpi.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mpi/watchdog.h"
#include "wisp.h"

static int me, np;
static bool quick, wisp_serves; /* `served`: wisp serves the world's */

/* Element i of rank r's contribution. */
static long value(int r, size_t i)
{
    return (long)((i * 7 + (size_t)r * 13) % 1000) - 300;
}

static size_t sizes[] = {0, 1, 5, 6, 7, 100, 8192, 65536 + 3, (1 << 20) / 8 + 5};
enum { NSIZES = sizeof sizes / sizeof *sizes };

static size_t nsizes(void)
{
    return quick ? NSIZES - 1 : NSIZES;
}

/* The members of the communicator under test: world ranks first .. first + size - 1. */
static int first, members;

static void check_sum(const long *got, size_t n, const char *what)
{
    for (size_t i = 0; i < n; i++) {
        long want = 0;
        for (int r = first; r < first + members; r++)
            want += value(r, i);
        if (got[i] != want) {
            fprintf(stderr, "rank %d: %s of %zu elements: [%zu] %ld, not %ld\n", me, what, n, i,
                    got[i], want);
            failures++;
            return;
        }
    }
}

static void alone(MPI_Comm comm)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Request req;
    MPI_Ibarrier(comm, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(req == MPI_REQUEST_NULL);
    for (size_t k = 0; k < nsizes(); k++) {
        size_t n = sizes[k];
        long *in = malloc((n + 1) * sizeof *in), *out = malloc((n + 1) * sizeof *out);
        for (size_t i = 0; i < n; i++)
            in[i] = value(me, i);
        /* allreduce, then in place */
        MPI_Iallreduce(in, out, (int)n, MPI_LONG, MPI_SUM, comm, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        check_sum(out, n, "MPI_Iallreduce");
        memcpy(out, in, n * sizeof *in);
        MPI_Iallreduce(MPI_IN_PLACE, out, (int)n, MPI_LONG, MPI_SUM, comm, &req);
        int flag = 0;
        while (!flag)
            MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
        check_sum(out, n, "MPI_Iallreduce in place");
        /* reduce at every root, in place at odd ones */
        for (int root = 0; root < size; root++) {
            bool in_place = root % 2 && rank == root;
            if (in_place)
                memcpy(out, in, n * sizeof *in);
            else
                memset(out, 0, n * sizeof *out);
            MPI_Ireduce(in_place ? MPI_IN_PLACE : in, out, (int)n, MPI_LONG, MPI_SUM, root, comm,
                        &req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
            if (rank == root)
                check_sum(out, n, "MPI_Ireduce");
        }
        /* broadcast from every root */
        for (int root = 0; root < size; root++) {
            for (size_t i = 0; i < n; i++)
                out[i] = rank == root ? value(root, i) : -1;
            MPI_Ibcast(out, (int)n, MPI_LONG, root, comm, &req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
            for (size_t i = 0; i < n; i++)
                if (out[i] != value(root, i)) {
                    fprintf(stderr, "rank %d: MPI_Ibcast of %zu from %d: [%zu] %ld\n", me, n, root,
                            i, out[i]);
                    failures++;
                    break;
                }
        }
        free(in);
        free(out);
    }
    /* A vector at the root (every other long), contiguous at the others. */
    enum { N = 1000 };
    static long strided[2 * N], packed[N];
    MPI_Datatype every_other;
    MPI_Type_vector(N, 1, 2, MPI_LONG, &every_other);
    MPI_Type_commit(&every_other);
    for (int i = 0; i < N; i++) {
        strided[2 * i] = rank == 0 ? value(0, (size_t)i) : 0;
        packed[i] = -1;
    }
    if (rank == 0)
        MPI_Ibcast(strided, 1, every_other, 0, comm, &req);
    else
        MPI_Ibcast(packed, N, MPI_LONG, 0, comm, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (rank != 0)
        for (int i = 0; i < N; i++)
            CHECK(packed[i] == value(0, (size_t)i));
    /* and the other way round: contiguous at the root, a vector elsewhere,
     * completed by a blocking collective started after it */
    for (int i = 0; i < N; i++) {
        packed[i] = value(0, (size_t)i) + 1;
        strided[2 * i] = -1;
    }
    if (rank == 0)
        MPI_Ibcast(packed, N, MPI_LONG, 0, comm, &req);
    else
        MPI_Ibcast(strided, 1, every_other, 0, comm, &req);
    MPI_Barrier(comm);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (rank != 0)
        for (int i = 0; i < N; i++)
            CHECK(strided[2 * i] == value(0, (size_t)i) + 1);
    MPI_Type_free(&every_other);
}

/* MPI_Ireduce_scatter_block, MPI_Ireduce_scatter (counts 1, 2, ... by
 * rank), MPI_Iscan and MPI_Iexscan, in place or not. */
static void scans(MPI_Comm comm)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    size_t blocks[] = {1, 5, 3000, quick ? 7000 : 70000};
    for (size_t b = 0; b < sizeof blocks / sizeof *blocks; b++)
        for (int in_place = 0; in_place < 2; in_place++) {
            size_t n = blocks[b], total = n * (size_t)size;
            long *in = malloc(total * sizeof *in), *out = malloc(total * sizeof *out);
            int *counts = malloc((size_t)size * sizeof *counts);
            for (size_t i = 0; i < total; i++)
                in[i] = out[i] = value(me, i);
            MPI_Request req;
            MPI_Ireduce_scatter_block(in_place ? MPI_IN_PLACE : in, out, (int)n, MPI_LONG, MPI_SUM,
                                      comm, &req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
            for (size_t i = 0; i < n; i++) {
                long want = 0;
                for (int r = first; r < first + members; r++)
                    want += value(r, (size_t)rank * n + i);
                CHECK(out[i] == want);
            }
            /* counts 1, 2, ..., size, within `total` */
            size_t lo = 0, all = 0;
            for (int r = 0; r < size; r++) {
                counts[r] = (int)((size_t)(r + 1) * n / (size_t)size + 1);
                if (r < rank)
                    lo += (size_t)counts[r];
                all += (size_t)counts[r];
            }
            for (size_t i = 0; i < all && i < total; i++)
                in[i] = out[i] = value(me, i);
            if (all <= total) {
                MPI_Ireduce_scatter(in_place ? MPI_IN_PLACE : in, out, counts, MPI_LONG, MPI_SUM,
                                    comm, &req);
                MPI_Wait(&req, MPI_STATUS_IGNORE);
                for (size_t i = 0; i < (size_t)counts[rank]; i++) {
                    long want = 0;
                    for (int r = first; r < first + members; r++)
                        want += value(r, lo + i);
                    CHECK(out[i] == want);
                }
            }
            for (int exclusive = 0; exclusive < 2; exclusive++) {
                for (size_t i = 0; i < n; i++)
                    in[i] = out[i] = value(me, i);
                void *send = in_place ? MPI_IN_PLACE : (void *)in;
                if (exclusive)
                    MPI_Iexscan(send, out, (int)n, MPI_LONG, MPI_SUM, comm, &req);
                else
                    MPI_Iscan(send, out, (int)n, MPI_LONG, MPI_SUM, comm, &req);
                MPI_Wait(&req, MPI_STATUS_IGNORE);
                int last = exclusive ? rank - 1 : rank;
                if (last >= 0)
                    for (size_t i = 0; i < n; i++) {
                        long want = 0;
                        for (int r = first; r <= first + last; r++)
                            want += value(r, i);
                        CHECK(out[i] == want);
                    }
            }
            free(in);
            free(out);
            free(counts);
        }
}

/* Whether got[i * stride] is value(r, off + i) for i < n (a wrong one
 * reported once). */
static void check_block(const long *got, size_t n, size_t stride, int r, size_t off,
                        const char *what, int root)
{
    for (size_t i = 0; i < n; i++)
        if (got[i * stride] != value(r, off + i)) {
            fprintf(stderr, "rank %d: %s of %zu (root %d): block of %d [%zu] %ld, not %ld\n", me,
                    what, n, root, r, i, got[i * stride], value(r, off + i));
            failures++;
            return;
        }
}

/* MPI_Igather(v), MPI_Iscatter(v), MPI_Iallgather(v), MPI_Ialltoall(v, w)
 * of n longs a block: every root, MPI_IN_PLACE (at odd roots, and in the
 * allgather and all-to-all), vector forms whose odd ranks have no block and
 * whose blocks lie in reverse rank order. Rank r's block j of a scatter or
 * all-to-all is value(r, j * n + i). */
static void moves_of(MPI_Comm comm, size_t n)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    size_t all = n * (size_t)size;
    long *in = malloc((all + 1) * sizeof *in), *out = malloc((all + 1) * sizeof *out);
    int *counts = malloc((size_t)size * sizeof *counts),
        *displs = malloc((size_t)size * sizeof *displs);
    int *zeros = calloc((size_t)size, sizeof *zeros);
    MPI_Request req;
    for (size_t i = 0; i < all; i++)
        in[i] = value(me, i);
    for (int r = 0; r < size; r++) {
        counts[r] = r % 2 ? 0 : (int)n;
        displs[r] = (size - 1 - r) * (int)n;
    }
    for (int root = 0; root < size; root++) {
        bool in_place = root % 2 && rank == root;
        for (size_t i = 0; i < all; i++)
            out[i] = -1;
        if (in_place)
            memcpy(out + (size_t)root * n, in, n * sizeof *in);
        MPI_Igather(in_place ? MPI_IN_PLACE : in, (int)n, MPI_LONG, out, (int)n, MPI_LONG, root,
                    comm, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        if (rank == root)
            for (int r = 0; r < size; r++)
                check_block(out + (size_t)r * n, n, 1, first + r, 0, "MPI_Igather", root);
        /* the v form: odd ranks send nothing, blocks in reverse order */
        for (size_t i = 0; i < all; i++)
            out[i] = -1;
        MPI_Igatherv(in, counts[rank], MPI_LONG, out, counts, displs, MPI_LONG, root, comm, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        for (int r = 0; rank == root && r < size; r++) {
            if (counts[r])
                check_block(out + displs[r], n, 1, first + r, 0, "MPI_Igatherv", root);
            else
                CHECK(n == 0 || out[displs[r]] == -1);
        }
        /* scatter: member j gets the root's block j */
        for (size_t i = 0; i < all; i++)
            out[i] = -1;
        MPI_Iscatter(in, (int)n, MPI_LONG, in_place ? MPI_IN_PLACE : out, (int)n, MPI_LONG, root,
                     comm, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        if (!in_place)
            check_block(out, n, 1, first + root, (size_t)rank * n, "MPI_Iscatter", root);
        for (size_t i = 0; i < all; i++)
            out[i] = -1;
        MPI_Iscatterv(in, counts, displs, MPI_LONG, out, counts[rank], MPI_LONG, root, comm, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        check_block(out, (size_t)counts[rank], 1, first + root, (size_t)displs[rank],
                    "MPI_Iscatterv", root);
    }
    /* allgather, in place, and its v form */
    for (int in_place = 0; in_place < 2; in_place++) {
        for (size_t i = 0; i < all; i++)
            out[i] = -1;
        if (in_place)
            memcpy(out + (size_t)rank * n, in, n * sizeof *in);
        MPI_Iallgather(in_place ? MPI_IN_PLACE : in, (int)n, MPI_LONG, out, (int)n, MPI_LONG, comm,
                       &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        for (int r = 0; r < size; r++)
            check_block(out + (size_t)r * n, n, 1, first + r, 0, "MPI_Iallgather", -1);
    }
    for (size_t i = 0; i < all; i++)
        out[i] = -1;
    MPI_Iallgatherv(in, counts[rank], MPI_LONG, out, counts, displs, MPI_LONG, comm, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    for (int r = 0; r < size; r++)
        check_block(out + displs[r], (size_t)counts[r], 1, first + r, 0, "MPI_Iallgatherv", -1);
    /* all-to-all, in place, and the v form (block j of odd ranks empty,
     * receive blocks in reverse order) */
    for (int in_place = 0; in_place < 2; in_place++) {
        if (in_place)
            memcpy(out, in, all * sizeof *in);
        MPI_Ialltoall(in_place ? MPI_IN_PLACE : in, (int)n, MPI_LONG, out, (int)n, MPI_LONG, comm,
                      &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        for (int r = 0; r < size; r++)
            check_block(out + (size_t)r * n, n, 1, first + r, (size_t)rank * n, "MPI_Ialltoall",
                        -1);
    }
    int *sdispls = malloc((size_t)size * sizeof *sdispls),
        *scounts = malloc((size_t)size * sizeof *scounts);
    for (int r = 0; r < size; r++) {
        scounts[r] = rank % 2 ? 0 : (int)n; /* what rank sends to r */
        sdispls[r] = r * (int)n;
        counts[r] = r % 2 ? 0 : (int)n; /* what rank receives from r */
    }
    for (size_t i = 0; i < all; i++)
        out[i] = -1;
    MPI_Ialltoallv(in, scounts, sdispls, MPI_LONG, out, counts, displs, MPI_LONG, comm, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    for (int r = 0; r < size; r++)
        if (counts[r])
            check_block(out + displs[r], n, 1, first + r, (size_t)rank * n, "MPI_Ialltoallv", -1);
    free(scounts);
    free(sdispls);
    free(zeros);
    free(in);
    free(out);
    free(counts);
    free(displs);
}

/* A type that is not one piece: every other long (a resized long), at the
 * root of a gather, the sender of a scatter and all-to-all, the receivers
 * of an allgather and of the all-to-all's w form; several in flight at
 * once, completed in reverse order and with MPI_Waitall, a blocking
 * allgather among them. */
static void moves_strided(MPI_Comm comm, size_t n)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    size_t all = n * (size_t)size;
    MPI_Datatype other;
    MPI_Type_create_resized(MPI_LONG, 0, 2 * (MPI_Aint)sizeof(long), &other);
    MPI_Type_commit(&other);
    long *in = malloc((all + 1) * sizeof *in), *sin = malloc((2 * all + 1) * sizeof *sin);
    long *g = malloc((2 * all + 1) * sizeof *g), *s = malloc((n + 1) * sizeof *s);
    long *ag = malloc((2 * all + 1) * sizeof *ag), *a2 = malloc((all + 1) * sizeof *a2);
    long *w = malloc((2 * all + 1) * sizeof *w), *bl = malloc((all + 1) * sizeof *bl);
    for (size_t i = 0; i < all; i++) {
        in[i] = value(me, i);
        sin[2 * i] = value(me, i);
        sin[2 * i + 1] = -7;
    }
    for (size_t i = 0; i < 2 * all; i++)
        g[i] = ag[i] = w[i] = -1;
    int *ones = malloc((size_t)size * sizeof *ones),
        *bdispls = malloc((size_t)size * sizeof *bdispls);
    MPI_Datatype *longs = malloc((size_t)size * sizeof *longs),
                 *others = malloc((size_t)size * sizeof *others);
    for (int r = 0; r < size; r++) {
        ones[r] = (int)n;
        bdispls[r] = r * (int)(n * 2 * sizeof(long)); /* bytes, every other long */
        longs[r] = MPI_LONG;
        others[r] = other;
    }
    int *sbd = malloc((size_t)size * sizeof *sbd);
    for (int r = 0; r < size; r++)
        sbd[r] = r * (int)(n * sizeof(long));
    int root = size - 1;
    MPI_Request reqs[5];
    MPI_Igather(in, (int)n, MPI_LONG, g, (int)n, other, root, comm, &reqs[0]);
    MPI_Iscatter(sin, (int)n, other, s, (int)n, MPI_LONG, root, comm, &reqs[1]);
    MPI_Iallgather(in, (int)n, MPI_LONG, ag, (int)n, other, comm, &reqs[2]);
    MPI_Allgather(in, (int)n, MPI_LONG, bl, (int)n, MPI_LONG, comm); /* blocking, among them */
    MPI_Ialltoall(sin, (int)n, other, a2, (int)n, MPI_LONG, comm, &reqs[3]);
    MPI_Ialltoallw(in, ones, sbd, longs, w, ones, bdispls, others, comm, &reqs[4]);
    MPI_Status statuses[5];
    if (rank % 2) {
        for (int k = 4; k >= 0; k--)
            MPI_Wait(&reqs[k], &statuses[k]);
    } else {
        MPI_Waitall(5, reqs, statuses);
    }
    for (int r = 0; r < size; r++) {
        if (rank == root)
            check_block(g + 2 * (size_t)r * n, n, 2, first + r, 0, "MPI_Igather to a vector", root);
        check_block(ag + 2 * (size_t)r * n, n, 2, first + r, 0, "MPI_Iallgather to a vector", -1);
        check_block(bl + (size_t)r * n, n, 1, first + r, 0, "MPI_Allgather among them", -1);
        check_block(a2 + (size_t)r * n, n, 1, first + r, (size_t)rank * n,
                    "MPI_Ialltoall from a vector", -1);
        check_block(w + 2 * (size_t)r * n, n, 2, first + r, (size_t)rank * n,
                    "MPI_Ialltoallw to a vector", -1);
        for (size_t i = 0; i < n; i++)
            if (g[2 * ((size_t)r * n + i) + 1] != -1 || ag[2 * ((size_t)r * n + i) + 1] != -1 ||
                w[2 * ((size_t)r * n + i) + 1] != -1) {
                fprintf(stderr, "rank %d: a hole written (%zu longs)\n", me, n);
                failures++;
                break;
            }
    }
    check_block(s, n, 1, first + root, (size_t)rank * n, "MPI_Iscatter from a vector", root);
    MPI_Type_free(&other);
    free(in), free(sin), free(g), free(s), free(ag), free(a2), free(w), free(bl);
    free(ones), free(bdispls), free(longs), free(others), free(sbd);
}

/* The rescuer with a block to unpack: rank 0 starts an allgather into a
 * vector (completed only in a call of its own, MPI_Unpack's) and a large
 * allreduce, then blocks in MPI_Comm_dup, which needs rank 1, while rank 1
 * waits for the allreduce first: the rescuer must move the allreduce past
 * the allgather that waits for its unpacking (no hang). */
static void moves_rescued(MPI_Comm comm)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    size_t n = quick ? 40000 : 300000, m = 100;
    long *in = malloc(n * sizeof *in), *out = malloc(n * sizeof *out);
    long *ag = malloc(2 * m * (size_t)size * sizeof *ag);
    for (size_t i = 0; i < n; i++)
        in[i] = value(me, i);
    MPI_Datatype other;
    MPI_Type_create_resized(MPI_LONG, 0, 2 * (MPI_Aint)sizeof(long), &other);
    MPI_Type_commit(&other);
    MPI_Request reqs[2];
    MPI_Iallgather(in, (int)m, MPI_LONG, ag, (int)m, other, comm, &reqs[0]);
    MPI_Type_free(&other); /* the request keeps it */
    MPI_Iallreduce(in, out, (int)n, MPI_LONG, MPI_SUM, comm, &reqs[1]);
    MPI_Comm dup;
    MPI_Status statuses[2];
    if (rank == 0) {
        MPI_Comm_dup(comm, &dup);
        MPI_Waitall(2, reqs, statuses);
    } else {
        MPI_Wait(&reqs[1], MPI_STATUS_IGNORE);
        MPI_Comm_dup(comm, &dup);
        MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
    }
    MPI_Comm_free(&dup);
    check_sum(out, n, "MPI_Iallreduce behind an MPI_Iallgather to unpack");
    for (int r = 0; r < size; r++)
        check_block(ag + 2 * (size_t)r * m, m, 2, first + r, 0,
                    "MPI_Iallgather around MPI_Comm_dup", -1);
    free(in);
    free(out);
    free(ag);
}

/* All of them; where wisp serves the world's under WISP_COLL=on (no limit
 * of auto's), it served every one (and the blocking allgather among them). */
static void moves(MPI_Comm comm, bool all_served)
{
    int size;
    MPI_Comm_size(comm, &size);
    unsigned long long before = wisp_coll_counter("served");
    size_t ns[] = {0, 1, 7, 1000, 8192 + 3, 70000}, nns = sizeof ns / sizeof *ns - quick;
    for (size_t k = 0; k < nns; k++)
        moves_of(comm, ns[k]);
    moves_strided(comm, 5);
    moves_strided(comm, quick ? 3000 : 40000);
    moves_rescued(comm);
    unsigned long long calls = nns * (4 * (unsigned long long)size + 6) + 2 * 6 + 2;
    if (all_served)
        CHECK(wisp_coll_counter("served") - before >= calls);
}

/* MPI-4's persistent collectives (where the MPI has them; wisp serves them
 * on lanes of their own where it serves the nonblocking forms, persist.h),
 * among wisp's nonblocking ones: rounds with new data each,
 * MPI_Start and MPI_Startall, a type freed after the init, and starts in a
 * different order in different members (they match in the order of their
 * inits, MPI-4.1 section 6.13: a persistent form that made the nonblocking
 * call at each start, matched in the order started, would hang here). */
static void persistent(MPI_Comm comm)
{
#if MPI_VERSION >= 4
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    enum { N = 3000 };
    static long in[N], sum[N], scan[N], word;
    MPI_Datatype longs;
    MPI_Type_contiguous(1, MPI_LONG, &longs);
    MPI_Type_commit(&longs);
    MPI_Request reqs[4];
    MPI_Status statuses[4];
    MPI_Allreduce_init(in, sum, N, MPI_LONG, MPI_SUM, comm, MPI_INFO_NULL, &reqs[0]);
    MPI_Scan_init(in, scan, N, MPI_LONG, MPI_SUM, comm, MPI_INFO_NULL, &reqs[1]);
    MPI_Bcast_init(&word, 1, longs, size - 1, comm, MPI_INFO_NULL, &reqs[2]);
    MPI_Type_free(&longs); /* the request keeps it */
    MPI_Barrier_init(comm, MPI_INFO_NULL, &reqs[3]);
    for (int round = 0; round < 6; round++) {
        for (int i = 0; i < N; i++)
            in[i] = value(me, (size_t)(i + round));
        word = rank == size - 1 ? 1000 + round : -1;
        MPI_Request nb;
        MPI_Ibarrier(comm, &nb);
        if (round % 2) {
            MPI_Startall(4, reqs);
        } else {
            for (int k = 0; k < 4; k++)
                MPI_Start(&reqs[rank % 2 ? 3 - k : k]);
        }
        MPI_Wait(&nb, MPI_STATUS_IGNORE);
        MPI_Waitall(4, reqs, statuses);
        for (int i = 0; i < N; i++) {
            long all = 0, upto = 0;
            for (int r = first; r < first + members; r++) {
                all += value(r, (size_t)(i + round));
                if (r <= first + rank)
                    upto += value(r, (size_t)(i + round));
            }
            CHECK(sum[i] == all);
            CHECK(scan[i] == upto);
        }
        CHECK(word == 1000 + round);
    }
    for (int k = 0; k < 4; k++)
        MPI_Request_free(&reqs[k]);
#else
    (void)comm;
#endif
}

/* Erroneous calls return the MPI's error class (a root out of range, no
 * operation), and the communicator goes on working. */
static void errors(MPI_Comm comm)
{
    MPI_Comm mine;
    MPI_Comm_dup(comm, &mine);
    MPI_Comm_set_errhandler(mine, MPI_ERRORS_RETURN);
    MPI_Barrier(mine);
    MPI_Barrier(mine); /* its area is set up now */
    int size, cls = MPI_SUCCESS;
    MPI_Comm_size(mine, &size);
    long word = 1, sum = 0;
    MPI_Request req = MPI_REQUEST_NULL;
    int rc = MPI_Ibcast(&word, 1, MPI_LONG, size, mine, &req);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ROOT);
    rc = MPI_Iallreduce(&word, &sum, 1, MPI_LONG, MPI_OP_NULL, mine, &req);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_OP);
    MPI_Iallreduce(&word, &sum, 1, MPI_LONG, MPI_SUM, mine, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(sum == size);
    MPI_Comm_free(&mine);
}

/* Many in flight at once, mixed with point-to-point requests. */
static void many(MPI_Comm comm)
{
    enum { K = 20, N = 6 };
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    long in[K][N], out[K][N];
    MPI_Request reqs[K + 2];
    MPI_Status statuses[K + 2];
    for (int k = 0; k < K; k++)
        for (int i = 0; i < N; i++)
            in[k][i] = value(me, (size_t)(i + k));
    int next = (rank + 1) % size, prev = (rank + size - 1) % size, got = -1;
    MPI_Irecv(&got, 1, MPI_INT, prev, 5, comm, &reqs[K]);
    for (int k = 0; k < K; k++)
        if (k % 3 == 2)
            MPI_Ibarrier(comm, &reqs[k]);
        else
            MPI_Iallreduce(in[k], out[k], N, MPI_LONG, MPI_SUM, comm, &reqs[k]);
    MPI_Isend(&rank, 1, MPI_INT, next, 5, comm, &reqs[K + 1]);
    if (rank % 2) { /* in reverse */
        for (int k = K + 1; k >= 0; k--)
            MPI_Wait(&reqs[k], MPI_STATUS_IGNORE);
    } else if (rank % 4 == 0) {
        MPI_Waitall(K + 2, reqs, statuses);
    } else {
        int left = K + 2;
        while (left) {
            int outcount, idx[K + 2];
            MPI_Waitsome(K + 2, reqs, &outcount, idx, statuses);
            left -= outcount;
        }
    }
    CHECK(got == prev);
    for (int round = 0; round < 2; round++) {
        for (int k = 0; k < K; k++)
            if (k % 3 != 2 || round)
                for (int i = 0; i < N; i++) {
                    long want = 0;
                    for (int r = 0; r < size; r++)
                        want += value(r + me - rank, (size_t)(i + k));
                    CHECK(out[k][i] == want);
                }
        if (round)
            break;
        /* again, MPI_Testany until every one is done */
        memset(out, 0, sizeof out);
        for (int k = 0; k < K; k++)
            MPI_Iallreduce(in[k], out[k], N, MPI_LONG, MPI_SUM, comm, &reqs[k]);
        for (int done = 0; done < K;) {
            int idx, flag;
            MPI_Testany(K, reqs, &idx, &flag, MPI_STATUS_IGNORE);
            if (flag && idx != MPI_UNDEFINED)
                done++;
        }
    }
}

/* Blocking collectives after nonblocking ones; a member that starts late;
 * one that blocks in another call that needs its peer (the rescuer). */
static void orders(MPI_Comm comm)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    size_t n = quick ? 40000 : 300000; /* staged or single copy: many phases */
    long *in = malloc(n * sizeof *in), *out = malloc(n * sizeof *out), word = rank == 0 ? 77 : 0;
    for (size_t i = 0; i < n; i++)
        in[i] = value(me, i);
    MPI_Request req, breq;
    MPI_Iallreduce(in, out, (int)n, MPI_LONG, MPI_SUM, comm, &req);
    MPI_Ibcast(&word, 1, MPI_LONG, 0, comm, &breq);
    long again = rank == 0 ? 5 : 0;
    MPI_Bcast(&again, 1, MPI_LONG, 0, comm); /* completes both before it */
    CHECK(again == 5);
    MPI_Wait(&breq, MPI_STATUS_IGNORE);
    CHECK(word == 77);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    check_sum(out, n, "MPI_Iallreduce before MPI_Bcast");

    if (rank == 1)
        sleep_ms(200);
    MPI_Iallreduce(in, out, (int)n, MPI_LONG, MPI_SUM, comm, &req);
    if (rank == 0) { /* blocks in a call that needs rank 1, which waits for the allreduce */
        MPI_Comm dup;
        MPI_Comm_dup(comm, &dup);
        MPI_Comm_free(&dup);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Comm dup;
        MPI_Comm_dup(comm, &dup);
        MPI_Comm_free(&dup);
    }
    check_sum(out, n, "MPI_Iallreduce around MPI_Comm_dup");

    /* A communicator freed with a collective in flight (MPI-4.1 section
     * 7.4.3: it completes normally). Open MPI 4.1.4's own (libnbc) crashes
     * there, in MPI_Wait: only where wisp serves it. */
    bool free_first = true;
#ifdef OPEN_MPI
    free_first = wisp_serves;
#endif
    MPI_Comm mine;
    MPI_Comm_dup(comm, &mine);
    MPI_Barrier(mine);
    MPI_Barrier(mine); /* its area is set up now */
    MPI_Iallreduce(in, out, 7, MPI_LONG, MPI_SUM, mine, &req);
    if (free_first)
        MPI_Comm_free(&mine);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (!free_first)
        MPI_Comm_free(&mine);
    check_sum(out, 7, "MPI_Iallreduce on a freed communicator");
    free(in);
    free(out);
}

/* Every member's value(world rank, i) summed, into want[0 .. n). */
static void sum_of(MPI_Comm comm, long *want, size_t n)
{
    int size;
    MPI_Comm_size(comm, &size);
    MPI_Group group, world_group;
    MPI_Comm_group(comm, &group);
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    for (int r = 0; r < size; r++) {
        int w;
        MPI_Group_translate_ranks(group, 1, &r, world_group, &w);
        for (size_t i = 0; i < n; i++)
            want[i] = (r ? want[i] : 0) + value(w, i);
    }
    MPI_Group_free(&group);
    MPI_Group_free(&world_group);
}

static void check_vector(const long *got, const long *want, size_t n, const char *what, int root)
{
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i]) {
            fprintf(stderr, "rank %d: %s of %zu (root %d): [%zu] %ld, not %ld\n", me, what, n, root,
                    i, got[i], want[i]);
            failures++;
            return;
        }
}

/* A communicator that spans nodes: for each size (inline, staged, single
 * copy), an MPI_Ibarrier, an MPI_Ibcast and an MPI_Ireduce from every root
 * (in place at odd roots), an MPI_Iallreduce and one in place, all in
 * flight at once, with a message to the next rank and from the previous
 * one (on another node) around them and, in the middle, a blocking
 * MPI_Allreduce (which completes the ones before it); completed in
 * reverse order, by MPI_Waitall, or by MPI_Testall polls. Where wisp
 * serves them (`served`), it served every nonblocking one. */
static void spanning(MPI_Comm comm, bool served)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    size_t ns[] = {0, 1, 6, 1000, 70001}, nns = sizeof ns / sizeof *ns;
    int nreq = 2 * size + 3 + 2;
    MPI_Request *reqs = malloc((size_t)nreq * sizeof *reqs);
    MPI_Status *statuses = malloc((size_t)nreq * sizeof *statuses);
    unsigned long long before = wisp_coll_counter("served"), calls = 0;
    for (size_t k = 0; k < nns; k++) {
        size_t n = ns[k], bytes = (n + 1) * sizeof(long);
        long *in = malloc(bytes), *want = malloc(bytes), *all = malloc(bytes),
             *all2 = malloc(bytes), *bc = malloc(bytes * (size_t)size),
             *red = malloc(bytes * (size_t)size);
        sum_of(comm, want, n);
        for (int round = 0; round < 3; round++) {
            for (size_t i = 0; i < n; i++)
                in[i] = value(me, i);
            memcpy(all2, in, n * sizeof *in);
            int q = 0, from = -1, next = (rank + 1) % size, prev = (rank + size - 1) % size;
            MPI_Irecv(&from, 1, MPI_INT, prev, 9, comm, &reqs[q++]);
            MPI_Ibarrier(comm, &reqs[q++]);
            for (int root = 0; root < size; root++) {
                long *b = bc + (size_t)root * (n + 1), *r = red + (size_t)root * (n + 1);
                for (size_t i = 0; i < n; i++) {
                    b[i] = rank == root ? value(root, i) + round : -1;
                    r[i] = rank == root && root % 2 ? in[i] : -1;
                }
                MPI_Ibcast(b, (int)n, MPI_LONG, root, comm, &reqs[q++]);
                MPI_Ireduce(rank == root && root % 2 ? MPI_IN_PLACE : in, r, (int)n, MPI_LONG,
                            MPI_SUM, root, comm, &reqs[q++]);
                if (root == size / 2) { /* a blocking one among them */
                    long one = 1, ones = 0;
                    MPI_Allreduce(&one, &ones, 1, MPI_LONG, MPI_SUM, comm);
                    CHECK(ones == size);
                }
            }
            MPI_Iallreduce(in, all, (int)n, MPI_LONG, MPI_SUM, comm, &reqs[q++]);
            MPI_Iallreduce(MPI_IN_PLACE, all2, (int)n, MPI_LONG, MPI_SUM, comm, &reqs[q++]);
            MPI_Isend(&rank, 1, MPI_INT, next, 9, comm, &reqs[q++]);
            calls += (unsigned long long)q - 2;
            if (round == 0) {
                for (int j = q - 1; j >= 0; j--)
                    MPI_Wait(&reqs[j], MPI_STATUS_IGNORE);
            } else if (round == 1) {
                MPI_Waitall(q, reqs, statuses);
            } else {
                for (int flag = 0; !flag;)
                    MPI_Testall(q, reqs, &flag, statuses);
            }
            CHECK(from == prev);
            for (int root = 0; root < size; root++) {
                long *b = bc + (size_t)root * (n + 1), *r = red + (size_t)root * (n + 1);
                for (size_t i = 0; i < n; i++)
                    if (b[i] != value(root, i) + round) {
                        fprintf(stderr,
                                "rank %d: MPI_Ibcast of %zu from %d across nodes: [%zu] %ld\n", me,
                                n, root, i, b[i]);
                        failures++;
                        break;
                    }
                if (rank == root)
                    check_vector(r, want, n, "MPI_Ireduce across nodes", root);
            }
            check_vector(all, want, n, "MPI_Iallreduce across nodes", -1);
            check_vector(all2, want, n, "MPI_Iallreduce in place across nodes", -1);
        }
        free(in);
        free(want);
        free(all);
        free(all2);
        free(bc);
        free(red);
    }
    free(reqs);
    free(statuses);
    if (served)
        CHECK(wisp_coll_counter("served") - before >= calls);
}

/* Doubles whose sum depends on the order: the blocking allreduce's bits,
 * the same on every rank. */
static void same_bits(MPI_Comm comm, bool served)
{
    if (!served)
        return; /* the MPI's own nonblocking and blocking forms may fold in different orders */
    enum { N = 3000 };
    static double x[N], nb[N], bl[N], rank0[N];
    for (int i = 0; i < N; i++)
        x[i] = (me % 2 ? 1e16 : 1.0) * (1.0 + (double)i / 7.0) * (me % 3 ? -1 : 1) + me * 0.1;
    MPI_Request req;
    MPI_Iallreduce(x, nb, N, MPI_DOUBLE, MPI_SUM, comm, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Allreduce(x, bl, N, MPI_DOUBLE, MPI_SUM, comm);
    CHECK(!memcmp(nb, bl, sizeof nb));
    memcpy(rank0, nb, sizeof nb);
    MPI_Bcast(rank0, N, MPI_DOUBLE, 0, comm);
    CHECK(!memcmp(nb, rank0, sizeof nb));
}

static void *thread_main(void *arg)
{
    MPI_Comm comm = *(MPI_Comm *)arg;
    for (int round = 0; round < 50; round++) {
        long in[3] = {me, round, 1}, out[3];
        MPI_Request req;
        MPI_Iallreduce(in, out, 3, MPI_LONG, MPI_SUM, comm, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        CHECK(out[0] == (long)np * (np - 1) / 2 && out[1] == (long)round * np && out[2] == np);
    }
    return NULL;
}

static void threads(void)
{
    MPI_Comm comms[2];
    pthread_t t[2];
    for (int i = 0; i < 2; i++) {
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[i]);
        MPI_Barrier(comms[i]);
        MPI_Barrier(comms[i]);
    }
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, thread_main, &comms[i]);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < 2; i++)
        MPI_Comm_free(&comms[i]);
}

int main(int argc, char **argv)
{
    bool served = false, passed = false, pairs = false, across = false, single = false;
    for (int i = 1; i < argc; i++) {
        served |= !strcmp(argv[i], "served");
        pairs |= !strcmp(argv[i], "pairs");
        across |= !strcmp(argv[i], "across");
        single |= !strcmp(argv[i], "single");
        passed |= !strcmp(argv[i], "passed");
        quick |= !strcmp(argv[i], "quick");
    }
    wisp_serves = served;
    watchdog_start("coll_nb", 200);
    int provided;
    MPI_Init_thread(&argc, &argv, single ? MPI_THREAD_SINGLE : MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    /* The area is set up at the second collective (WISP_COLL_AFTER=1). */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    unsigned long long before = wisp_coll_counter("served");
    first = 0;
    members = np;
    alone(MPI_COMM_WORLD);
    scans(MPI_COMM_WORLD);
    const char *setting = getenv("WISP_COLL");
    moves(MPI_COMM_WORLD, served && setting && !strcmp(setting, "on"));
    persistent(MPI_COMM_WORLD);
    unsigned long long after = wisp_coll_counter("served");
    many(MPI_COMM_WORLD);
    errors(MPI_COMM_WORLD);
    orders(MPI_COMM_WORLD);
    same_bits(MPI_COMM_WORLD, served);
    /* Across nodes: the world, then the world whose members alternate
     * between the nodes (even ranks first: virtual nodes of two then hold
     * members r and r + np / 2, and the root's node rank is not r's). */
    if (across && !single) /* else no test of the stages: both MPIs give it */
        CHECK(provided == MPI_THREAD_MULTIPLE);
    spanning(MPI_COMM_WORLD, served || (across && provided == MPI_THREAD_MULTIPLE));
    if (across && single) { /* below MPI_THREAD_MULTIPLE: the MPI's */
        unsigned long long was = wisp_coll_counter("served");
        long one = 1, ones = 0;
        MPI_Request req;
        MPI_Iallreduce(&one, &ones, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        CHECK(ones == np && wisp_coll_counter("served") == was);
    }
    MPI_Comm mixed;
    MPI_Comm_split(MPI_COMM_WORLD, 0, me % 2 * np + me, &mixed);
    MPI_Barrier(mixed);
    MPI_Barrier(mixed); /* set up */
    spanning(mixed, served || (across && provided == MPI_THREAD_MULTIPLE));
    MPI_Comm_free(&mixed);
    /* Pairs of consecutive ranks: the virtual nodes of WISP_VNODE_SIZE=2,
     * where the world spans nodes (and its nonblocking forms are the MPI's). */
    MPI_Comm pair;
    MPI_Comm_split(MPI_COMM_WORLD, me / 2, me, &pair);
    MPI_Comm_size(pair, &members);
    first = me / 2 * 2;
    MPI_Barrier(pair);
    MPI_Barrier(pair);
    unsigned long long pair_before = wisp_coll_counter("served");
    alone(pair);
    scans(pair);
    moves(pair, false);
    persistent(pair);
    unsigned long long pair_after = wisp_coll_counter("served");
    many(pair);
    MPI_Comm_free(&pair);
    int pair_size = members;
    first = 0;
    members = np;
    if (provided == MPI_THREAD_MULTIPLE)
        threads();
    if (served)
        CHECK(after - before >= 10);
    if (served || pairs)
        CHECK(pair_size < 2 || pair_after - pair_before >= 10);
    if (passed)
        CHECK(wisp_coll_counter("served") == 0);
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0)
        printf("coll_nb: %d processes, %llu calls through the heap (rank 0): %s\n", np,
               (unsigned long long)wisp_coll_counter("served"), all ? "FAILED" : "ok");
    MPI_Finalize();
    return all ? 1 : 0;
}
