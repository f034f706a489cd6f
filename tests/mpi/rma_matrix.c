/*
 * The test matrix of issue 4: every synchronization mode (fence, with and
 * without asserts; PSCW completed by wait, by test, and with
 * MPI_MODE_NOCHECK; lock exclusive; lock shared; lock_all, also with
 * MPI_MODE_NOCHECK) x every way to complete (the epoch's end, flush,
 * flush_local, flush_all, flush_local_all, and the requests of the R* forms)
 * x every operation (Put, Get, Accumulate with SUM and REPLACE,
 * Get_accumulate with SUM and NO_OP, Fetch_and_op with SUM and NO_OP,
 * Compare_and_swap that swaps and that does not, Rput, Rget, Raccumulate,
 * Rget_accumulate) x origin and target datatypes (contiguous, vector, 3-D
 * subarray, each on either side: 9 pairs; a result buffer of a third kind).
 *
 * One round per (mode, completion): every origin issues all its operations
 * in one epoch to one target (the next rank; in three rounds itself), each in
 * its own region of the window; then:
 *  - after a request completes, or a flush of any kind: the fetched values
 *    must be in the origin's buffers, and the origin scribbles over its
 *    source buffers (they may be reused: what arrives must not change);
 *  - after a flush or flush_all (remote completion): a Get of the whole
 *    target range must see every update;
 *  - after the epoch: each target checks its whole window (under a lock on
 *    itself, load/store), every element exactly, against what it computes
 *    locally. Values depend on the round, so stale data cannot pass.
 *
 * The window comes from MPI_Win_allocate, or with argument "shared" from
 * MPI_Win_allocate_shared.
 */
#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "check.h" /* tests/check.h */

/* Windows of whole pages: MPICH 4.0.2 (ch4/ucx) targets the start of the page
 * that holds a smaller MPI_Win_allocate window (fixed by pmodels/mpich PR 6140). */
enum { PAGE = 4096 };

/* Datatypes: each selects 8 ints within a region of REGION ints. */
enum dtype { CONTIG, VECTOR, SUBARRAY, DTYPES };
static const char *dtype_name[] = {"contiguous", "vector", "subarray"};
enum { SEL = 8, REGION = 64, ATOMIC_AT = 7 };

enum op {
    PUT,
    GET,
    ACC_SUM,
    ACC_REPLACE,
    GACC_SUM,
    GACC_NOOP,
    RPUT,
    RGET,
    RACC_SUM,
    RACC_REPLACE,
    RGACC_SUM,
    TYPED_OPS, /* above: one region per (op, origin type, target type) */
    FOP_SUM = TYPED_OPS,
    FOP_NOOP,
    CAS_HIT,
    CAS_MISS,
    OPS
};
static const char *op_name[] = {"put",
                                "get",
                                "accumulate(sum)",
                                "accumulate(replace)",
                                "get_accumulate(sum)",
                                "get_accumulate(no_op)",
                                "rput",
                                "rget",
                                "raccumulate(sum)",
                                "raccumulate(replace)",
                                "rget_accumulate(sum)",
                                "fetch_and_op(sum)",
                                "fetch_and_op(no_op)",
                                "compare_and_swap(hit)",
                                "compare_and_swap(miss)"};

enum { PAIRS = DTYPES * DTYPES, REGIONS = TYPED_OPS * PAIRS + (OPS - TYPED_OPS) };
enum { INTS = REGIONS * REGION, WIN_BYTES = (INTS * (int)sizeof(int) + PAGE - 1) / PAGE * PAGE };
enum { SENTINEL = -7, SCRIBBLE = -999 };

enum mode {
    FENCE,
    FENCE_ASSERTS,
    PSCW_WAIT,
    PSCW_TEST,
    PSCW_NOCHECK,
    LOCK_EXCL,
    LOCK_SHARED,
    LOCK_ALL,
    LOCK_ALL_NOCHECK
};
static const char *mode_name[] = {"fence",        "fence(asserts)", "pscw(wait)",
                                  "pscw(test)",   "pscw(nocheck)",  "lock(exclusive)",
                                  "lock(shared)", "lock_all",       "lock_all(nocheck)"};
enum completion { AT_CLOSE, FLUSH, FLUSH_LOCAL, FLUSH_ALL, FLUSH_LOCAL_ALL };
static const char *completion_name[] = {"epoch end", "flush", "flush_local", "flush_all",
                                        "flush_local_all"};

struct round {
    enum mode mode;
    enum completion completion;
    int shift; /* target = rank + shift */
};

static const struct round rounds[] = {
    {FENCE, AT_CLOSE, 1},
    {FENCE_ASSERTS, AT_CLOSE, 1},
    {PSCW_WAIT, AT_CLOSE, 1},
    {PSCW_TEST, AT_CLOSE, 1},
    {PSCW_NOCHECK, AT_CLOSE, 1},
    {LOCK_EXCL, AT_CLOSE, 1},
    {LOCK_EXCL, FLUSH, 1},
    {LOCK_EXCL, FLUSH_LOCAL, 1},
    {LOCK_EXCL, FLUSH_ALL, 1},
    {LOCK_EXCL, FLUSH_LOCAL_ALL, 1},
    {LOCK_SHARED, AT_CLOSE, 1},
    {LOCK_SHARED, FLUSH, 1},
    {LOCK_SHARED, FLUSH_LOCAL, 1},
    {LOCK_SHARED, FLUSH_ALL, 1},
    {LOCK_SHARED, FLUSH_LOCAL_ALL, 1},
    {LOCK_ALL, AT_CLOSE, 1},
    {LOCK_ALL, FLUSH, 1},
    {LOCK_ALL, FLUSH_LOCAL, 1},
    {LOCK_ALL, FLUSH_ALL, 1},
    {LOCK_ALL, FLUSH_LOCAL_ALL, 1},
    {LOCK_ALL_NOCHECK, FLUSH_ALL, 1},
    {LOCK_EXCL, FLUSH, 0}, /* on oneself: the self-lock rule */
    {LOCK_SHARED, FLUSH_LOCAL, 0},
    {LOCK_ALL, FLUSH_LOCAL_ALL, 0},
};
enum { ROUNDS = sizeof rounds / sizeof rounds[0] };

static int rank, size;
static int *mem; /* this process's window memory */
static MPI_Win win;
static MPI_Group world_group;
static int src[INTS], res[INTS], back[INTS], cmp[OPS - TYPED_OPS];
static MPI_Datatype types[DTYPES];
static int offset[DTYPES];   /* where each type starts in its region */
static int pos[DTYPES][SEL]; /* the elements it selects, from its start */
static int reported;         /* mismatches printed, to keep the log short */

static int initial(int owner, int round, int i)
{
    return -(1 + i + 10000 * owner + 200000 * round);
}

static int value(int origin, int round, int i)
{
    return 7 + 3 * i + 30011 * origin + 300007 * round;
}

static bool passive(enum mode m)
{
    return m >= LOCK_EXCL;
}

static bool request_op(enum op o)
{
    return o >= RPUT && o <= RGACC_SUM;
}

static bool fetches(enum op o)
{
    return o == GET || o == GACC_SUM || o == GACC_NOOP || o == RGET || o == RGACC_SUM ||
           o >= FOP_SUM;
}

/* An operation takes part in a round unless it is request-based in active target. */
static bool in_round(enum op o, enum mode m)
{
    return !request_op(o) || passive(m);
}

static void make_types(void)
{
    MPI_Type_contiguous(SEL, MPI_INT, &types[CONTIG]);
    offset[CONTIG] = 5;
    for (int i = 0; i < SEL; i++)
        pos[CONTIG][i] = i;

    MPI_Type_vector(4, 2, 3, MPI_INT, &types[VECTOR]);
    offset[VECTOR] = 3;
    for (int b = 0, n = 0; b < 4; b++)
        for (int i = 0; i < 2; i++)
            pos[VECTOR][n++] = 3 * b + i;

    /* Not a cube, so that mixed-up dimensions show. */
    int sizes[3] = {3, 4, 5}, subsizes[3] = {2, 2, 2}, starts[3] = {1, 1, 2};
    MPI_Type_create_subarray(3, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &types[SUBARRAY]);
    offset[SUBARRAY] = 0;
    for (int i = 0, n = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            for (int k = 0; k < 2; k++)
                pos[SUBARRAY][n++] = 20 * (1 + i) + 5 * (1 + j) + 2 + k;
    for (int d = 0; d < DTYPES; d++)
        MPI_Type_commit(&types[d]);
}

/* Case c: an operation with origin type c / DTYPES, target type c % DTYPES. */
static int region_of(enum op o, int pair)
{
    return o < TYPED_OPS ? (int)o * PAIRS + pair : TYPED_OPS * PAIRS + (int)(o - TYPED_OPS);
}

static int origin_type(int pair)
{
    return pair / DTYPES;
}

static int target_type(int pair)
{
    return pair % DTYPES;
}

static int result_type(int pair) /* a third layout for Get_accumulate's result */
{
    return (origin_type(pair) + 1) % DTYPES;
}

/* Element k of the type d, for a region starting at `base`. */
static int at(int base, int d, int k)
{
    return base + offset[d] + pos[d][k];
}

/* What element i of `owner`'s window holds after round r, in which `origin`
 * did its operations on it. */
static void expected_window(int *want, int owner, int origin, int r)
{
    enum mode m = rounds[r].mode;
    for (int i = 0; i < INTS; i++)
        want[i] = initial(owner, r, i);
    for (int o = 0; o < OPS; o++) {
        if (!in_round((enum op)o, m))
            continue;
        if (o >= TYPED_OPS) {
            int i = region_of((enum op)o, 0) * REGION + ATOMIC_AT;
            if (o == FOP_SUM)
                want[i] += value(origin, r, i);
            else if (o == CAS_HIT)
                want[i] = value(origin, r, i);
            continue;
        }
        for (int pair = 0; pair < PAIRS; pair++) {
            int base = region_of((enum op)o, pair) * REGION;
            for (int k = 0; k < SEL; k++) {
                int t = at(base, target_type(pair), k), s = at(base, origin_type(pair), k);
                switch (o) {
                case PUT:
                case RPUT:
                case ACC_REPLACE:
                case RACC_REPLACE:
                    want[t] = value(origin, r, s);
                    break;
                case ACC_SUM:
                case RACC_SUM:
                case GACC_SUM:
                case RGACC_SUM:
                    want[t] += value(origin, r, s);
                    break;
                default: /* GET, RGET, GACC_NOOP */
                    break;
                }
            }
        }
    }
}

static void mismatch(const char *what, int r, int i, int got, int want)
{
    failures++;
    if (reported++ >= 10)
        return;
    int region = i / REGION;
    char kind[96];
    if (region < TYPED_OPS * PAIRS) {
        int pair = region % PAIRS;
        snprintf(kind, sizeof kind, "%s, origin %s, target %s", op_name[region / PAIRS],
                 dtype_name[origin_type(pair)], dtype_name[target_type(pair)]);
    } else {
        snprintf(kind, sizeof kind, "%s", op_name[TYPED_OPS + region - TYPED_OPS * PAIRS]);
    }
    fprintf(stderr, "rank %d: round %d (%s, %s, %s): %s element %d (%s) is %d, expected %d\n", rank,
            r, mode_name[rounds[r].mode], completion_name[rounds[r].completion],
            rounds[r].shift ? "next rank" : "self", what, i, kind, got, want);
}

/* The fetched values of operation o (R* forms only, or all others) from `target`. */
static void check_fetched(int r, int target, bool requests)
{
    static int want[INTS];
    for (int i = 0; i < INTS; i++)
        want[i] = SENTINEL;
    for (int o = 0; o < OPS; o++) {
        if (!in_round((enum op)o, rounds[r].mode) || !fetches((enum op)o) ||
            request_op((enum op)o) != requests)
            continue;
        if (o >= TYPED_OPS) {
            int i = region_of((enum op)o, 0) * REGION + ATOMIC_AT;
            want[i] = initial(target, r, i);
            continue;
        }
        for (int pair = 0; pair < PAIRS; pair++) {
            int base = region_of((enum op)o, pair) * REGION;
            int d = o == GET || o == RGET ? origin_type(pair) : result_type(pair);
            for (int k = 0; k < SEL; k++)
                want[at(base, d, k)] = initial(target, r, at(base, target_type(pair), k));
        }
    }
    for (int o = 0; o < OPS; o++) {
        if (!in_round((enum op)o, rounds[r].mode) || request_op((enum op)o) != requests)
            continue;
        int first = region_of((enum op)o, 0), n = o < TYPED_OPS ? PAIRS : 1;
        for (int i = first * REGION; i < (first + n) * REGION; i++)
            if (res[i] != want[i])
                mismatch("fetched", r, i, res[i], want[i]);
    }
}

/* Source buffers may be reused once the operations completed locally. */
static void scribble(int r, bool requests)
{
    for (int o = 0; o < OPS; o++) {
        if (!in_round((enum op)o, rounds[r].mode) || request_op((enum op)o) != requests)
            continue;
        int first = region_of((enum op)o, 0), n = o < TYPED_OPS ? PAIRS : 1;
        for (int i = first * REGION; i < (first + n) * REGION; i++)
            src[i] = SCRIBBLE;
    }
}

static void issue(enum op o, int pair, int target, MPI_Request *req)
{
    int base = region_of(o, pair) * REGION;
    MPI_Datatype ot = types[origin_type(pair)], tt = types[target_type(pair)];
    MPI_Datatype rt = types[result_type(pair)];
    const int *s = src + base + offset[origin_type(pair)];
    int *g = res + base + offset[origin_type(pair)];  /* Get's destination */
    int *ra = res + base + offset[result_type(pair)]; /* Get_accumulate's result */
    MPI_Aint disp = base + offset[target_type(pair)];
    int a = base + ATOMIC_AT;
    *req = MPI_REQUEST_NULL;
    switch (o) {
    case PUT:
        MPI_Put(s, 1, ot, target, disp, 1, tt, win);
        break;
    case GET:
        MPI_Get(g, 1, ot, target, disp, 1, tt, win);
        break;
    case ACC_SUM:
    case ACC_REPLACE:
        MPI_Accumulate(s, 1, ot, target, disp, 1, tt, o == ACC_SUM ? MPI_SUM : MPI_REPLACE, win);
        break;
    case GACC_SUM:
        MPI_Get_accumulate(s, 1, ot, ra, 1, rt, target, disp, 1, tt, MPI_SUM, win);
        break;
    case GACC_NOOP:
        MPI_Get_accumulate(NULL, 0, MPI_INT, ra, 1, rt, target, disp, 1, tt, MPI_NO_OP, win);
        break;
    case RPUT:
        MPI_Rput(s, 1, ot, target, disp, 1, tt, win, req);
        break;
    case RGET:
        MPI_Rget(g, 1, ot, target, disp, 1, tt, win, req);
        break;
    case RACC_SUM:
    case RACC_REPLACE:
        MPI_Raccumulate(s, 1, ot, target, disp, 1, tt, o == RACC_SUM ? MPI_SUM : MPI_REPLACE, win,
                        req);
        break;
    case RGACC_SUM:
        MPI_Rget_accumulate(s, 1, ot, ra, 1, rt, target, disp, 1, tt, MPI_SUM, win, req);
        break;
    case FOP_SUM:
    case FOP_NOOP:
        MPI_Fetch_and_op(src + a, res + a, MPI_INT, target, a, o == FOP_SUM ? MPI_SUM : MPI_NO_OP,
                         win);
        break;
    case CAS_HIT:
    case CAS_MISS:
        MPI_Compare_and_swap(src + a, &cmp[o - TYPED_OPS], res + a, MPI_INT, target, a, win);
        break;
    default:
        break;
    }
}

static void open_epoch(enum mode m, int target, int origin)
{
    MPI_Group to, from;
    MPI_Group_incl(world_group, 1, &target, &to);
    MPI_Group_incl(world_group, 1, &origin, &from);
    switch (m) {
    case FENCE:
        MPI_Win_fence(0, win);
        break;
    case FENCE_ASSERTS: /* nothing to complete, no local stores since the unlock */
        MPI_Win_fence(MPI_MODE_NOPRECEDE | MPI_MODE_NOSTORE, win);
        break;
    case PSCW_WAIT:
    case PSCW_TEST:
        MPI_Win_post(from, 0, win);
        MPI_Win_start(to, 0, win);
        break;
    case PSCW_NOCHECK: /* the barrier is the synchronization NOCHECK promises */
        MPI_Win_post(from, MPI_MODE_NOCHECK, win);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Win_start(to, MPI_MODE_NOCHECK, win);
        break;
    case LOCK_EXCL:
    case LOCK_SHARED:
        MPI_Win_lock(m == LOCK_EXCL ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED, target, 0, win);
        break;
    case LOCK_ALL:
        MPI_Win_lock_all(0, win);
        break;
    case LOCK_ALL_NOCHECK:
        MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
        break;
    }
    MPI_Group_free(&to);
    MPI_Group_free(&from);
}

static void close_epoch(enum mode m, int target)
{
    int flag = 0;
    switch (m) {
    case FENCE:
        MPI_Win_fence(0, win);
        break;
    case FENCE_ASSERTS:
        MPI_Win_fence(MPI_MODE_NOSUCCEED | MPI_MODE_NOSTORE, win);
        break;
    case PSCW_WAIT:
    case PSCW_NOCHECK:
        MPI_Win_complete(win);
        MPI_Win_wait(win);
        break;
    case PSCW_TEST:
        MPI_Win_complete(win);
        while (!flag)
            MPI_Win_test(win, &flag);
        break;
    case LOCK_EXCL:
    case LOCK_SHARED:
        MPI_Win_unlock(target, win);
        break;
    case LOCK_ALL:
    case LOCK_ALL_NOCHECK:
        MPI_Win_unlock_all(win);
        break;
    }
}

static void complete(enum completion c, int target)
{
    switch (c) {
    case FLUSH:
        MPI_Win_flush(target, win);
        break;
    case FLUSH_LOCAL:
        MPI_Win_flush_local(target, win);
        break;
    case FLUSH_ALL:
        MPI_Win_flush_all(win);
        break;
    case FLUSH_LOCAL_ALL:
        MPI_Win_flush_local_all(win);
        break;
    case AT_CLOSE:
        break;
    }
}

static void run_round(int r)
{
    const struct round *rd = &rounds[r];
    int target = (rank + rd->shift) % size, origin = (rank + size - rd->shift) % size;
    for (int i = 0; i < INTS; i++) {
        src[i] = value(rank, r, i);
        res[i] = SENTINEL;
    }
    cmp[CAS_HIT - TYPED_OPS] = initial(target, r, region_of(CAS_HIT, 0) * REGION + ATOMIC_AT);
    cmp[CAS_MISS - TYPED_OPS] = initial(target, r, region_of(CAS_MISS, 0) * REGION + ATOMIC_AT) + 1;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
    for (int i = 0; i < INTS; i++)
        mem[i] = initial(rank, r, i);
    MPI_Win_unlock(rank, win);
    MPI_Barrier(MPI_COMM_WORLD);

    open_epoch(rd->mode, target, origin);
    /* A status array, not MPI_STATUSES_IGNORE: GCC warns about MPICH's (MPI_Status *)1. */
    MPI_Request reqs[TYPED_OPS * PAIRS];
    static MPI_Status statuses[TYPED_OPS * PAIRS];
    int nreq = 0;
    for (int o = 0; o < OPS; o++) {
        if (!in_round((enum op)o, rd->mode))
            continue;
        for (int pair = 0; pair < (o < TYPED_OPS ? PAIRS : 1); pair++) {
            MPI_Request req;
            issue((enum op)o, pair, target, &req);
            if (req != MPI_REQUEST_NULL)
                reqs[nreq++] = req;
        }
    }
    if (nreq) {
        MPI_Waitall(nreq, reqs, statuses);
        check_fetched(r, target, true);
        scribble(r, true);
    }
    complete(rd->completion, target);
    static int want[INTS];
    if (rd->completion != AT_CLOSE) {
        check_fetched(r, target, false);
        scribble(r, false);
    }
    if (rd->completion == FLUSH || rd->completion == FLUSH_ALL) {
        /* Remote completion: everything must be visible at the target now. */
        MPI_Get(back, INTS, MPI_INT, target, 0, INTS, MPI_INT, win);
        MPI_Win_flush(target, win);
        expected_window(want, target, rank, r);
        for (int i = 0; i < INTS; i++)
            if (back[i] != want[i])
                mismatch("read back after the flush", r, i, back[i], want[i]);
    }
    close_epoch(rd->mode, target);
    if (rd->completion == AT_CLOSE) {
        check_fetched(r, target, false);
        scribble(r, false);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    expected_window(want, rank, origin, r);
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
    for (int i = 0; i < INTS; i++)
        if (mem[i] != want[i])
            mismatch("window", r, i, mem[i], want[i]);
    MPI_Win_unlock(rank, win);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    make_types();
    bool shared = argc > 1 && strcmp(argv[1], "shared") == 0;
    if (shared)
        MPI_Win_allocate_shared(WIN_BYTES, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    else
        MPI_Win_allocate(WIN_BYTES, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);

    int done = 0;
    for (int r = 0; r < ROUNDS; r++) {
#ifdef OPEN_MPI
        /* Open MPI 4.1.4's osc/sm (MPI_Win_allocate_shared) hangs in MPI_Win_wait
         * when a PSCW epoch with MPI_MODE_NOCHECK follows an ordinary one
         * (reproduced without wisp). */
        if (shared && rounds[r].mode == PSCW_NOCHECK)
            continue;
#endif
        run_round(r);
        done++;
    }

    MPI_Win_free(&win);
    for (int d = 0; d < DTYPES; d++)
        MPI_Type_free(&types[d]);
    MPI_Group_free(&world_group);

    int all_failures = 0;
    MPI_Allreduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("rma_matrix%s: %d rounds of %d regions on %d ranks: %s\n", shared ? " shared" : "",
               done, REGIONS, size, all_failures ? "FAILED" : "ok");
    MPI_Finalize();
    return all_failures != 0;
}
