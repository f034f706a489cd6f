/*
 * Non-contiguous messages between two processes of a node, every way the
 * engine moves them (issue 30): the receiver writes straight into its
 * layout, and a large send from the shared heap with long runs is read in
 * place from the sender's layout. For sizes across the protocols
 * (immediate, staged, single copy, read in place), from the heap (malloc)
 * and from private memory (mmap), into:
 *   the same layout; contiguous doubles; another layout (shorter runs, a
 *   negative stride through a resized type, a struct with a gap); a
 *   receive one and a half elements long (MPI_Get_count undefined,
 *   MPI_Get_elements exact, the half element written, the rest untouched);
 *   a receive too short (MPI_ERR_TRUNCATE; the contents are undefined);
 * by MPI_Send, MPI_Ssend and MPI_Isend received late. Every byte of every
 * receive buffer is checked, gaps included. A plain MPI program: it passes
 * natively too.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"

enum { GAP = 0xee };

static double *alloc(size_t n, int private)
{
    void *p = private ? mmap(NULL, n * sizeof(double), PROT_READ | PROT_WRITE,
                             MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                      : malloc(n * sizeof(double));
    if (!p || p == MAP_FAILED)
        MPI_Abort(MPI_COMM_WORLD, 2);
    return p;
}

static void release(double *p, size_t n, int private)
{
    if (private)
        munmap(p, n * sizeof(double));
    else
        free(p);
}

static double value(int k, int round)
{
    return k * 1.5 + round * 1000.0 + 0.25;
}

/* The sender's layout: `blocks` runs of `run` doubles, `stride` apart. */
struct shape {
    int blocks, run, stride;
};

/* The expected receive buffer (`region`, `bytes` long, the layout at
 * `origin` in it), made by the MPI's own MPI_Unpack of the sender's values. */
static void expect(void *region, size_t bytes, void *origin, MPI_Datatype rtype, int rcount,
                   const double *packed, int got)
{
    memset(region, GAP, bytes);
    int size;
    MPI_Type_size(rtype, &size);
    int whole = got / size, rest = got % size;
    if (whole >= rcount)
        whole = rcount, rest = 0;
    int at = 0;
    MPI_Unpack(packed, got, &at, origin, whole, rtype, MPI_COMM_SELF);
    if (rest) { /* the partial element: pack the element, overwrite its head, unpack */
        MPI_Aint lb, extent;
        MPI_Type_get_extent(rtype, &lb, &extent);
        char *element = malloc((size_t)size), *last = (char *)origin + whole * extent;
        int p = 0;
        MPI_Pack(last, 1, rtype, element, size, &p, MPI_COMM_SELF);
        memcpy(element, (const char *)packed + (size_t)whole * (size_t)size, (size_t)rest);
        p = 0;
        MPI_Unpack(element, size, &p, last, 1, rtype, MPI_COMM_SELF);
        free(element);
    }
}

static MPI_Datatype receive_type(int kind, const struct shape *s, int *count, size_t *span)
{
    MPI_Datatype t, inner;
    int n = s->blocks * s->run;
    switch (kind) {
    case 0: /* the sender's own */
        MPI_Type_vector(s->blocks, s->run, s->stride, MPI_DOUBLE, &t);
        *count = 1;
        *span = (size_t)s->blocks * (size_t)s->stride;
        break;
    case 1: /* contiguous */
        t = MPI_DOUBLE;
        *count = n;
        *span = (size_t)n;
        return t;
    case 2: /* shorter runs of 3 at a stride of 5 */
        MPI_Type_vector((n + 2) / 3, 3, 5, MPI_DOUBLE, &t);
        *count = 1;
        *span = (size_t)(n + 2) / 3 * 5;
        break;
    case 3: /* runs of 2 from the end backwards: a negative stride */
        MPI_Type_vector(2, 1, 1, MPI_DOUBLE, &inner);
        MPI_Type_create_hvector((n + 1) / 2, 1, -4 * (MPI_Aint)sizeof(double), inner, &t);
        MPI_Type_free(&inner);
        /* the buffer passed is the element's origin; the runs go down from it */
        *count = 1;
        *span = (size_t)(n + 1) / 2 * 4;
        break;
    case 4: { /* a struct: a double, a gap of one, two doubles; extent 4 doubles */
        int lens[2] = {1, 2};
        MPI_Aint displs[2] = {0, 2 * sizeof(double)};
        MPI_Datatype types[2] = {MPI_DOUBLE, MPI_DOUBLE};
        MPI_Type_create_struct(2, lens, displs, types, &inner);
        MPI_Type_create_resized(inner, 0, 4 * sizeof(double), &t);
        MPI_Type_free(&inner);
        *count = (n + 2) / 3;
        *span = (size_t)*count * 4;
        break;
    }
    default: /* one and a half elements of the sender's run: a partial last element */
        MPI_Type_vector(2, s->run * 2 / 3 + 1, s->run + 3, MPI_DOUBLE, &t);
        *count = 2 * n / (2 * (s->run * 2 / 3 + 1)) + 1;
        *span = (size_t)*count * (size_t)(s->run + 3) * 2;
        break;
    }
    MPI_Type_commit(&t);
    return t;
}

/* One message of shape `s` from rank 0 to rank 1 into receive kind `kind`;
 * `how`: 0 MPI_Send, 1 MPI_Ssend, 2 MPI_Isend received late; `cut`: the
 * receive holds fewer bytes than the message (truncation). */
static void one(const struct shape *s, int kind, int how, int cut, int private, int round)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Datatype stype;
    MPI_Type_vector(s->blocks, s->run, s->stride, MPI_DOUBLE, &stype);
    MPI_Type_commit(&stype);
    int n = s->blocks * s->run;
    size_t sspan = (size_t)s->blocks * (size_t)s->stride;
    if (rank == 0) {
        double *buf = alloc(sspan, private);
        for (size_t i = 0; i < sspan; i++)
            buf[i] = -1.0; /* the gaps: never sent */
        for (int b = 0, k = 0; b < s->blocks; b++)
            for (int r = 0; r < s->run; r++, k++)
                buf[(size_t)b * (size_t)s->stride + (size_t)r] = value(k, round);
        MPI_Request req;
        if (how == 0)
            MPI_Send(buf, 1, stype, 1, round, MPI_COMM_WORLD);
        else if (how == 1)
            MPI_Ssend(buf, 1, stype, 1, round, MPI_COMM_WORLD);
        else {
            MPI_Isend(buf, 1, stype, 1, round, MPI_COMM_WORLD, &req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        }
        release(buf, sspan, private);
    } else {
        int rcount;
        size_t span;
        MPI_Datatype rtype = receive_type(kind, s, &rcount, &span);
        int rsize;
        MPI_Type_size(rtype, &rsize);
        if (cut)
            rcount = (int)((size_t)n * sizeof(double) / 2 / (size_t)rsize); /* about half */
        size_t margin = kind == 3 ? span : 0; /* the negative stride reaches below the origin */
        double *buf = alloc(span + margin + 8, private), *ref = alloc(span + margin + 8, 0);
        memset(buf, GAP, (span + margin + 8) * sizeof(double));
        /* kind 3's first run is the last two doubles; its others go down */
        double *origin = kind == 3 ? buf + span + margin - 2 : buf;
        double *packed = alloc((size_t)n, 0);
        for (int k = 0; k < n; k++)
            packed[k] = value(k, round);
        if (how == 2)
            usleep(20000); /* the sender is waiting: received late */
        MPI_Status st;
        int rc = MPI_Recv(origin, rcount, rtype, 0, round, MPI_COMM_WORLD, &st);
        CHECK(cut ? rc != MPI_SUCCESS : rc == MPI_SUCCESS);
        if (cut) {
            int cls;
            MPI_Error_class(rc, &cls);
            CHECK(cls == MPI_ERR_TRUNCATE);
        }
        int bytes = 0, elements = 0;
        MPI_Get_count(&st, MPI_BYTE, &bytes);
        int fits = rcount * rsize;
        int got = cut ? fits : n * (int)sizeof(double);
        CHECK(cut || bytes == got);
        MPI_Get_elements(&st, MPI_DOUBLE, &elements);
        CHECK(cut || elements == n);
        size_t total = (span + margin + 8) * sizeof(double);
        expect(ref, total, ref + (origin - buf), rtype, rcount, packed, got);
        /* After a truncation the buffer's contents are undefined (MPI 3.1, 3.2.5). */
        int bad = !cut && memcmp(buf, ref, total) != 0;
        if (bad)
            fprintf(stderr, "p2p_layouts: %d x %d/%d, receive kind %d, how %d, cut %d, %s: wrong\n",
                    s->blocks, s->run, s->stride, kind, how, cut, private ? "private" : "heap");
        CHECK(!bad);
        release(buf, span + margin + 8, private);
        release(ref, span + margin + 8, 0);
        release(packed, (size_t)n, 0);
        if (rtype != MPI_DOUBLE)
            MPI_Type_free(&rtype);
    }
    MPI_Type_free(&stype);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        fprintf(stderr, "p2p_layouts: run with 2 processes\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* From an immediate message to a layout read in place (runs of 1 KiB,
     * 256 KiB in all), and short runs that are packed. */
    const struct shape shapes[] = {{4, 3, 5},      {64, 8, 16},     {512, 16, 20},
                                   {16, 128, 200}, {256, 128, 160}, {4096, 8, 64}};
    int round = 0;
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
        for (int private = 0; private < 2; private ++)
            for (int kind = 0; kind < 6; kind++)
                for (int how = 0; how < 3; how++)
                    for (int cut = 0; cut < 2; cut++) {
                        if (cut && kind == 5)
                            continue; /* its count is its own */
                        one(&shapes[i], kind, how, cut, private, round++ % 30000);
                    }
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return all != 0;
}
