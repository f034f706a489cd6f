/* A nonblocking all-to-all (MPI_Ialltoall, MPI_Ialltoallv, MPI_Ialltoallw
 * and their _c forms) whose member finds no room in the shared heap for
 * the blocks it sends (src/coll/alltoall.c: they then go through its
 * staging half, agreed in the call's phases) completes, with the right
 * blocks, in every member.
 *
 * Argument `one`: the last rank fills its partition of the heap
 * (MPI_Alloc_mem until a block is private, at 1 MiB, 64 KiB and 4 KiB)
 * after the world's area is set up; `all`: every rank does; `none`: no
 * rank. Then, with send and receive buffers malloc'd after the fill
 * (private in a member that filled its partition, in the heap elsewhere):
 * each form at 2, 1000 and 70001 ints a block (inline; one or several
 * halves of the default 256 KiB staging area), with contiguous ints, with
 * ints 8 bytes apart (a resized type: packed at the start, unpacked at
 * completion) and with MPI_IN_PLACE of both; the v and w forms with counts
 * that differ by pair, zeros among them, the w form with a type per pair.
 * Every element and every hole is checked; `served` also checks that wisp
 * ran every call (wisp_coll_counter). tests/coll.cmake checks that the
 * members said they had no room (WISP_VERBOSE=1).
 */
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mpi/watchdog.h"
#include "wisp.h"

static int me, np, failures, reported;
enum { HOLE = -7 };

/* Element k of the block that rank src sends to rank dst. */
static int value(int src, int dst, MPI_Count k)
{
    return (int)((src * 1000003 + dst * 1009 + k * 7) % 2000000011);
}

/* The ints of the block from a to b (v and w forms): zero for some pairs,
 * alike seen from both sides (symmetric, as MPI_IN_PLACE needs). */
static MPI_Count count_of(int a, int b, MPI_Count base)
{
    if ((a + b) % 4 == 3)
        return 0;
    return base + (a + b) % 3;
}

/* Fills this process's partition of the heap; false where the heap never
 * served (then nothing can be checked). */
static bool fill_heap(void)
{
    static const MPI_Aint sizes[] = {1 << 20, 64 << 10, 4 << 10};
    bool any = false;
    for (int s = 0; s < 3; s++) {
        for (int n = 0; n < 100000; n++) {
            void *p;
            if (MPI_Alloc_mem(sizes[s], MPI_INFO_NULL, &p) != MPI_SUCCESS) {
                fprintf(stderr, "coll_nb_outbox: MPI_Alloc_mem failed\n");
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            memset(p, 1, 64); /* kept to the end: the partition stays full */
            if (!wisp_heap_contains(p))
                break;
            any = true;
        }
    }
    return any;
}

enum form { ALL, V, W, FORMS };
static const char *form_names[] = {"MPI_Ialltoall", "MPI_Ialltoallv", "MPI_Ialltoallw"};

/* One call: `form`, `big` (the _c form), `base` ints a block, `strided`
 * (ints 8 bytes apart) and `in_place`; checks what arrived. */
static void one_call(enum form form, bool big, MPI_Count base, bool strided, bool in_place)
{
    MPI_Datatype gap;
    MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &gap);
    MPI_Type_commit(&gap);
    int step = strided ? 2 : 1;      /* ints from one element to the next */
    size_t n = (size_t)(unsigned)np; /* members */
    /* Per peer j: the ints sent and received, and where (in elements). */
    MPI_Count *sc = calloc(n, sizeof *sc), *rc = calloc(n, sizeof *rc);
    MPI_Aint *sd = calloc(n, sizeof *sd), *rd = calloc(n, sizeof *rd);
    MPI_Datatype *st = calloc(n, sizeof *st), *rt = calloc(n, sizeof *rt);
    MPI_Count stotal = 0, rtotal = 0;
    for (int j = 0; j < np; j++) {
        sc[j] = form == ALL ? base : count_of(me, j, base);
        rc[j] = form == ALL ? base : count_of(j, me, base);
    }
    /* In reverse rank order in the buffers for the v and w forms. */
    for (int j = 0; j < np; j++) {
        int at = form == ALL ? j : np - 1 - j;
        sd[at] = stotal, stotal += sc[at];
        rd[at] = rtotal, rtotal += rc[at];
    }
    if (in_place)
        memcpy(sd, rd, n * sizeof *sd), stotal = rtotal;
    MPI_Datatype type = strided ? gap : MPI_INT;
    /* The w form: a type per pair (the pair's parity), the same on both sides. */
    for (int j = 0; j < np; j++)
        st[j] = rt[j] = form != W ? type : (me + j) % 2 ? gap : MPI_INT;
    /* Buffers: 2 ints an element (the holes of the strided type). */
    size_t sn = (size_t)(stotal ? stotal : 1) * 2, rn = (size_t)(rtotal ? rtotal : 1) * 2;
    int *sendbuf = malloc(sn * sizeof(int)), *recvbuf = malloc(rn * sizeof(int));
    if (!sendbuf || !recvbuf) {
        fprintf(stderr, "coll_nb_outbox: no memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (size_t i = 0; i < rn; i++)
        recvbuf[i] = HOLE;
    int *from = in_place ? recvbuf : sendbuf;
    for (size_t i = 0; !in_place && i < sn; i++)
        sendbuf[i] = HOLE;
    /* The w form's displacements are bytes, the others' elements. */
    int sstep = form == W ? 2 : step;
    for (int j = 0; j < np; j++) {
        int jstep = form == W ? ((me + j) % 2 ? 2 : 1) : step;
        for (MPI_Count k = 0; k < sc[j]; k++)
            from[(sd[j] * sstep) + k * jstep] = value(me, j, k);
    }
    /* Counts and displacements in the form's units and widths. */
    int *sci = calloc(n, sizeof(int)), *rci = calloc(n, sizeof(int));
    int *sdi = calloc(n, sizeof(int)), *rdi = calloc(n, sizeof(int));
    MPI_Aint *sdc = calloc(n, sizeof(MPI_Aint)), *rdc = calloc(n, sizeof(MPI_Aint));
    for (int j = 0; j < np; j++) {
        MPI_Aint unit = form == W ? 2 * (MPI_Aint)sizeof(int) : 1;
        sdc[j] = sd[j] * unit, rdc[j] = rd[j] * unit;
        sci[j] = (int)sc[j], rci[j] = (int)rc[j], sdi[j] = (int)sdc[j], rdi[j] = (int)rdc[j];
    }
    const void *sb = in_place ? MPI_IN_PLACE : sendbuf;
    MPI_Request req = MPI_REQUEST_NULL;
    int rc_mpi;
    if (!big) {
        if (form == ALL)
            rc_mpi =
                MPI_Ialltoall(sb, (int)base, type, recvbuf, (int)base, type, MPI_COMM_WORLD, &req);
        else if (form == V)
            rc_mpi =
                MPI_Ialltoallv(sb, sci, sdi, type, recvbuf, rci, rdi, type, MPI_COMM_WORLD, &req);
        else
            rc_mpi = MPI_Ialltoallw(sb, sci, sdi, st, recvbuf, rci, rdi, rt, MPI_COMM_WORLD, &req);
    } else {
#if MPI_VERSION >= 4
        if (form == ALL)
            rc_mpi = MPI_Ialltoall_c(sb, base, type, recvbuf, base, type, MPI_COMM_WORLD, &req);
        else if (form == V)
            rc_mpi =
                MPI_Ialltoallv_c(sb, sc, sdc, type, recvbuf, rc, rdc, type, MPI_COMM_WORLD, &req);
        else
            rc_mpi = MPI_Ialltoallw_c(sb, sc, sdc, st, recvbuf, rc, rdc, rt, MPI_COMM_WORLD, &req);
#else
        rc_mpi = MPI_ERR_OTHER;
#endif
    }
    MPI_Type_free(&gap); /* before completion: wisp keeps what it needs */
    if (rc_mpi != MPI_SUCCESS || MPI_Wait(&req, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
        fprintf(stderr, "coll_nb_outbox: %s%s failed\n", form_names[form], big ? "_c" : "");
        failures++;
    }
    /* Each block, and the holes around and between its elements. */
    size_t at = 0;
    bool *seen = calloc(rn, sizeof *seen);
    for (int j = 0; j < np; j++) {
        int jstep = form == W ? ((me + j) % 2 ? 2 : 1) : step;
        size_t first = (size_t)rd[j] * (size_t)(form == W ? 2 : step);
        for (MPI_Count k = 0; k < rc[j]; k++) {
            at = first + (size_t)k * (size_t)jstep;
            seen[at] = true;
            if (recvbuf[at] != value(j, me, k) && reported++ < 10)
                fprintf(stderr,
                        "coll_nb_outbox: rank %d: %s%s %lld ints%s%s: element %lld from %d is %d, "
                        "not %d\n",
                        me, form_names[form], big ? "_c" : "", (long long)base,
                        strided ? " strided" : "", in_place ? " in place" : "", (long long)k, j,
                        recvbuf[at], value(j, me, k));
            failures += recvbuf[at] != value(j, me, k);
        }
    }
    for (size_t i = 0; i < rn; i++) {
        bool hole_kept = seen[i] || recvbuf[i] == HOLE;
        if (!hole_kept && reported++ < 10)
            fprintf(stderr, "coll_nb_outbox: rank %d: %s%s: hole %zu overwritten\n", me,
                    form_names[form], big ? "_c" : "", i);
        failures += !hole_kept;
    }
    free(seen), free(sendbuf), free(recvbuf), free(sc), free(rc), free(sd), free(rd), free(st);
    free(rt), free(sci), free(rci), free(sdi), free(rdi), free(sdc), free(rdc);
}

int main(int argc, char **argv)
{
    bool one = false, all = false, served = false;
    for (int i = 1; i < argc; i++) {
        one |= !strcmp(argv[i], "one");
        all |= !strcmp(argv[i], "all");
        served |= !strcmp(argv[i], "served");
    }
    watchdog_start("coll_nb_outbox", 280);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np < 1)
        return 1;
    /* The world's area, set up by its first blocking collectives. */
    int x = me, sum;
    for (int i = 0; i < 3; i++)
        MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (all || (one && me == np - 1)) {
        if (!fill_heap()) {
            fprintf(stderr, "coll_nb_outbox: rank %d: the heap serves nothing to fill\n", me);
            failures++;
        }
        void *p;
        MPI_Alloc_mem(4 << 10, MPI_INFO_NULL, &p);
        if (wisp_heap_contains(p)) {
            fprintf(stderr, "coll_nb_outbox: rank %d: the heap still has room\n", me);
            failures++;
        }
        MPI_Free_mem(p);
    }
    unsigned long long before = wisp_coll_counter("served"), calls = 0;
    static const MPI_Count bases[] = {2, 1000, 70001};
    for (int big = 0; big < (MPI_VERSION >= 4 ? 2 : 1); big++)
        for (enum form f = ALL; f < FORMS; f++)
            for (int b = 0; b < 3; b++)
                for (int strided = 0; strided < 2; strided++)
                    for (int in_place = 0; in_place < 2; in_place++, calls++)
                        one_call(f, big, bases[b], strided, in_place);
    unsigned long long ran = wisp_coll_counter("served") - before;
    if (served && ran != calls) {
        fprintf(stderr, "coll_nb_outbox: rank %d: wisp served %llu of %llu calls\n", me, ran,
                calls);
        failures++;
    }
    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0)
        printf("coll_nb_outbox: %llu calls a rank, %d wrong\n", calls, total);
    MPI_Finalize();
    return total != 0;
}
