/*
 * comm_group: communicator, group and topology management.
 *
 * Checks MPI_Comm_dup, MPI_Comm_idup, MPI_Comm_split (odd/even, reversed
 * keys, MPI_UNDEFINED colour), MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)
 * (only layout-independent facts are printed: under wisp with virtual nodes
 * the split differs from the machine's), MPI_Comm_create, MPI_Comm_create_group, MPI_Comm_compare,
 * the MPI_Group_* set operations, rank translation and comparison,
 * MPI_Intercomm_create/MPI_Intercomm_merge with MPI_Comm_remote_size and an
 * intercommunicator allreduce, Cartesian topologies (MPI_Dims_create,
 * MPI_Cart_create/coords/shift/sub/rank), MPI_Graph_create,
 * MPI_Dist_graph_create_adjacent with MPI_Neighbor_allgather,
 * MPI_Comm_set_name/get_name and MPI_Comm_free.  Designed for 1..8
 * processes; parts that need two or more are skipped (and say so).
 */
#include <mpi.h>

#include "check.h"

#define W    MPI_COMM_WORLD
#define MAXP 8

static const char *cmp_name(int result)
{
    if (result == MPI_IDENT)
        return "IDENT";
    if (result == MPI_CONGRUENT)
        return "CONGRUENT";
    if (result == MPI_SIMILAR)
        return "SIMILAR";
    if (result == MPI_UNEQUAL)
        return "UNEQUAL";
    return "<invalid>";
}

static const char *compare(MPI_Comm a, MPI_Comm b)
{
    int result = -1;
    MPI_Comm_compare(a, b, &result);
    return cmp_name(result);
}

static const char *group_compare(MPI_Group a, MPI_Group b)
{
    int result = -1;
    MPI_Group_compare(a, b, &result);
    return cmp_name(result);
}

/* Formats the world ranks of a group's members, e.g. "{3,0}". */
static const char *members(MPI_Group g)
{
    static char s[TR_LINE_MAX];
    MPI_Group world;
    MPI_Comm_group(W, &world);
    int n = 0, in[MAXP], out[MAXP];
    MPI_Group_size(g, &n);
    for (int i = 0; i < n; i++)
        in[i] = i;
    if (n > 0)
        MPI_Group_translate_ranks(g, n, in, world, out);
    size_t len = (size_t)snprintf(s, sizeof s, "{");
    for (int i = 0; i < n; i++)
        len += (size_t)snprintf(s + len, sizeof s - len, i ? ",%d" : "%d", out[i]);
    snprintf(s + len, sizeof s - len, "}");
    MPI_Group_free(&world);
    return s;
}

/* rank/size of a communicator, or "null" (rotating buffers, so several
 * calls can appear in one argument list). */
static const char *where(MPI_Comm c)
{
    static char bufs[4][32];
    static int next = 0;
    char *s = bufs[next++ % 4];
    if (c == MPI_COMM_NULL)
        return "null";
    int r, n;
    MPI_Comm_rank(c, &r);
    MPI_Comm_size(c, &n);
    snprintf(s, sizeof bufs[0], "%d/%d", r, n);
    return s;
}

static void test_dup_compare_name(void)
{
    MPI_Comm dup, idup;
    MPI_Request req;
    MPI_Comm_dup(W, &dup);
    MPI_Comm_idup(W, &idup, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    tr_print("compare(world, world)=%s\n", compare(W, W));
    tr_print("compare(world, dup)=%s\n", compare(W, dup));
    tr_print("compare(world, idup)=%s\n", compare(W, idup));
    CHECK(strcmp(compare(W, dup), "CONGRUENT") == 0, "dup is congruent");

    /* A message to self on the dup does not match a receive posted on
     * world with the same source and tag. */
    int v = tr_rank, got = -1, unmatched = -1, flag = 1;
    MPI_Request on_world, on_dup;
    MPI_Irecv(&unmatched, 1, MPI_INT, tr_rank, 0, W, &on_world);
    MPI_Isend(&v, 1, MPI_INT, tr_rank, 0, dup, &on_dup);
    MPI_Recv(&got, 1, MPI_INT, tr_rank, 0, dup, MPI_STATUS_IGNORE);
    MPI_Wait(&on_dup, MPI_STATUS_IGNORE);
    MPI_Test(&on_world, &flag, MPI_STATUS_IGNORE);
    CHECK(!flag, "message on dup matched a receive on world");
    MPI_Cancel(&on_world);
    MPI_Wait(&on_world, MPI_STATUS_IGNORE);
    tr_print("dup isolates traffic: %d\n", !flag && got == tr_rank);

    char name[MPI_MAX_OBJECT_NAME];
    int len = 0;
    MPI_Comm_get_name(W, name, &len);
    tr_print("world name: %s\n", name);
    MPI_Comm_set_name(dup, "transparency-dup");
    MPI_Comm_get_name(dup, name, &len);
    CHECK(strcmp(name, "transparency-dup") == 0 && len == 16, "set/get name");
    tr_print("dup name: %s (len %d)\n", name, len);

    MPI_Comm_free(&dup);
    MPI_Comm_free(&idup);
    CHECK(dup == MPI_COMM_NULL && idup == MPI_COMM_NULL, "comm_free nulls handles");
}

static void test_split(void)
{
    MPI_Comm parity, reversed, undef;
    MPI_Comm_split(W, tr_rank % 2, tr_rank, &parity);
    MPI_Comm_split(W, 0, -tr_rank, &reversed);
    MPI_Comm_split(W, tr_rank == 0 ? 0 : MPI_UNDEFINED, 0, &undef);
    int pr, rr;
    MPI_Comm_rank(parity, &pr);
    MPI_Comm_rank(reversed, &rr);
    CHECK_INT(pr, tr_rank / 2);
    CHECK_INT(rr, tr_size - 1 - tr_rank);
    CHECK((undef == MPI_COMM_NULL) == (tr_rank != 0), "undefined colour");
    tr_print_ranks("split parity=%s reversed=%s undefined=%s", where(parity), where(reversed),
                   where(undef));
    tr_print("compare(world, parity)=%s compare(world, reversed)=%s\n", compare(W, parity),
             compare(W, reversed));

    /* Sum of world ranks inside each parity communicator. */
    int sum = 0;
    MPI_Allreduce(&tr_rank, &sum, 1, MPI_INT, MPI_SUM, parity);
    tr_print_ranks("parity allreduce of world ranks=%d", sum);

    /* The shared-memory split depends on the machine (and on wisp's
     * virtual nodes), so only facts true for any node layout are printed:
     * a size between 1 and the world size, and members in world order. */
    MPI_Comm shared;
    MPI_Comm_split_type(W, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared);
    int ss, shared_members[MAXP], ordered = 1;
    MPI_Comm_size(shared, &ss);
    MPI_Allgather(&tr_rank, 1, MPI_INT, shared_members, 1, MPI_INT, shared);
    for (int i = 1; i < ss; i++)
        ordered &= shared_members[i] > shared_members[i - 1];
    int sane = ss >= 1 && ss <= tr_size && ordered, all_sane = 0;
    CHECK(sane, "split_type shared: size %d, ordered %d", ss, ordered);
    MPI_Allreduce(&sane, &all_sane, 1, MPI_INT, MPI_LAND, W);
    tr_print("split_type shared: 1 <= size <= world size, world order: %d\n", all_sane);

    MPI_Comm_free(&parity);
    MPI_Comm_free(&reversed);
    MPI_Comm_free(&shared);
    if (undef != MPI_COMM_NULL)
        MPI_Comm_free(&undef);
}

static void test_groups(void)
{
    MPI_Group world, first_last, no_zero, evens, evens2, uni, inter, diff;
    int n = tr_size;
    MPI_Comm_group(W, &world);
    int fl[2] = {n - 1, 0}, zero[1] = {0};
    MPI_Group_incl(world, n > 1 ? 2 : 1, fl, &first_last);
    MPI_Group_excl(world, 1, zero, &no_zero);
    int even_range[1][3] = {{0, n - 1, 2}};
    MPI_Group_range_incl(world, 1, even_range, &evens);
    if (n > 1) {
        int odd_range[1][3] = {{1, n - 1, 2}};
        MPI_Group_range_excl(world, 1, odd_range, &evens2);
    } else {
        MPI_Group_incl(world, 1, zero, &evens2);
    }
    MPI_Group_union(first_last, evens, &uni);
    MPI_Group_intersection(no_zero, evens, &inter);
    MPI_Group_difference(world, evens, &diff);

    tr_print("group incl {last,0}: %s\n", members(first_last));
    tr_print("group excl {0}: %s\n", members(no_zero));
    tr_print("group range_incl evens: %s\n", members(evens));
    tr_print("group range_excl odds: %s\n", members(evens2));
    tr_print("group union({last,0}, evens): %s\n", members(uni));
    tr_print("group intersection(excl 0, evens): %s\n", members(inter));
    tr_print("group difference(world, evens): %s\n", members(diff));
    tr_print("group compare(evens, range_excl odds)=%s compare(world, incl {last,0})=%s\n",
             group_compare(evens, evens2), group_compare(world, first_last));

    int rank_in = -2;
    MPI_Group_rank(first_last, &rank_in);
    tr_print_ranks("rank in {last,0}: %d (-1 = undefined)",
                   rank_in == MPI_UNDEFINED ? -1 : rank_in);

    /* translate: world ranks 0..n-1 into the evens group */
    int all[MAXP], tr[MAXP];
    for (int i = 0; i < n; i++)
        all[i] = i;
    MPI_Group_translate_ranks(world, n, all, evens, tr);
    char line[TR_LINE_MAX];
    size_t len = 0;
    for (int i = 0; i < n; i++) {
        CHECK(tr[i] == (i % 2 ? MPI_UNDEFINED : i / 2), "translate %d", i);
        if (tr[i] == MPI_UNDEFINED)
            len += (size_t)snprintf(line + len, sizeof line - len, " %d->undef", i);
        else
            len += (size_t)snprintf(line + len, sizeof line - len, " %d->%d", i, tr[i]);
    }
    tr_print("translate world->evens:%s\n", line);

    MPI_Group *all_groups[] = {&world, &first_last, &no_zero, &evens, &evens2, &uni, &inter, &diff};
    for (size_t i = 0; i < sizeof all_groups / sizeof all_groups[0]; i++)
        MPI_Group_free(all_groups[i]);
    CHECK(world == MPI_GROUP_NULL, "group_free nulls the handle");
}

static void test_create(void)
{
    MPI_Group world, evens, rev;
    MPI_Comm_group(W, &world);
    int range[1][3] = {{0, tr_size - 1, 2}};
    MPI_Group_range_incl(world, 1, range, &evens);

    MPI_Comm ce;
    MPI_Comm_create(W, evens, &ce);
    CHECK((ce == MPI_COMM_NULL) == (tr_rank % 2 == 1), "comm_create membership");
    tr_print_ranks("comm_create(evens): %s", where(ce));

    /* create_group: only the members call it; reversed order of ranks. */
    int ranks[MAXP];
    for (int i = 0; i < tr_size; i++)
        ranks[i] = tr_size - 1 - i;
    MPI_Group_incl(world, tr_size, ranks, &rev);
    MPI_Comm cg;
    MPI_Comm_create_group(W, rev, 5, &cg);
    int r;
    MPI_Comm_rank(cg, &r);
    CHECK_INT(r, tr_size - 1 - tr_rank);
    tr_print_ranks("comm_create_group(reversed): %s", where(cg));
    if (tr_size > 1)
        tr_print("compare(world, create_group reversed)=%s\n", compare(W, cg));

    if (ce != MPI_COMM_NULL)
        MPI_Comm_free(&ce);
    MPI_Comm_free(&cg);
    MPI_Group_free(&rev);
    MPI_Group_free(&evens);
    MPI_Group_free(&world);
}

/* Even and odd ranks form two groups joined by an intercommunicator. */
static void test_intercomm(void)
{
    if (tr_size < 2) {
        tr_print("intercomm: skipped (needs 2 processes)\n");
        return;
    }
    int color = tr_rank % 2;
    MPI_Comm local, inter, merged;
    MPI_Comm_split(W, color, tr_rank, &local);
    MPI_Intercomm_create(local, 0, W, color == 0 ? 1 : 0, 42, &inter);
    int is_inter = 0, lsize, rsize;
    MPI_Comm_test_inter(inter, &is_inter);
    MPI_Comm_size(inter, &lsize);
    MPI_Comm_remote_size(inter, &rsize);
    int evens = (tr_size + 1) / 2;
    CHECK(is_inter, "test_inter");
    CHECK_INT(lsize, color ? tr_size - evens : evens);
    CHECK_INT(rsize, color ? evens : tr_size - evens);

    /* Intercomm allreduce: each side gets the sum over the other side. */
    int v = tr_rank, sum = -1;
    MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, inter);
    tr_print_ranks("intercomm: inter=%d local=%d remote=%d remote rank sum=%d", is_inter, lsize,
                   rsize, sum);

    MPI_Intercomm_merge(inter, color, &merged);
    int mr, world_of[MAXP];
    MPI_Comm_rank(merged, &mr);
    MPI_Allgather(&tr_rank, 1, MPI_INT, world_of, 1, MPI_INT, merged);
    char line[TR_LINE_MAX];
    size_t len = 0;
    for (int i = 0; i < tr_size; i++)
        len += (size_t)snprintf(line + len, sizeof line - len, " %d", world_of[i]);
    CHECK_INT(mr, color ? evens + tr_rank / 2 : tr_rank / 2);
    tr_print("intercomm_merge (odds high): world ranks in merged order:%s\n", line);

    MPI_Comm_free(&merged);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
}

static void test_cart(void)
{
    int dims[2] = {0, 0};
    MPI_Dims_create(tr_size, 2, dims);
    int fixed[3] = {0, 3, 0};
    MPI_Dims_create(12, 3, fixed);
    CHECK(fixed[0] == 2 && fixed[1] == 3 && fixed[2] == 2, "dims_create(12,{0,3,0})");
    tr_print("dims_create(%d,2)={%d,%d} dims_create(12,{0,3,0})={%d,%d,%d}\n", tr_size, dims[0],
             dims[1], fixed[0], fixed[1], fixed[2]);

    int periods[2] = {1, 0};
    MPI_Comm cart;
    MPI_Cart_create(W, 2, dims, periods, 0, &cart);
    int status, coords[2], src0, dst0, src1, dst1, crank;
    MPI_Topo_test(cart, &status);
    CHECK(status == MPI_CART, "topo_test cart");
    MPI_Cart_coords(cart, tr_rank, 2, coords);
    MPI_Cart_rank(cart, coords, &crank);
    CHECK_INT(crank, tr_rank);
    MPI_Cart_shift(cart, 0, 1, &src0, &dst0);
    MPI_Cart_shift(cart, 1, 1, &src1, &dst1);
#define PN(x) ((x) == MPI_PROC_NULL ? -1 : (x))
    tr_print_ranks("cart coords=(%d,%d) shift0 %d->%d shift1 %d->%d (-1 = PROC_NULL)", coords[0],
                   coords[1], PN(src0), PN(dst0), PN(src1), PN(dst1));
#undef PN

    int ndims, gdims[2], gper[2], gcoords[2];
    MPI_Cartdim_get(cart, &ndims);
    MPI_Cart_get(cart, 2, gdims, gper, gcoords);
    CHECK(ndims == 2 && gdims[0] == dims[0] && gper[0] == 1 && gper[1] == 0 &&
              gcoords[1] == coords[1],
          "cart_get");

    /* Keep dimension 0: one sub-communicator per value of coordinate 1. */
    int remain[2] = {1, 0};
    MPI_Comm sub;
    MPI_Cart_sub(cart, remain, &sub);
    int sum = 0;
    MPI_Allreduce(&tr_rank, &sum, 1, MPI_INT, MPI_SUM, sub);
    tr_print_ranks("cart_sub(keep dim 0): %s, world rank sum=%d", where(sub), sum);

    MPI_Comm_free(&sub);
    MPI_Comm_free(&cart);
}

/* Star graph (0 linked with everyone) and a directed ring as a distributed
 * graph with a neighbour allgather. */
static void test_graphs(void)
{
    int n = tr_size, index[MAXP], edges[2 * MAXP], ne = 0;
    for (int i = 0; i < n; i++) {
        if (i == 0)
            for (int k = 1; k < n; k++)
                edges[ne++] = k;
        else
            edges[ne++] = 0;
        index[i] = ne;
    }
    MPI_Comm graph;
    MPI_Graph_create(W, n, index, edges, 0, &graph);
    int status, nn = -1, nb[MAXP];
    MPI_Topo_test(graph, &status);
    CHECK(status == MPI_GRAPH, "topo_test graph");
    MPI_Graph_neighbors_count(graph, tr_rank, &nn);
    MPI_Graph_neighbors(graph, tr_rank, nn, nb);
    CHECK_INT(nn, tr_rank == 0 ? n - 1 : 1);
    tr_print_ranks("graph: %d neighbours, first=%d", nn, nn > 0 ? nb[0] : -1);
    MPI_Comm_free(&graph);

    int left = (tr_rank + n - 1) % n, right = (tr_rank + 1) % n;
    MPI_Comm ring;
    /* Through a volatile pointer: gcc's -Wstringop-overread rejects Open
     * MPI's MPI_UNWEIGHTED sentinel passed directly as an array argument. */
    int *volatile unweighted = MPI_UNWEIGHTED;
    MPI_Dist_graph_create_adjacent(W, 1, &left, unweighted, 1, &right, unweighted, MPI_INFO_NULL, 0,
                                   &ring);
    MPI_Topo_test(ring, &status);
    CHECK(status == MPI_DIST_GRAPH, "topo_test dist_graph");
    int indeg, outdeg, weighted;
    MPI_Dist_graph_neighbors_count(ring, &indeg, &outdeg, &weighted);
    CHECK(indeg == 1 && outdeg == 1 && !weighted, "dist_graph counts");
    int got = -1, v = tr_rank * 10;
    MPI_Neighbor_allgather(&v, 1, MPI_INT, &got, 1, MPI_INT, ring);
    CHECK_INT(got, left * 10);
    tr_print_ranks("dist_graph ring: in=%d out=%d neighbor_allgather got %d", indeg, outdeg, got);
    MPI_Comm_free(&ring);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    tr_begin("comm_group", 1, MAXP);
    test_dup_compare_name();
    test_split();
    test_groups();
    test_create();
    test_intercomm();
    test_cart();
    test_graphs();
    return tr_finish();
}
