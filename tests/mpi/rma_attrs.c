/*
 * A ghost-served window must look like the MPI's own: predefined attributes
 * (MPI_WIN_BASE, _SIZE, _DISP_UNIT, _CREATE_FLAVOR, _MODEL), the group,
 * names, user attributes (with their delete callback at MPI_Win_free, given
 * the application's handle), error handlers (MPI_ERRORS_RETURN and a user
 * handler, called with the application's handle), the error classes of the
 * common mistakes (bad rank, negative displacement, no epoch, unlock
 * without lock), info, and MPI_Win_shared_query on a shared window
 * (contiguous memory, sizes and displacement units of every rank, direct
 * loads of the neighbour's memory); and the base of a process's part of no
 * bytes, as the MPI gives it: NULL in MPICH (its rma/win_shared_noncontig_put
 * asserts it), where the part would begin in Open MPI's shared windows, and
 * NULL in both with alloc_shared_noncontig.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "check.h" /* tests/check.h */

/* Windows of whole pages: MPICH 4.0.2 (ch4/ucx) targets the start of the page
 * that holds a smaller MPI_Win_allocate window (fixed by pmodels/mpich PR 6140). */
enum { PAGE = 4096 };

static MPI_Win deleted_win = MPI_WIN_NULL, handled_win = MPI_WIN_NULL;
static int deleted, handled_class = -1;

static int on_delete(MPI_Win win, int keyval, void *value, void *extra)
{
    (void)keyval, (void)extra;
    deleted_win = win;
    deleted += *(int *)value == 42;
    return MPI_SUCCESS;
}

static void on_error(MPI_Win *win, int *code, ...)
{
    handled_win = *win;
    MPI_Error_class(*code, &handled_class);
}

static int error_class(int rc)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    return cls;
}

static void check_attrs(MPI_Win win, void *base, MPI_Aint size, int disp_unit, int flavor)
{
    void *b = NULL;
    MPI_Aint *s = NULL;
    int *d = NULL, *f = NULL, *m = NULL, fb = 0, fs = 0, fd = 0, ff = 0, fm = 0;
    MPI_Win_get_attr(win, MPI_WIN_BASE, &b, &fb);
    MPI_Win_get_attr(win, MPI_WIN_SIZE, &s, &fs);
    MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &d, &fd);
    MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &f, &ff);
    MPI_Win_get_attr(win, MPI_WIN_MODEL, &m, &fm);
    CHECK(fb && fs && fd && ff && fm);
    CHECK(b == base);
    CHECK(fs && *s == size);
    CHECK(fd && *d == disp_unit);
    CHECK(ff && *f == flavor);
    CHECK(fm && *m == MPI_WIN_UNIFIED); /* both MPIs' own windows are unified here */

    MPI_Group g, world;
    int cmp = MPI_UNEQUAL;
    MPI_Win_get_group(win, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_compare(g, world, &cmp);
    CHECK(cmp == MPI_IDENT);
    MPI_Group_free(&g);
    MPI_Group_free(&world);

    char name[MPI_MAX_OBJECT_NAME];
    int len = 0;
    MPI_Win_set_name(win, "wisp test window");
    MPI_Win_get_name(win, name, &len);
    CHECK(len == (int)strlen("wisp test window") && !strcmp(name, "wisp test window"));

    MPI_Info info = MPI_INFO_NULL;
    CHECK(MPI_Win_get_info(win, &info) == MPI_SUCCESS && info != MPI_INFO_NULL);
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
}

static void check_errors(MPI_Win win, int rank, int size)
{
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    int v = 1;
    CHECK(error_class(MPI_Put(&v, 1, MPI_INT, rank, 0, 1, MPI_INT, win)) == MPI_ERR_RMA_SYNC);
    CHECK(error_class(MPI_Win_unlock((rank + 1) % size, win)) == MPI_ERR_RMA_SYNC);
    MPI_Win_lock_all(0, win);
    CHECK(error_class(MPI_Put(&v, 1, MPI_INT, size, 0, 1, MPI_INT, win)) == MPI_ERR_RANK);
    CHECK(error_class(MPI_Put(&v, 1, MPI_INT, -5, 0, 1, MPI_INT, win)) == MPI_ERR_RANK);
    CHECK(error_class(MPI_Get(&v, 1, MPI_INT, rank, -1, 1, MPI_INT, win)) == MPI_ERR_DISP);
    CHECK(MPI_Put(&v, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win) == MPI_SUCCESS);
    MPI_Request req = MPI_REQUEST_NULL;
    CHECK(MPI_Rput(&v, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win, &req) == MPI_SUCCESS);
    CHECK(req != MPI_REQUEST_NULL);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Win_unlock_all(win);

    /* A user handler is called with the application's handle. */
    MPI_Errhandler eh, got;
    MPI_Win_create_errhandler(on_error, &eh);
    MPI_Win_set_errhandler(win, eh);
    MPI_Win_get_errhandler(win, &got);
    CHECK(got == eh);
    MPI_Errhandler_free(&got);
    MPI_Put(&v, 1, MPI_INT, rank, 0, 1, MPI_INT, win); /* no epoch */
    CHECK(handled_win == win && handled_class == MPI_ERR_RMA_SYNC);
    handled_win = MPI_WIN_NULL;
    MPI_Win_call_errhandler(win, MPI_ERR_OTHER);
    CHECK(handled_win == win && handled_class == MPI_ERR_OTHER);
    MPI_Win_set_errhandler(win, MPI_ERRORS_ARE_FATAL);
    MPI_Errhandler_free(&eh);
}

/* MPI_Win_shared_query of rank r: its part's address (a sentinel where the
 * MPI sets none) and, in *size, its size (-1 where unset). */
static char *part_of(MPI_Win win, int r, MPI_Aint *size)
{
    static char unset;
    char *q = &unset;
    int disp = -1;
    *size = -1;
    MPI_Win_shared_query(win, r, size, &disp, &q);
    return q;
}

/* A shared window with alloc_shared_noncontig, odd node ranks giving no
 * memory: their part begins at NULL in both MPIs. */
static void check_empty_noncontig(MPI_Comm node, int nrank, int nsize)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "alloc_shared_noncontig", "true");
    int *mem = &nrank;
    MPI_Win win;
    MPI_Win_allocate_shared(nrank % 2 ? 0 : PAGE, sizeof(int), info, node, &mem, &win);
    MPI_Info_free(&info);
    CHECK(nrank % 2 == 0 ? mem != NULL : mem == NULL);
    for (int r = 0; r < nsize; r++) {
        MPI_Aint qsize;
        char *q = part_of(win, r, &qsize);
        CHECK(r % 2 == 0 ? qsize == PAGE && q != NULL : qsize == 0 && q == NULL);
    }
    MPI_Win_free(&win);
}

/* Odd ranks give no memory: their base is NULL under MPICH; Open MPI 4.1
 * leaves it unset in an MPI_Win_allocate window (the standard says
 * nothing) and gives where the part would begin in a shared window. */
static void check_empty_parts(int rank)
{
    int *mem = &rank;
    void *attr = &rank;
    int flag = 0;
    MPI_Win win;
    MPI_Win_allocate(rank % 2 ? 0 : PAGE, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    MPI_Win_get_attr(win, MPI_WIN_BASE, &attr, &flag);
#if !defined(OPEN_MPI)
    CHECK(rank % 2 == 0 || (mem == NULL && flag && attr == NULL));
#endif
    MPI_Win_free(&win);

    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int nrank, nsize;
    MPI_Comm_rank(node, &nrank);
    MPI_Comm_size(node, &nsize);
    MPI_Win_allocate_shared(nrank % 2 ? 0 : PAGE, sizeof(int), MPI_INFO_NULL, node, &mem, &win);
    char *end = NULL;
    for (int r = 0; r < nsize; r++) {
        MPI_Aint qsize;
        char *q = part_of(win, r, &qsize);
        if (r % 2 == 0) {
            CHECK(qsize == PAGE && q != NULL && (!end || q == end)); /* contiguous */
            end = q + qsize;
            continue;
        }
        CHECK(qsize == 0);
#if defined(OPEN_MPI)
        CHECK(q == end);
#else
        CHECK(q == NULL);
#endif
        if (r == nrank)
            CHECK((char *)mem == q);
    }
    MPI_Win_free(&win);
    check_empty_noncontig(node, nrank, nsize);
    MPI_Comm_free(&node);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int keyval, value = 42;
    MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, on_delete, &keyval, NULL);

    /* MPI_Win_allocate, sizes that differ between ranks. */
    MPI_Aint bytes = PAGE * (1 + rank % 2);
    int *mem;
    MPI_Win win;
    MPI_Win_allocate(bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    check_attrs(win, mem, bytes, sizeof(int), MPI_WIN_FLAVOR_ALLOCATE);
    check_errors(win, rank, size);
    MPI_Win_set_attr(win, keyval, &value);
    int *got = NULL, flag = 0;
    MPI_Win_get_attr(win, keyval, &got, &flag);
    CHECK(flag && got == &value);
    MPI_Win user = win;
    MPI_Win_free(&win);
    CHECK(win == MPI_WIN_NULL);
    CHECK(deleted == 1 && deleted_win == user);

    /* MPI_Win_allocate_shared: sizes of 3 + rank doubles, disp unit 8. */
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int nrank, nsize;
    MPI_Comm_rank(node, &nrank);
    MPI_Comm_size(node, &nsize);
    double *shm;
    bytes = (MPI_Aint)((3 + nrank) * sizeof(double));
    MPI_Win_allocate_shared(bytes, sizeof(double), MPI_INFO_NULL, node, &shm, &win);
    void *b = NULL;
    int *f = NULL, fb = 0, ff = 0;
    MPI_Win_get_attr(win, MPI_WIN_BASE, &b, &fb);
    MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &f, &ff);
    CHECK(fb && b == shm && ff && *f == MPI_WIN_FLAVOR_SHARED);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    for (int i = 0; i < 3 + nrank; i++)
        shm[i] = 1000 * nrank + i;
    MPI_Win_sync(win);
    MPI_Barrier(node);
    MPI_Win_sync(win);
    char *prev_end = NULL;
    for (int r = 0; r < nsize; r++) {
        MPI_Aint qsize = -1;
        int qdisp = -1;
        double *q = NULL;
        MPI_Win_shared_query(win, r, &qsize, &qdisp, &q);
        CHECK(qsize == (MPI_Aint)((3 + r) * sizeof(double)) && qdisp == sizeof(double));
        CHECK(q && q[0] == 1000 * r && q[2 + r] == 1000 * r + 2 + r);
        CHECK(!prev_end || (char *)q == prev_end); /* contiguous by default */
        prev_end = (char *)q + qsize;
    }
    MPI_Aint qsize = -1;
    int qdisp = -1;
    double *q = NULL, *q0 = NULL;
    MPI_Win_shared_query(win, MPI_PROC_NULL, &qsize, &qdisp, &q);
    MPI_Win_shared_query(win, 0, &qsize, &qdisp, &q0);
    CHECK(q == q0);
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    MPI_Comm_free(&node);
    MPI_Win_free_keyval(&keyval);
    check_empty_parts(rank);

    int all_failures = 0;
    MPI_Allreduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("rma_attrs: %d ranks: %s\n", size, all_failures ? "FAILED" : "ok");
    MPI_Finalize();
    return all_failures != 0;
}
