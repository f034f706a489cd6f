/*
 * Every synchronization mode x every one-sided operation x contiguous,
 * vector and 3-D subarray datatypes (on both sides), on a window from
 * MPI_Win_allocate (argv[1] "shared": MPI_Win_allocate_shared on the
 * world; "nolocks": MPI_Win_allocate with the hint epochs_used =
 * fence,pscw,lockall, and no lock epochs). With ghosts the window is served
 * by them (when the communicator allows it), so this checks the redirection:
 * target rank, displacement and datatype translation, and each epoch's
 * translation. Each rank r is the origin of one operation on rank r+1 per
 * case; every process resets its own memory under a lock on itself (load /
 * store, the self-lock rule) and checks what arrived the same way.
 */
#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "check.h" /* tests/check.h */

/* Windows of whole pages: MPICH 4.0.2 (ch4/ucx) targets the start of the page
 * that holds a smaller MPI_Win_allocate window (fixed by pmodels/mpich PR 6140). */
enum { PAGE = 4096 };

enum { N = 64, WIN = N + 8, SLOT = 5 };

enum mode { FENCE, PSCW, LOCK_EXCL, LOCK_SHARED, LOCK_ALL, LOCK_ALL_NOCHECK, MODES };
static const char *mode_name[] = {"fence",       "pscw",     "lock_exclusive",
                                  "lock_shared", "lock_all", "lock_all_nocheck"};
enum op { PUT, GET, ACC, GET_ACC, RPUT, RGET, RACC, RGET_ACC, FETCH_OP, CAS, OPS };
static const char *op_name[] = {"put",  "get",  "accumulate", "get_accumulate", "rput",
                                "rget", "racc", "rget_acc",   "fetch_and_op",   "cas"};
enum dtype { CONTIG, VECTOR, SUBARRAY, DTYPES };
static const char *dtype_name[] = {"contiguous", "vector", "subarray"};

static int rank, size, hint_nolocks;
static int *mem; /* this process's window memory, WIN ints */
static MPI_Win win;
static MPI_Group world_group;

static int initial(int owner, int i)
{
    return -1 - i - 1000 * owner;
}

static int value(int origin, int i)
{
    return 100000 + 1000 * origin + i;
}

/* The element positions a datatype selects (8 of them) and the datatype. */
static MPI_Datatype make_type(enum dtype d, int *pos, MPI_Aint *disp)
{
    MPI_Datatype t;
    int n = 0;
    if (d == CONTIG) {
        MPI_Type_contiguous(8, MPI_INT, &t);
        for (int i = 0; i < 8; i++)
            pos[n++] = 3 + i;
        *disp = 3;
    } else if (d == VECTOR) {
        MPI_Type_vector(4, 2, 3, MPI_INT, &t);
        for (int b = 0; b < 4; b++)
            for (int i = 0; i < 2; i++)
                pos[n++] = 3 + 3 * b + i;
        *disp = 3;
    } else {
        int sizes[3] = {4, 4, 4}, subsizes[3] = {2, 2, 2}, starts[3] = {1, 1, 1};
        MPI_Type_create_subarray(3, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &t);
        for (int i = 1; i < 3; i++)
            for (int j = 1; j < 3; j++)
                for (int k = 1; k < 3; k++)
                    pos[n++] = 16 * i + 4 * j + k;
        *disp = 0;
    }
    MPI_Type_commit(&t);
    return t;
}

/* Reset (or read) one's own memory with load/store under a lock on oneself. */
static void lock_self(void)
{
    if (hint_nolocks)
        MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    else
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
}

static void unlock_self(void)
{
    if (hint_nolocks) {
        MPI_Win_sync(win);
        MPI_Win_unlock_all(win);
    } else {
        MPI_Win_unlock(rank, win);
    }
}

static void open_epoch(enum mode m, int target, int origin)
{
    MPI_Group g;
    switch (m) {
    case FENCE:
        MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
        break;
    case PSCW:
        MPI_Group_incl(world_group, 1, &origin, &g);
        MPI_Win_post(g, 0, win);
        MPI_Group_free(&g);
        MPI_Group_incl(world_group, 1, &target, &g);
        MPI_Win_start(g, 0, win);
        MPI_Group_free(&g);
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
    default:
        break;
    }
}

/* `variant` picks among the flush calls, so that all of them are used. */
static void close_epoch(enum mode m, int target, int variant)
{
    switch (m) {
    case FENCE:
        MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
        break;
    case PSCW:
        MPI_Win_complete(win);
        if (variant % 2) {
            int flag = 0;
            while (!flag)
                MPI_Win_test(win, &flag);
        } else {
            MPI_Win_wait(win);
        }
        break;
    case LOCK_EXCL:
    case LOCK_SHARED:
        if (variant % 2)
            MPI_Win_flush(target, win);
        else
            MPI_Win_flush_local(target, win);
        MPI_Win_unlock(target, win);
        break;
    case LOCK_ALL:
    case LOCK_ALL_NOCHECK:
        if (variant % 3 == 0)
            MPI_Win_flush_all(win);
        else if (variant % 3 == 1)
            MPI_Win_flush_local_all(win);
        else
            MPI_Win_flush(target, win);
        MPI_Win_unlock_all(win);
        break;
    default:
        break;
    }
}

static void run_case(enum mode m, enum op o, enum dtype d, int variant)
{
    int target = (rank + 1) % size, origin = (rank + size - 1) % size;
    int pos[8];
    MPI_Aint disp;
    MPI_Datatype t = make_type(d, pos, &disp);
    bool atomic = o == FETCH_OP || o == CAS;
    if (atomic) { /* one predefined element */
        for (int i = 0; i < 8; i++)
            pos[i] = SLOT;
        disp = SLOT;
    }
    int src[N], res[N], cmp = initial(target, SLOT);
    for (int i = 0; i < N; i++) {
        src[i] = value(rank, i);
        res[i] = -7;
    }

    lock_self();
    for (int i = 0; i < WIN; i++)
        mem[i] = initial(rank, i);
    unlock_self();
    MPI_Barrier(MPI_COMM_WORLD);

    open_epoch(m, target, origin);
    MPI_Request req = MPI_REQUEST_NULL;
    /* The origin's buffers use the target's layout: element i goes to element i. */
    const int *s = src + disp;
    int *r = res + disp;
    switch (o) {
    case PUT:
        MPI_Put(s, 1, t, target, disp, 1, t, win);
        break;
    case GET:
        MPI_Get(r, 1, t, target, disp, 1, t, win);
        break;
    case ACC:
        MPI_Accumulate(s, 1, t, target, disp, 1, t, MPI_SUM, win);
        break;
    case GET_ACC:
        MPI_Get_accumulate(s, 1, t, r, 1, t, target, disp, 1, t, MPI_SUM, win);
        break;
    case RPUT:
        MPI_Rput(s, 1, t, target, disp, 1, t, win, &req);
        break;
    case RGET:
        MPI_Rget(r, 1, t, target, disp, 1, t, win, &req);
        break;
    case RACC:
        MPI_Raccumulate(s, 1, t, target, disp, 1, t, MPI_SUM, win, &req);
        break;
    case RGET_ACC:
        MPI_Rget_accumulate(s, 1, t, r, 1, t, target, disp, 1, t, MPI_SUM, win, &req);
        break;
    case FETCH_OP:
        MPI_Fetch_and_op(s, r, MPI_INT, target, disp, MPI_SUM, win);
        break;
    case CAS:
        MPI_Compare_and_swap(s, &cmp, r, MPI_INT, target, disp, win);
        break;
    default:
        break;
    }
    if (req != MPI_REQUEST_NULL)
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    close_epoch(m, target, variant);
    MPI_Barrier(MPI_COMM_WORLD);

    /* What this process received as a target, from `origin`. */
    int selected[WIN] = {0};
    for (int i = 0; i < 8; i++)
        selected[pos[i]] = 1;
    int bad = 0;
    lock_self();
    for (int i = 0; i < WIN; i++) {
        int want = initial(rank, i);
        if (selected[i] && (o == PUT || o == RPUT || o == CAS))
            want = value(origin, i);
        else if (selected[i] &&
                 (o == ACC || o == GET_ACC || o == RACC || o == RGET_ACC || o == FETCH_OP))
            want = initial(rank, i) + value(origin, i);
        bad += mem[i] != want;
    }
    unlock_self();
    /* What this process fetched as an origin, from `target`. */
    if (o == GET || o == GET_ACC || o == RGET || o == RGET_ACC || o == FETCH_OP || o == CAS)
        for (int i = 0; i < N; i++)
            bad += res[i] != (selected[i] ? initial(target, i) : -7);
    if (bad) {
        fprintf(stderr, "rank %d: %s %s %s: %d wrong elements\n", rank, mode_name[m], op_name[o],
                dtype_name[d], bad);
        failures++;
    }
    MPI_Type_free(&t);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    const char *kind = argc > 1 ? argv[1] : "allocate";
    hint_nolocks = strcmp(kind, "nolocks") == 0;
    MPI_Info info = MPI_INFO_NULL;
    if (hint_nolocks) {
        MPI_Info_create(&info);
        MPI_Info_set(info, "epochs_used", "fence,pscw,lockall");
    }
    MPI_Aint bytes = PAGE;
    if (strcmp(kind, "shared") == 0)
        MPI_Win_allocate_shared(bytes, sizeof(int), info, MPI_COMM_WORLD, &mem, &win);
    else
        MPI_Win_allocate(bytes, sizeof(int), info, MPI_COMM_WORLD, &mem, &win);
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);

    int cases = 0, variant = 0;
    for (int m = 0; m < MODES; m++) {
        if (hint_nolocks && (m == LOCK_EXCL || m == LOCK_SHARED || m == LOCK_ALL))
            continue;
        for (int o = 0; o < OPS; o++) {
            bool request = o >= RPUT && o <= RGET_ACC;
            if (request && (m == FENCE || m == PSCW)) /* passive target only */
                continue;
            for (int d = 0; d < (o == FETCH_OP || o == CAS ? 1 : DTYPES); d++, cases++)
                run_case((enum mode)m, (enum op)o, (enum dtype)d, variant++);
        }
    }
    MPI_Win_free(&win);
    MPI_Group_free(&world_group);

    int all_failures = 0;
    MPI_Allreduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("rma_ops %s: %d cases on %d ranks: %s\n", kind, cases, size,
               all_failures ? "FAILED" : "ok");
    MPI_Finalize();
    return all_failures != 0;
}
