/*
 * rma: one-sided communication.
 *
 * Windows from MPI_Win_create, MPI_Win_allocate, MPI_Win_allocate_shared
 * on the MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) communicator (with
 * MPI_Win_shared_query and direct load/store) and
 * MPI_Win_create_dynamic (with MPI_Win_attach/detach), used in every
 * synchronisation mode: fence, post/start/complete/wait, lock/unlock
 * (shared and exclusive), lock_all/unlock_all, flush/flush_local/flush_all
 * and MPI_Win_sync.  Operations: MPI_Put, MPI_Get, MPI_Accumulate (SUM,
 * REPLACE), MPI_Get_accumulate (SUM, NO_OP), MPI_Fetch_and_op,
 * MPI_Compare_and_swap, and the request-based MPI_Rput/MPI_Rget/
 * MPI_Raccumulate/MPI_Rget_accumulate completed with MPI_Wait.  Window
 * attributes MPI_WIN_BASE (only "equals the local pointer" is printed),
 * MPI_WIN_SIZE, MPI_WIN_DISP_UNIT, MPI_WIN_CREATE_FLAVOR and MPI_WIN_MODEL,
 * and the size of MPI_Win_get_group.  An exclusive-lock read-modify-write
 * counter incremented 20 times by every rank must come out exact.
 * Designed for 2..4 processes.
 */
#include <mpi.h>

#include "check.h"

#define W          MPI_COMM_WORLD
#define MAXP       8
#define INCREMENTS 20

static const char *flavor_name(int f)
{
    if (f == MPI_WIN_FLAVOR_CREATE)
        return "MPI_WIN_FLAVOR_CREATE";
    if (f == MPI_WIN_FLAVOR_ALLOCATE)
        return "MPI_WIN_FLAVOR_ALLOCATE";
    if (f == MPI_WIN_FLAVOR_DYNAMIC)
        return "MPI_WIN_FLAVOR_DYNAMIC";
    if (f == MPI_WIN_FLAVOR_SHARED)
        return "MPI_WIN_FLAVOR_SHARED";
    return "<unknown flavor>";
}

/* MPI_Win_allocate of at least nints ints, rounded up to whole pages.
 * Works around an MPICH 4.0.2 ch4/ucx bug (fixed by pmodels/mpich PR 6140)
 * with newer UCX: the window base that other ranks target is the start of
 * the page holding the local memory, so with sub-page windows ranks > 0
 * would be targeted at the wrong address. */
#define PAGE 4096
static MPI_Aint alloc_win(int nints, int **mem, MPI_Win *win)
{
    MPI_Aint bytes = ((MPI_Aint)nints * (MPI_Aint)sizeof(int) + PAGE - 1) / PAGE * PAGE;
    MPI_Win_allocate(bytes, sizeof(int), MPI_INFO_NULL, W, mem, win);
    return bytes;
}

/* Checks and prints the predefined window attributes. */
static void check_win_attrs(const char *what, MPI_Win win, MPI_Comm comm, void *base, MPI_Aint size,
                            int disp_unit, int flavor)
{
    void *b = NULL;
    MPI_Aint *s = NULL;
    int *d = NULL, *f = NULL, *m = NULL;
    int fb, fs, fd, ff, fm;
    MPI_Win_get_attr(win, MPI_WIN_BASE, &b, &fb);
    MPI_Win_get_attr(win, MPI_WIN_SIZE, &s, &fs);
    MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &d, &fd);
    MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &f, &ff);
    MPI_Win_get_attr(win, MPI_WIN_MODEL, &m, &fm);
    CHECK(fb && fs && fd && ff && fm, "%s: all window attributes present", what);
    CHECK(b == base, "%s: MPI_WIN_BASE", what);
    CHECK(*s == size, "%s: MPI_WIN_SIZE %ld", what, (long)*s);
    CHECK_INT(*d, disp_unit);
    CHECK(*f == flavor, "%s: flavor %s", what, flavor_name(*f));
    CHECK(*m == MPI_WIN_UNIFIED || *m == MPI_WIN_SEPARATE, "%s: model", what);
    MPI_Group g;
    int gsize, csize;
    MPI_Win_get_group(win, &g);
    MPI_Group_size(g, &gsize);
    MPI_Group_free(&g);
    MPI_Comm_size(comm, &csize);
    CHECK_INT(gsize, csize);
    /* The memory model is checked but not printed: it is implementation
     * specific. */
    tr_print("%s: base==local %d size=%ld disp_unit=%d %s group size==comm size %d\n", what,
             b == base, (long)*s, *d, flavor_name(*f), gsize == csize);
}

/* Win_create + fence: puts, gets and accumulates between all ranks. */
static void test_fence(void)
{
    int n = tr_size, r = tr_rank;
    int mem[MAXP + 2];
    for (int i = 0; i < MAXP + 2; i++)
        mem[i] = -1;
    MPI_Win win;
    MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, W, &win);
    check_win_attrs("win_create", win, W, mem, sizeof mem, sizeof(int), MPI_WIN_FLAVOR_CREATE);

    /* Every rank writes its rank into slot [r] of every window. */
    MPI_Win_fence(0, win);
    for (int t = 0; t < n; t++)
        MPI_Put(&r, 1, MPI_INT, t, r, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    for (int k = 0; k < n; k++)
        CHECK_INT(mem[k], k);

    /* Get slot [n-1] of the right neighbour; accumulate into rank 0. */
    int right = (r + 1) % n, got = -1, inc = r + 1, rep = 100 + r;
    MPI_Get(&got, 1, MPI_INT, right, n - 1, 1, MPI_INT, win);
    MPI_Accumulate(&inc, 1, MPI_INT, 0, MAXP, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_fence(0, win);
    CHECK_INT(got, n - 1);
    if (r == 0)
        mem[MAXP + 1] = 0;
    MPI_Win_fence(0, win);
    if (r == n - 1)
        MPI_Accumulate(&rep, 1, MPI_INT, 0, MAXP + 1, 1, MPI_INT, MPI_REPLACE, win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    if (r == 0) {
        /* slot MAXP started at -1 */
        CHECK_INT(mem[MAXP], -1 + n * (n + 1) / 2);
        CHECK_INT(mem[MAXP + 1], 100 + n - 1);
    }
    int res[2] = {mem[MAXP], mem[MAXP + 1]};
    MPI_Bcast(res, 2, MPI_INT, 0, W);
    tr_print("fence: get from right=%d accumulate sum=%d replace=%d\n", got, res[0], res[1]);
    MPI_Win_free(&win);
}

/* Post/start/complete/wait around a ring: expose to the left neighbour,
 * access the right one. */
static void test_pscw(void)
{
    int n = tr_size, r = tr_rank;
    int left = (r + n - 1) % n, right = (r + 1) % n;
    int *mem;
    MPI_Win win;
    MPI_Aint bytes = alloc_win(2, &mem, &win);
    check_win_attrs("win_allocate", win, W, mem, bytes, sizeof(int), MPI_WIN_FLAVOR_ALLOCATE);
    mem[0] = mem[1] = -1;
    MPI_Barrier(W);

    MPI_Group world, lg, rg;
    MPI_Comm_group(W, &world);
    MPI_Group_incl(world, 1, &left, &lg);
    MPI_Group_incl(world, 1, &right, &rg);
    for (int round = 0; round < 2; round++) {
        int v = r * 10 + round;
        MPI_Win_post(lg, 0, win);
        MPI_Win_start(rg, 0, win);
        MPI_Put(&v, 1, MPI_INT, right, round, 1, MPI_INT, win);
        MPI_Win_complete(win);
        MPI_Win_wait(win);
        CHECK_INT(mem[round], left * 10 + round);
    }
    tr_print_ranks("pscw: received %d %d", mem[0], mem[1]);
    MPI_Group_free(&lg);
    MPI_Group_free(&rg);
    MPI_Group_free(&world);
    MPI_Win_free(&win);
}

/* Exclusive locks serialise a get / flush / put read-modify-write of a
 * counter on rank 0; shared locks read it afterwards. */
static void test_locks(void)
{
    int *mem;
    MPI_Win win;
    alloc_win(1, &mem, &win);
    *mem = 0;
    MPI_Barrier(W);
    for (int i = 0; i < INCREMENTS; i++) {
        int v = -1;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Get(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        MPI_Win_flush(0, win);
        v++;
        MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(W);
    int total = -1;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Get(&total, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
    MPI_Win_unlock(0, win);
    CHECK_INT(total, INCREMENTS * tr_size);
    tr_print_ranks("exclusive-lock counter: %d (expected %d)", total, INCREMENTS * tr_size);
    MPI_Win_free(&win);
}

/* lock_all epoch: atomics and request-based operations. */
static void test_lock_all(void)
{
    int n = tr_size, r = tr_rank;
    /* slots: 0 fetch_and_op counter, 1 compare_and_swap, 2..2+n rput
     * targets, 2+MAXP raccumulate sum, 3+MAXP get_accumulate sum */
    enum { FAO = 0, CAS = 1, RPUT = 2, RACC = 2 + MAXP, GACC = 3 + MAXP, NSLOTS };
    int *mem;
    MPI_Win win;
    alloc_win(NSLOTS, &mem, &win);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, r, 0, win);
    for (int i = 0; i < NSLOTS; i++)
        mem[i] = 0;
    mem[CAS] = -1;
    MPI_Win_unlock(r, win);
    MPI_Barrier(W);

    MPI_Win_lock_all(0, win);
    /* Fetch_and_op: every rank adds 1 to rank 0's counter INCREMENTS times;
     * the fetched values are all distinct, so their sum is known. */
    long fetched_sum = 0;
    int one = 1;
    for (int i = 0; i < INCREMENTS; i++) {
        int old = -1;
        MPI_Fetch_and_op(&one, &old, MPI_INT, 0, FAO, MPI_SUM, win);
        MPI_Win_flush(0, win);
        fetched_sum += old;
    }
    /* Compare_and_swap: exactly one rank replaces -1 with its rank. */
    int cmp = -1, mine = r, prev = -2;
    MPI_Compare_and_swap(&mine, &cmp, &prev, MPI_INT, 0, CAS, win);
    MPI_Win_flush(0, win);
    int won = prev == -1;

    /* Request-based: Rput our rank into slot RPUT+r of the right
     * neighbour, Raccumulate into rank 0, Rget_accumulate into rank 0. */
    int right = (r + 1) % n, val = r + 1, gacc_old = -1;
    MPI_Request reqs[3];
    MPI_Rput(&r, 1, MPI_INT, right, RPUT + r, 1, MPI_INT, win, &reqs[0]);
    MPI_Raccumulate(&val, 1, MPI_INT, 0, RACC, 1, MPI_INT, MPI_SUM, win, &reqs[1]);
    MPI_Rget_accumulate(&val, 1, MPI_INT, &gacc_old, 1, MPI_INT, 0, GACC, 1, MPI_INT, MPI_SUM, win,
                        &reqs[2]);
    MPI_Status sts[3];
    MPI_Waitall(3, reqs, sts);
    MPI_Win_flush_local_all(win);
    MPI_Win_flush_all(win);
    MPI_Win_unlock_all(win);
    MPI_Barrier(W);

    /* Read everything back through Rget and Get_accumulate(NO_OP). */
    int fao = -1, cas = -2, racc = -1, gacc = -1, from_left = -1;
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    MPI_Request rg;
    MPI_Rget(&fao, 1, MPI_INT, 0, FAO, 1, MPI_INT, win, &rg);
    MPI_Wait(&rg, MPI_STATUS_IGNORE);
    MPI_Get_accumulate(NULL, 0, MPI_INT, &cas, 1, MPI_INT, 0, CAS, 1, MPI_INT, MPI_NO_OP, win);
    MPI_Get_accumulate(NULL, 0, MPI_INT, &racc, 1, MPI_INT, 0, RACC, 1, MPI_INT, MPI_NO_OP, win);
    MPI_Get_accumulate(NULL, 0, MPI_INT, &gacc, 1, MPI_INT, 0, GACC, 1, MPI_INT, MPI_NO_OP, win);
    MPI_Win_flush_local(0, win);
    MPI_Win_unlock_all(win);
    MPI_Win_lock(MPI_LOCK_SHARED, r, 0, win);
    from_left = mem[RPUT + (r + n - 1) % n];
    MPI_Win_unlock(r, win);

    long all_fetched = 0;
    int winners = 0;
    MPI_Allreduce(&fetched_sum, &all_fetched, 1, MPI_LONG, MPI_SUM, W);
    MPI_Allreduce(&won, &winners, 1, MPI_INT, MPI_SUM, W);
    long total = (long)INCREMENTS * n;
    CHECK_INT(fao, total);
    CHECK_INT(all_fetched, total * (total - 1) / 2);
    CHECK_INT(winners, 1);
    CHECK(cas >= 0 && cas < n, "cas winner %d", cas);
    CHECK_INT(racc, n * (n + 1) / 2);
    CHECK_INT(gacc, n * (n + 1) / 2);
    CHECK_INT(from_left, (r + n - 1) % n);
    tr_print("lock_all: fetch_and_op counter=%d fetched sum=%ld\n", fao, all_fetched);
    tr_print("lock_all: compare_and_swap winners=%d\n", winners);
    tr_print("lock_all: raccumulate=%d rget_accumulate=%d\n", racc, gacc);
    tr_print_ranks("lock_all: rput from left=%d", from_left);
    MPI_Win_free(&win);
}

/* Shared-memory window on the node communicator from
 * MPI_Comm_split_type: direct loads of the right neighbour's memory.  The
 * node layout differs natively and under wisp's virtual nodes, so only
 * layout-independent results are printed. */
static void test_shared(void)
{
    MPI_Comm node;
    MPI_Comm_split_type(W, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int n, r, world_of[MAXP];
    MPI_Comm_size(node, &n);
    MPI_Comm_rank(node, &r);
    MPI_Allgather(&tr_rank, 1, MPI_INT, world_of, 1, MPI_INT, node);
    int *mem;
    MPI_Win win;
    MPI_Win_allocate_shared(sizeof(int), sizeof(int), MPI_INFO_NULL, node, &mem, &win);
    check_win_attrs("win_allocate_shared", win, node, mem, sizeof(int), sizeof(int),
                    MPI_WIN_FLAVOR_SHARED);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    *mem = 1000 + tr_rank;
    MPI_Win_sync(win);
    MPI_Barrier(node);
    MPI_Win_sync(win);
    int right = (r + 1) % n;
    MPI_Aint qsize;
    int qdisp;
    int *rmem;
    MPI_Win_shared_query(win, right, &qsize, &qdisp, &rmem);
    CHECK(qsize == sizeof(int) && qdisp == sizeof(int), "shared_query size/disp");
    int seen = *rmem;
    MPI_Win_unlock_all(win);
    CHECK_INT(seen, 1000 + world_of[right]);
    tr_print_ranks("shared: load from right neighbour ok=%d query size=%ld disp_unit=%d",
                   seen == 1000 + world_of[right], (long)qsize, qdisp);
    MPI_Win_free(&win);
    MPI_Comm_free(&node);
}

/* Dynamic window: every rank attaches a buffer and publishes its address;
 * everyone puts into the right neighbour's buffer. */
static void test_dynamic(void)
{
    int n = tr_size, r = tr_rank;
    MPI_Win win;
    MPI_Win_create_dynamic(MPI_INFO_NULL, W, &win);
    int *f = NULL, ff = 0;
    MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &f, &ff);
    CHECK(ff && *f == MPI_WIN_FLAVOR_DYNAMIC, "dynamic flavor");
    tr_print("win_create_dynamic: %s\n", ff ? flavor_name(*f) : "none");

    int buf[2] = {-1, -1};
    MPI_Win_attach(win, buf, sizeof buf);
    MPI_Aint mine, addrs[MAXP];
    MPI_Get_address(buf, &mine);
    MPI_Allgather(&mine, 1, MPI_AINT, addrs, 1, MPI_AINT, W);

    int right = (r + 1) % n, v[2] = {r, r * r};
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win);
    MPI_Put(v, 2, MPI_INT, right, addrs[right], 2, MPI_INT, win);
    MPI_Win_unlock(right, win);
    MPI_Barrier(W);
    MPI_Win_lock(MPI_LOCK_SHARED, r, 0, win);
    int got[2] = {buf[0], buf[1]};
    MPI_Win_unlock(r, win);
    int left = (r + n - 1) % n;
    CHECK(got[0] == left && got[1] == left * left, "dynamic put");
    tr_print_ranks("dynamic: got {%d,%d}", got[0], got[1]);
    MPI_Barrier(W);
    MPI_Win_detach(win, buf);
    MPI_Win_free(&win);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    tr_begin("rma", 2, MAXP);
    test_fence();
    test_pscw();
    test_locks();
    test_lock_all();
    test_shared();
    test_dynamic();
    return tr_finish();
}
