/* MPI-4's persistent collectives (MPI_Barrier_init, MPI_Bcast_init,
 * MPI_Reduce_init, MPI_Allreduce_init, MPI_Reduce_scatter(_block)_init,
 * MPI_Scan_init, MPI_Exscan_init; src/coll/persist.h) against values every
 * rank computes itself:
 *
 * - every one, rounds of new data each, at sizes inline, staged in many
 *   phases (more than a lane's 16 KiB half) and 1 MiB + odd, every root;
 * - started in different orders in different members (they match in the
 *   order of their inits: MPICH's coll/p_order), completed one by one in
 *   reverse;
 * - MPI_Startall of several with point-to-point persistent requests and
 *   the MPI's own (MPI_Allgather_init), one MPI_Waitall;
 * - beside blocking and nonblocking collectives on the same communicator,
 *   one member's blocking barrier before its start and another's after (a
 *   blocking collective must not wait for a persistent round);
 * - MPI_IN_PLACE; a broadcast whose type is a vector on some members
 *   (freed after the init) and contiguous on the root;
 * - MPI_Request_free of requests never started and of inactive ones, 70
 *   on one communicator (the lanes' directory grows), and a communicator
 *   freed between rounds of its requests.
 *
 * On MPI_COMM_WORLD, the world reversed, and the pairs of consecutive
 * ranks. Arguments as coll_check.h's: `served` also checks that wisp ran
 * the rounds, `passed` that it ran none. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/coll_check.h"

#if MPI_VERSION >= 4

static int rank, size;

/* Element i of rank r's contribution in round `round`. */
static long value(int r, size_t i, int round)
{
    return (long)((i * 7 + (size_t)r * 13 + (size_t)round * 101) % 1000) - 300;
}

static void fill(long *v, size_t n, int round)
{
    for (size_t i = 0; i < n; i++)
        v[i] = value(rank, i, round);
}

/* The sum of ranks [from, to] of element i. */
static long sum_of(int from, int to, size_t i, int round)
{
    long s = 0;
    for (int r = from; r <= to; r++)
        s += value(r, i, round);
    return s;
}

static void check_sums(const long *got, size_t n, int from, int to, int round, const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (got[i] != sum_of(from, to, i, round)) {
            COLL_WRONG("rank %d: %s of %zu, round %d: [%zu] %ld, not %ld\n", me, what, n, round, i,
                       got[i], sum_of(from, to, i, round));
            return;
        }
}

static size_t sizes[] = {5, 3000, (1 << 20) / 8 + 5};
static MPI_Status sts[128];

/* Every call, rounds with new data. */
static void each_call(MPI_Comm comm, size_t n)
{
    long *in = malloc(n * sizeof(long)), *all = malloc(n * sizeof(long)),
         *red = malloc(n * sizeof(long)), *scan = malloc(n * sizeof(long)),
         *ex = malloc(n * sizeof(long)), *bc = malloc(n * sizeof(long)),
         *rsb = malloc(n * sizeof(long)), *rs = malloc(((size_t)size * n) * sizeof(long)),
         *big = malloc(((size_t)size * n) * sizeof(long));
    int root = (int)(n % (size_t)size), *counts = malloc(sizeof(int) * (size_t)size);
    for (int r = 0; r < size; r++)
        counts[r] = (int)n / 2 + r;
    size_t rs_total = 0, rs_lo = 0;
    for (int r = 0; r < size; r++) {
        if (r < rank)
            rs_lo += (size_t)counts[r];
        rs_total += (size_t)counts[r];
    }
    enum { CALLS = 8 };
    MPI_Request reqs[CALLS];
    MPI_Allreduce_init(in, all, (int)n, MPI_LONG, MPI_SUM, comm, MPI_INFO_NULL, &reqs[0]);
    MPI_Reduce_init(in, red, (int)n, MPI_LONG, MPI_SUM, root, comm, MPI_INFO_NULL, &reqs[1]);
    MPI_Scan_init(in, scan, (int)n, MPI_LONG, MPI_SUM, comm, MPI_INFO_NULL, &reqs[2]);
    MPI_Exscan_init(in, ex, (int)n, MPI_LONG, MPI_SUM, comm, MPI_INFO_NULL, &reqs[3]);
    MPI_Bcast_init(bc, (int)n, MPI_LONG, size - 1 - root, comm, MPI_INFO_NULL, &reqs[4]);
    MPI_Reduce_scatter_block_init(big, rsb, (int)n, MPI_LONG, MPI_SUM, comm, MPI_INFO_NULL,
                                  &reqs[5]);
    MPI_Reduce_scatter_init(big, rs, counts, MPI_LONG, MPI_SUM, comm, MPI_INFO_NULL, &reqs[6]);
    MPI_Barrier_init(comm, MPI_INFO_NULL, &reqs[7]);
    for (int round = 0; round < 3; round++) {
        fill(in, n, round);
        for (int b = 0; b < size; b++)
            for (size_t i = 0; i < n; i++)
                big[(size_t)b * n + i] = value(rank, (size_t)b * n + i, round);
        for (size_t i = 0; i < n; i++)
            bc[i] = rank == size - 1 - root ? value(size, i, round) : -1;
        memset(red, 0, n * sizeof(long));
        uint64_t before = wisp_coll_counter("served");
        if (round == 1) {
            MPI_Startall(CALLS, reqs);
        } else {
            for (int k = 0; k < CALLS; k++)
                MPI_Start(&reqs[(k + rank) % CALLS]);
        }
        MPI_Waitall(CALLS, reqs, sts);
        if (served && wisp_coll_counter("served") - before < CALLS)
            COLL_WRONG("rank %d: %d rounds, %llu through wisp\n", me, CALLS,
                       (unsigned long long)(wisp_coll_counter("served") - before));
        if (passed && wisp_coll_counter("served") != before)
            COLL_WRONG("rank %d: wisp served a round\n", me);
        check_sums(all, n, 0, size - 1, round, "allreduce");
        if (rank == root)
            check_sums(red, n, 0, size - 1, round, "reduce");
        check_sums(scan, n, 0, rank, round, "scan");
        if (rank > 0)
            check_sums(ex, n, 0, rank - 1, round, "exscan");
        for (size_t i = 0; i < n; i++)
            if (bc[i] != value(size, i, round)) {
                COLL_WRONG("rank %d: bcast of %zu, round %d: [%zu] %ld\n", me, n, round, i, bc[i]);
                break;
            }
        for (size_t i = 0; i < n; i++) {
            long want = 0;
            for (int r = 0; r < size; r++)
                want += value(r, (size_t)rank * n + i, round);
            if (rsb[i] != want) {
                COLL_WRONG("rank %d: reduce_scatter_block of %zu, round %d: [%zu] %ld, not %ld\n",
                           me, n, round, i, rsb[i], want);
                break;
            }
        }
        for (size_t i = 0; i < (size_t)counts[rank] && i + rs_lo < rs_total; i++) {
            long want = 0;
            for (int r = 0; r < size; r++)
                want += value(r, rs_lo + i, round);
            if (rs[i] != want) {
                COLL_WRONG("rank %d: reduce_scatter of %zu, round %d: [%zu] %ld, not %ld\n", me, n,
                           round, i, rs[i], want);
                break;
            }
        }
    }
    for (int k = 0; k < CALLS; k++)
        MPI_Request_free(&reqs[k]);
    free(in), free(all), free(red), free(scan), free(ex), free(bc), free(rsb), free(rs), free(big),
        free(counts);
}

/* MPICH's coll/p_order: inits in one order, starts in another on odd
 * ranks, each waited for alone in reverse; a blocking barrier by one
 * member before its starts and by the others after theirs. */
static void orders(MPI_Comm comm)
{
    enum { N = 4000 };
    static long in[N], all[N], bc[N], sc[N];
    MPI_Request reqs[3];
    MPI_Allreduce_init(in, all, N, MPI_LONG, MPI_SUM, comm, MPI_INFO_NULL, &reqs[0]);
    MPI_Bcast_init(bc, N, MPI_LONG, 0, comm, MPI_INFO_NULL, &reqs[1]);
    MPI_Scan_init(in, sc, N, MPI_LONG, MPI_SUM, comm, MPI_INFO_NULL, &reqs[2]);
    for (int round = 0; round < 4; round++) {
        fill(in, N, round);
        for (size_t i = 0; i < N; i++)
            bc[i] = rank == 0 ? value(size, i, round) : 0;
        if (rank == 0)
            MPI_Barrier(comm);
        for (int k = 0; k < 3; k++)
            MPI_Start(&reqs[rank % 2 ? 2 - k : k]);
        if (rank != 0)
            MPI_Barrier(comm);
        for (int k = 2; k >= 0; k--)
            MPI_Wait(&reqs[(k + round) % 3], MPI_STATUS_IGNORE);
        check_sums(all, N, 0, size - 1, round, "p_order allreduce");
        check_sums(sc, N, 0, rank, round, "p_order scan");
        for (size_t i = 0; i < N; i++)
            if (bc[i] != value(size, i, round)) {
                COLL_WRONG("rank %d: p_order bcast, round %d: [%zu] %ld\n", me, round, i, bc[i]);
                break;
            }
    }
    for (int k = 0; k < 3; k++)
        MPI_Request_free(&reqs[k]);
}

/* One MPI_Startall of a persistent allreduce, a ring of point-to-point
 * persistent requests and the MPI's own persistent allgather; blocking
 * and nonblocking collectives on the same communicator meanwhile. */
static void mixed(MPI_Comm comm)
{
    enum { N = 100 };
    long in[N] = {0}, all[N], out = rank, got = -1, gathered[64], word = 0, isum = 0, one = 1;
    MPI_Request reqs[4];
    MPI_Allreduce_init(in, all, N, MPI_LONG, MPI_SUM, comm, MPI_INFO_NULL, &reqs[0]);
    MPI_Send_init(&out, 1, MPI_LONG, (rank + 1) % size, 7, comm, &reqs[1]);
    MPI_Recv_init(&got, 1, MPI_LONG, (rank + size - 1) % size, 7, comm, &reqs[2]);
    MPI_Allgather_init(&out, 1, MPI_LONG, gathered, 1, MPI_LONG, comm, MPI_INFO_NULL, &reqs[3]);
    for (int round = 0; round < 3; round++) {
        fill(in, N, round);
        out = rank * 10 + round;
        MPI_Startall(4, reqs);
        word = rank == 0 ? 42 + round : 0;
        MPI_Bcast(&word, 1, MPI_LONG, 0, comm);
        MPI_Request nb;
        MPI_Iallreduce(&one, &isum, 1, MPI_LONG, MPI_SUM, comm, &nb);
        MPI_Wait(&nb, MPI_STATUS_IGNORE);
        /* MPICH 4.0.2's MPI_Testall fails on its own persistent
         * collectives that were not complete at its first call
         * (MPI_ERR_IN_STATUS, every status MPI_SUCCESS; natively too), and
         * wisp's MPI_Waitall over the MPI's requests mixed with its own
         * tests them with it: the MPI's are waited for alone. */
        MPI_Wait(&reqs[3], MPI_STATUS_IGNORE);
        if (served) {
            MPI_Waitall(3, reqs, sts);
        } else {
            for (int k = 0; k < 3; k++)
                MPI_Wait(&reqs[k], MPI_STATUS_IGNORE);
        }
        check_sums(all, N, 0, size - 1, round, "mixed allreduce");
        CHECK(word == 42 + round);
        CHECK(isum == size);
        CHECK(got == ((rank + size - 1) % size) * 10 + round);
        /* MPICH 4.0.2's own persistent allgather gives the first round's
         * data in every later round (natively too): its first round is
         * checked. */
        for (int r = 0; r < size && round == 0; r++)
            CHECK(gathered[r] == r * 10 + round);
    }
    for (int k = 0; k < 4; k++)
        MPI_Request_free(&reqs[k]);
}

/* MPI_IN_PLACE, and a broadcast through a vector type (every other long)
 * on the non-roots, freed after the init. */
static void in_place_and_types(MPI_Comm comm)
{
    enum { N = 3000 };
    static long all[N], red[N], sc[N], rsb[64 * N], vec[2 * N];
    MPI_Datatype every_other;
    MPI_Type_vector(N, 1, 2, MPI_LONG, &every_other);
    MPI_Type_commit(&every_other);
    MPI_Request reqs[5];
    MPI_Allreduce_init(MPI_IN_PLACE, all, N, MPI_LONG, MPI_SUM, comm, MPI_INFO_NULL, &reqs[0]);
    MPI_Reduce_init(rank == 0 ? MPI_IN_PLACE : red, rank == 0 ? red : NULL, N, MPI_LONG, MPI_SUM, 0,
                    comm, MPI_INFO_NULL, &reqs[1]);
    MPI_Scan_init(MPI_IN_PLACE, sc, N, MPI_LONG, MPI_SUM, comm, MPI_INFO_NULL, &reqs[2]);
    MPI_Reduce_scatter_block_init(MPI_IN_PLACE, rsb, N, MPI_LONG, MPI_SUM, comm, MPI_INFO_NULL,
                                  &reqs[3]);
    if (rank == 0)
        MPI_Bcast_init(vec, N, MPI_LONG, 0, comm, MPI_INFO_NULL, &reqs[4]);
    else
        MPI_Bcast_init(vec, 1, every_other, 0, comm, MPI_INFO_NULL, &reqs[4]);
    MPI_Type_free(&every_other); /* the request keeps it */
    for (int round = 0; round < 3; round++) {
        fill(all, N, round);
        fill(red, N, round);
        fill(sc, N, round);
        for (int b = 0; b < size; b++)
            for (size_t i = 0; i < N; i++)
                rsb[(size_t)b * N + i] = value(rank, (size_t)b * N + i, round);
        for (size_t i = 0; i < 2 * N; i++)
            vec[i] = rank == 0 ? value(size, i, round) : -7;
        MPI_Startall(5, reqs);
        MPI_Waitall(5, reqs, sts);
        check_sums(all, N, 0, size - 1, round, "in-place allreduce");
        if (rank == 0)
            check_sums(red, N, 0, size - 1, round, "in-place reduce");
        check_sums(sc, N, 0, rank, round, "in-place scan");
        for (size_t i = 0; i < N; i++) {
            long want = 0;
            for (int r = 0; r < size; r++)
                want += value(r, (size_t)rank * N + i, round);
            if (rsb[i] != want) {
                COLL_WRONG("rank %d: in-place reduce_scatter_block, round %d: [%zu] %ld, not %ld\n",
                           me, round, i, rsb[i], want);
                break;
            }
        }
        for (size_t i = 0; rank != 0 && i < 2 * N; i++) {
            long want = i % 2 ? -7 : value(size, i / 2, round);
            if (vec[i] != want) {
                COLL_WRONG("rank %d: vector bcast, round %d: [%zu] %ld, not %ld\n", me, round, i,
                           vec[i], want);
                break;
            }
        }
    }
    for (int k = 0; k < 5; k++)
        MPI_Request_free(&reqs[k]);
}

/* Requests freed without a start, 70 on one communicator (more than a
 * chunk of the lanes' directory) started at once, and a communicator
 * freed between two rounds of its requests. */
static void lifetimes(MPI_Comm comm)
{
    MPI_Request never[3];
    long a = 1, b = 0;
    MPI_Allreduce_init(&a, &b, 1, MPI_LONG, MPI_SUM, comm, MPI_INFO_NULL, &never[0]);
    MPI_Barrier_init(comm, MPI_INFO_NULL, &never[1]);
    MPI_Bcast_init(&a, 1, MPI_LONG, 0, comm, MPI_INFO_NULL, &never[2]);
    for (int k = 0; k < 3; k++)
        MPI_Request_free(&never[k]);
    CHECK(never[0] == MPI_REQUEST_NULL);

    enum { MANY = 70 };
    static long ins[MANY], outs[MANY];
    MPI_Request many[MANY];
    for (int k = 0; k < MANY; k++)
        MPI_Allreduce_init(&ins[k], &outs[k], 1, MPI_LONG, MPI_SUM, comm, MPI_INFO_NULL, &many[k]);
    for (int round = 0; round < 2; round++) {
        for (int k = 0; k < MANY; k++)
            ins[k] = rank + k + round;
        MPI_Startall(MANY, many);
        MPI_Waitall(MANY, many, sts);
        for (int k = 0; k < MANY; k++)
            if (outs[k] != (long)size * (size - 1) / 2 + (long)size * (k + round)) {
                COLL_WRONG("rank %d: allreduce %d of many, round %d: %ld\n", me, k, round, outs[k]);
                break;
            }
    }
    for (int k = 0; k < MANY; k++)
        MPI_Request_free(&many[k]);

    MPI_Comm dup;
    MPI_Comm_dup(comm, &dup);
    MPI_Barrier(dup);
    MPI_Barrier(dup); /* its area is set up */
    long in = rank, sum = 0;
    MPI_Request req, bar;
    MPI_Allreduce_init(&in, &sum, 1, MPI_LONG, MPI_SUM, dup, MPI_INFO_NULL, &req);
    MPI_Barrier_init(dup, MPI_INFO_NULL, &bar); /* never started, freed after the communicator */
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    MPI_Start(&req);
    if (served) { /* an active request started again: MPI_ERR_REQUEST (MPICH's own abort) */
        int cls = MPI_SUCCESS;
        MPI_Error_class(MPI_Start(&req), &cls);
        CHECK(cls == MPI_ERR_REQUEST);
    }
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(sum == (long)size * (size - 1) / 2);
    MPI_Comm_free(&dup);
    in = rank + 1;
    MPI_Start(&req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(sum == (long)size * (size + 1) / 2);
    MPI_Request_free(&req);
    MPI_Request_free(&bar);

    /* One started and left to MPI_Finalize, inactive: its lane goes there
     * (wisp's alone: MPICH leaks its own, which the sanitizer build reports). */
    static long left_in, left_out;
    static MPI_Request left = MPI_REQUEST_NULL;
    if (served && left == MPI_REQUEST_NULL) {
        left_in = rank;
        MPI_Allreduce_init(&left_in, &left_out, 1, MPI_LONG, MPI_SUM, comm, MPI_INFO_NULL, &left);
        MPI_Start(&left);
        MPI_Wait(&left, MPI_STATUS_IGNORE);
        CHECK(left_out == (long)size * (size - 1) / 2);
    }
}

/* ---- the gathers, scatters, allgathers and all-to-alls ---------------------- */

/* Element i of member m's block for member j (an all-to-all's), round `round`. */
static long to_of(int m, int j, size_t i, int round)
{
    return value(m, (size_t)j * 1000 + i, round);
}

static void check_block(const long *got, size_t stride, size_t n, int m, int j, int round,
                        const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (got[i * stride] != to_of(m, j, i, round)) {
            COLL_WRONG("rank %d: %s of %zu, root/member %d, round %d: [%zu] %ld, not %ld\n", me,
                       what, n, m, round, i, got[i * stride], to_of(m, j, i, round));
            return;
        }
}

enum { MOVES = 11 };

/* Every persistent gather, scatter, allgather and all-to-all with `root`,
 * blocks of n longs: a resized type (every other long) on one side, v
 * forms with an empty block (member 1's) and blocks in reverse order,
 * MPI_IN_PLACE, started one by one in a different order on odd ranks,
 * three rounds of new data each checked. */
static void moves_at(MPI_Comm comm, size_t n, int root)
{
    size_t N = n * (size_t)size;
    MPI_Datatype strided;
    MPI_Type_create_resized(MPI_LONG, 0, 2 * sizeof(long), &strided);
    MPI_Type_commit(&strided);
    long *g_in = calloc(2 * n + 1, sizeof(long)), *g_out = calloc(N + 1, sizeof(long)),
         *gv_out = calloc(N + 1, sizeof(long)), *s_in = calloc(N + 1, sizeof(long)),
         *s_out = calloc(2 * n + 1, sizeof(long)), *sv_in = calloc(N + 1, sizeof(long)),
         *ag_in = calloc(n + 1, sizeof(long)), *ag_out = calloc(2 * N + 1, sizeof(long)),
         *agv = calloc(N + 1, sizeof(long)), *a_in = calloc(N + 1, sizeof(long)),
         *a_out = calloc(2 * N + 1, sizeof(long)), *av_in = calloc(N + 1, sizeof(long)),
         *av_out = calloc(N + 1, sizeof(long)), *aw_out = calloc(N + 1, sizeof(long)),
         *ai = calloc(N + 1, sizeof(long)), *g_small = calloc(n + 1, sizeof(long)),
         *sv_out = calloc(n + 1, sizeof(long));
    int *counts = malloc(sizeof(int) * (size_t)size), *displs = malloc(sizeof(int) * (size_t)size),
        *wdispls = malloc(sizeof(int) * (size_t)size), *ones = malloc(sizeof(int) * (size_t)size),
        *pair = malloc(sizeof(int) * (size_t)size);
    MPI_Datatype *longs = malloc(sizeof(MPI_Datatype) * (size_t)size);
    /* v forms: member m's block n longs (none for member 1) at the block of
     * member size-1-m. */
    for (int m = 0; m < size; m++) {
        counts[m] = m == 1 ? 0 : (int)n;
        displs[m] = (size - 1 - m) * (int)n;
        wdispls[m] = m * (int)n * (int)sizeof(long);
        ones[m] = (int)n;
        pair[m] = rank == 1 || m == 1 ? 0 : (int)n; /* alltoallv: nothing to or from member 1 */
        longs[m] = MPI_LONG;
    }
    int mine = counts[rank];
    MPI_Request r[MOVES];
    MPI_Info info = MPI_INFO_NULL;
    /* 0: gather, a resized send type; 1: gatherv, in place at the root;
     * 2: scatter into a resized type; 3: scatterv, in place at the root;
     * 4: allgather into a resized type; 5: allgatherv in place; 6: alltoall
     * into a resized type; 7: alltoallv; 8: alltoallw; 9: alltoall in place;
     * 10: gather, contiguous (small blocks' path). */
    MPI_Gather_init(g_in, (int)n, strided, g_out, (int)n, MPI_LONG, root, comm, info, &r[0]);
    MPI_Gatherv_init(rank == root ? MPI_IN_PLACE : g_small, mine, MPI_LONG, gv_out, counts, displs,
                     MPI_LONG, root, comm, info, &r[1]);
    MPI_Scatter_init(s_in, (int)n, MPI_LONG, s_out, (int)n, strided, root, comm, info, &r[2]);
    MPI_Scatterv_init(sv_in, counts, displs, MPI_LONG, rank == root ? MPI_IN_PLACE : sv_out, mine,
                      MPI_LONG, root, comm, info, &r[3]);
    MPI_Allgather_init(ag_in, (int)n, MPI_LONG, ag_out, (int)n, strided, comm, info, &r[4]);
    MPI_Allgatherv_init(MPI_IN_PLACE, 0, MPI_LONG, agv, counts, displs, MPI_LONG, comm, info,
                        &r[5]);
    MPI_Alltoall_init(a_in, (int)n, MPI_LONG, a_out, (int)n, strided, comm, info, &r[6]);
    MPI_Alltoallv_init(av_in, pair, displs, MPI_LONG, av_out, pair, displs, MPI_LONG, comm, info,
                       &r[7]);
    MPI_Alltoallw_init(a_in, ones, wdispls, longs, aw_out, ones, wdispls, longs, comm, info, &r[8]);
    MPI_Alltoall_init(MPI_IN_PLACE, 0, MPI_LONG, ai, (int)n, MPI_LONG, comm, info, &r[9]);
    MPI_Gather_init(g_small, (int)n, MPI_LONG, g_out, (int)n, MPI_LONG, root, comm, info, &r[10]);
    for (int round = 0; round < 3; round++) {
        /* New data every round, and the results' buffers spoilt. */
        for (size_t i = 0; i < n; i++) {
            g_in[2 * i] = to_of(rank, root, i, round);
            g_small[i] = to_of(rank, root, i, round);
            ag_in[i] = to_of(rank, 0, i, round);
        }
        for (int m = 0; m < size; m++)
            for (size_t i = 0; i < n; i++) {
                s_in[(size_t)m * n + i] = to_of(root, m, i, round);
                sv_in[(size_t)displs[m] + i] = to_of(root, m, i, round);
                a_in[(size_t)m * n + i] = to_of(rank, m, i, round);
                av_in[(size_t)displs[m] + i] = to_of(rank, m, i, round);
                ai[(size_t)m * n + i] = to_of(rank, m, i, round);
                agv[(size_t)displs[m] + i] = m == rank ? to_of(rank, 0, i, round) : -1;
                if (rank == root)
                    gv_out[(size_t)displs[m] + i] = m == root ? to_of(root, root, i, round) : -1;
            }
        memset(g_out, 0xff, (N + 1) * sizeof(long));
        memset(ag_out, 0xff, (2 * N + 1) * sizeof(long));
        memset(a_out, 0xff, (2 * N + 1) * sizeof(long));
        memset(s_out, 0xff, (2 * n + 1) * sizeof(long));
        memset(sv_out, 0xff, (n + 1) * sizeof(long));
        for (int k = 0; k < MOVES - 1; k++) /* the last one overwrites g_out: alone below */
            MPI_Start(&r[rank % 2 ? MOVES - 2 - k : k]);
        MPI_Waitall(MOVES - 1, r, sts);
        if (rank == root)
            for (int m = 0; m < size; m++) {
                check_block(g_out + (size_t)m * n, 1, n, m, root, round, "gather");
                if (m != 1)
                    check_block(gv_out + displs[m], 1, n, m, root, round, "gatherv");
            }
        check_block(s_out, 2, n, root, rank, round, "scatter");
        if (rank != root && rank != 1)
            check_block(sv_out, 1, n, root, rank, round, "scatterv");
        for (int m = 0; m < size; m++) {
            check_block(ag_out + 2 * (size_t)m * n, 2, n, m, 0, round, "allgather");
            if (m != 1)
                check_block(agv + displs[m], 1, n, m, 0, round, "allgatherv");
            check_block(a_out + 2 * (size_t)m * n, 2, n, m, rank, round, "alltoall");
            if (m != 1 && rank != 1)
                check_block(av_out + displs[m], 1, n, m, rank, round, "alltoallv");
            check_block(aw_out + (size_t)m * n, 1, n, m, rank, round, "alltoallw");
            check_block(ai + (size_t)m * n, 1, n, m, rank, round, "alltoall in place");
        }
        /* The contiguous gather: its small path (blocks in the lines or halves). */
        for (size_t i = 0; i < n; i++)
            g_small[i] = to_of(rank, root, i, round);
        memset(g_out, 0xff, (N + 1) * sizeof(long));
        MPI_Start(&r[MOVES - 1]);
        MPI_Wait(&r[MOVES - 1], MPI_STATUS_IGNORE);
        if (rank == root)
            for (int m = 0; m < size; m++)
                check_block(g_out + (size_t)m * n, 1, n, m, root, round, "gather (contiguous)");
    }
    for (int k = 0; k < MOVES; k++)
        MPI_Request_free(&r[k]);
    /* Not before: MPICH 4.0.2's own requests of the gathers and all-to-alls
     * (WISP_COLL=off) let go of a type freed after their init once more
     * than they held it, and abort. */
    MPI_Type_free(&strided);
    free(g_in), free(g_out), free(gv_out), free(s_in), free(s_out), free(sv_in), free(ag_in);
    free(ag_out), free(agv), free(a_in), free(a_out), free(av_in), free(av_out), free(aw_out);
    free(ai), free(g_small), free(counts), free(displs), free(wdispls), free(ones), free(longs);
    free(pair), free(sv_out);
}

static void moves(MPI_Comm comm)
{
    static const size_t ns[] = {0, 3, 700, 5000};
    for (size_t s = 0; s < sizeof ns / sizeof *ns; s++)
        for (int root = 0; root < size; root++)
            if (!quick || ns[s] < 5000 || root == size - 1)
                moves_at(comm, ns[s], root);
}

static void all_of(MPI_Comm comm, enum coll_comm which)
{
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (which == COLL_SELF || which == COLL_HALF || size == 1)
        return;
    MPI_Barrier(comm);
    MPI_Barrier(comm); /* the area is set up: the persistent forms may be wisp's */
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        if (!quick || sizes[s] < 100000)
            each_call(comm, sizes[s]);
    orders(comm);
    mixed(comm);
    in_place_and_types(comm);
    /* Where wisp serves them all (WISP_COLL=on): MPICH 4.0.2's own
     * requests of these, started with a derived type, abort at
     * MPI_Request_free (its schedule lets go of the type once more than it
     * held it), and under WISP_COLL=auto (small gathers and the v forms
     * are the MPI's) an MPI_Waitall of them fails in MPICH. */
    if (served)
        moves(comm);
    lifetimes(comm);
}

/* No room for lanes (argument `no_room`; a small WISP_HEAP_SIZE): once the
 * world's area is set up, rank 0 fills its partition of the heap with
 * MPI_Alloc_mem until a block falls outside it, so the lanes' directory
 * and every lane find no room at their first start. Every member must
 * then run the rounds on the MPI's own requests (counted as "no_room"),
 * started in different orders, with the right results, where the job
 * ended before. (Not MPI_Allgather_init: MPICH 4.0.2's own gives wrong
 * blocks from its second round on, natively too.) */
static void no_room(MPI_Comm comm)
{
    enum { FILL = 64 << 10, MOST = 4096, ROUNDS = 3, N = 5 };
    static void *fill[MOST];
    int filled = 0;
    long x = 1, y = 0;
    for (int k = 0; k < 2; k++) /* the area is set up by the second (WISP_COLL_AFTER=1) */
        MPI_Allreduce(&x, &y, 1, MPI_LONG, MPI_SUM, comm);
    if (rank == 0) {
        while (filled < MOST) {
            void *p = NULL;
            if (MPI_Alloc_mem(FILL, MPI_INFO_NULL, &p) != MPI_SUCCESS)
                break;
            fill[filled++] = p;
            if (!wisp_heap_contains(p))
                break;
        }
        CHECK(filled > 0 && filled < MOST && !wisp_heap_contains(fill[filled - 1]));
    }
    MPI_Barrier(comm);

    long sum_in = 0, sum_out = 0, bc[N], rin[N], rout[N];
    MPI_Request r[3];
    MPI_Allreduce_init(&sum_in, &sum_out, 1, MPI_LONG, MPI_SUM, comm, MPI_INFO_NULL, &r[0]);
    MPI_Bcast_init(bc, N, MPI_LONG, size - 1, comm, MPI_INFO_NULL, &r[1]);
    MPI_Reduce_init(rin, rout, N, MPI_LONG, MPI_MAX, 0, comm, MPI_INFO_NULL, &r[2]);
    for (int round = 0; round < ROUNDS; round++) {
        sum_in = value(rank, 0, round);
        for (int i = 0; i < N; i++) {
            bc[i] = rank == size - 1 ? value(rank, (size_t)i, round) : -1;
            rin[i] = value(rank, (size_t)i, round);
            rout[i] = -1000;
        }
        for (int k = 0; k < 3; k++) /* in different orders in different members */
            MPI_Start(&r[rank % 2 ? 2 - k : k]);
        MPI_Waitall(3, r, sts);
        long want = 0;
        for (int m = 0; m < size; m++)
            want += value(m, 0, round);
        if (sum_out != want)
            COLL_WRONG("rank %d: no room, round %d: allreduce %ld, not %ld\n", me, round, sum_out,
                       want);
        for (int i = 0; i < N; i++) {
            if (bc[i] != value(size - 1, (size_t)i, round))
                COLL_WRONG("rank %d: no room, round %d: bcast [%d] %ld\n", me, round, i, bc[i]);
            long most = value(0, (size_t)i, round);
            for (int m = 1; m < size; m++)
                most = value(m, (size_t)i, round) > most ? value(m, (size_t)i, round) : most;
            if (rank == 0 && rout[i] != most)
                COLL_WRONG("rank %d: no room, round %d: reduce [%d] %ld\n", me, round, i, rout[i]);
        }
    }
    /* Every member learnt it, the first at its start, the others in their
     * first round. */
    CHECK(wisp_coll_counter("no_room") >= 3);
    for (int k = 0; k < 3; k++)
        MPI_Request_free(&r[k]);
    while (filled > 0)
        MPI_Free_mem(fill[--filled]);
}

int main(int argc, char **argv)
{
    bool room = true;
    for (int i = 1; i < argc; i++)
        room &= strcmp(argv[i], "no_room") != 0;
    coll_start("coll_persist", &argc, &argv);
    if (room) {
        coll_each_comm(all_of, COLL_PAIR);
    } else {
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        no_room(MPI_COMM_WORLD);
    }
    return coll_finish("coll_persist", 0, 0);
}

#else
int main(int argc, char **argv)
{
    coll_start("coll_persist", &argc, &argv);
    if (me == 0)
        printf("coll_persist: the MPI has no persistent collectives (MPI %d)\n", MPI_VERSION);
    served = false; /* nothing to serve */
    (void)coll_reported;
    return coll_finish("coll_persist", 0, 0);
}
#endif
