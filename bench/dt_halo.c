/*
 * dt_halo.c - a halo face sent with a derived datatype: MPI_Sendrecv of one
 * face between 2 processes, from a layout into the same layout, against
 * one local pass of memcpy over that layout (block by block from the send
 * buffer into the receive buffer, what a single copy would cost). Issue 30:
 * wisp's datatype engine should make the exchange one copy, not the MPI's
 * pack, copy and unpack.
 *
 *   dt_halo vector|yface|zface [private] [validate]
 *
 *   vector  4096 blocks of 8 doubles at a stride of 64 (MPI_Type_vector, 256 KiB)
 *   yface   the Y face of a 128^3 grid of doubles (MPI_Type_create_subarray, 128 KiB)
 *   zface   its Z face: 16384 single doubles (subarray, 128 KiB)
 *
 * Buffers come from malloc (wisp's shared heap under LD_PRELOAD) or, with
 * `private`, from mmap (cross-memory attach). Metrics: exchange_us and
 * copy_us (medians of 9 chunks), and their ratio. Every exchange's face is
 * checked after the timed loop, and the bytes between the face's blocks
 * must stay untouched; with `validate` after every exchange.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_check.h" /* bench_median, bench_alloc/free, the trailing arguments */

enum { CHUNKS = 9, TAG = 7, N = 128 };

struct shape {
    const char *name;
    size_t blocks, block, stride; /* bytes */
};

static const struct shape shapes[] = {
    {"vector", 4096, 8 * sizeof(double), 64 * sizeof(double)},
    {"yface", N, N * sizeof(double), (size_t)N *N * sizeof(double)},
    {"zface", (size_t)N *N, sizeof(double), N * sizeof(double)},
};

static MPI_Datatype face_type(const struct shape *s)
{
    MPI_Datatype t;
    if (!strcmp(s->name, "vector")) {
        MPI_Type_vector((int)s->blocks, 8, 64, MPI_DOUBLE, &t);
    } else {
        int sizes[3] = {N, N, N}, sub[3] = {N, 1, N}, start[3] = {0, N / 2, 0};
        if (!strcmp(s->name, "zface")) {
            sub[1] = N;
            sub[2] = 1;
            start[1] = 0;
            start[2] = N / 2;
        }
        MPI_Type_create_subarray(3, sizes, sub, start, MPI_ORDER_C, MPI_DOUBLE, &t);
    }
    MPI_Type_commit(&t);
    return t;
}

/* Where the face's blocks start within the buffer. */
static size_t face_start(const struct shape *s)
{
    if (!strcmp(s->name, "yface"))
        return (size_t)(N / 2) * N * sizeof(double);
    if (!strcmp(s->name, "zface"))
        return (N / 2) * sizeof(double);
    return 0;
}

static size_t span_of(const struct shape *s)
{
    return !strcmp(s->name, "vector") ? s->blocks * s->stride : (size_t)N * N * N * sizeof(double);
}

static unsigned char mark(int rank, int round, size_t at)
{
    return (unsigned char)(rank * 101 + round * 7 + (int)(at % 251) + 1);
}

static void fill(const struct shape *s, unsigned char *buf, int rank, int round)
{
    for (size_t b = 0, at = face_start(s); b < s->blocks; b++, at += s->stride)
        for (size_t i = 0; i < s->block; i++)
            buf[at + i] = mark(rank, round, at + i);
}

/* The face holds the sender's marks of `round`, the rest 0xee. */
static int check(const struct shape *s, const unsigned char *buf, int sender, int round)
{
    size_t start = face_start(s), next = start, b = 0;
    for (size_t at = 0; at < span_of(s); at++) {
        int in = b < s->blocks && at >= next && at < next + s->block;
        unsigned char want = in ? mark(sender, round, at) : 0xee;
        if (buf[at] != want) {
            fprintf(stderr, "dt_halo %s: byte %zu is %u, not %u (round %d)\n", s->name, at, buf[at],
                    want, round);
            return 1;
        }
        if (in && at + 1 == next + s->block) {
            b++;
            next += s->stride;
        }
    }
    return 0;
}

static double copy_pass(const struct shape *s, const unsigned char *src, unsigned char *dst)
{
    double t = MPI_Wtime();
    size_t at = face_start(s);
    for (size_t b = 0; b < s->blocks; b++, at += s->stride)
        memcpy(dst + at, src + at, s->block);
    return MPI_Wtime() - t;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    argc = bench_validate_arg(argc, argv);
    argc = bench_private_arg(argc, argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const struct shape *s = NULL;
    for (size_t i = 0; argc == 2 && i < sizeof shapes / sizeof *shapes; i++)
        if (!strcmp(argv[1], shapes[i].name))
            s = &shapes[i];
    if (size != 2 || !s) {
        if (rank == 0)
            fprintf(stderr, "usage: dt_halo vector|yface|zface [private] [validate]    (2 "
                            "processes)\n");
        MPI_Finalize();
        return 2;
    }
    size_t span = span_of(s);
    unsigned char *sbuf = bench_alloc(span), *rbuf = bench_alloc(span), *copy = bench_alloc(span);
    if (!sbuf || !rbuf || !copy) {
        fprintf(stderr, "dt_halo: cannot allocate 3 x %zu bytes\n", span);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(sbuf, 0xee, span);
    memset(rbuf, 0xee, span);
    memset(copy, 0xee, span);
    MPI_Datatype face = face_type(s);
    int peer = 1 - rank, reps = s->blocks * s->block >= (64 << 10) ? 200 : 1000;
    double exchange[CHUNKS], pass[CHUNKS];
    int bad = 0, round = 0;
    for (int c = -1; c < CHUNKS; c++) { /* chunk -1: warm-up */
        fill(s, sbuf, rank, round);
        MPI_Barrier(MPI_COMM_WORLD);
        double t = MPI_Wtime();
        for (int r = 0; r < reps; r++) {
            MPI_Sendrecv(sbuf, 1, face, peer, TAG, rbuf, 1, face, peer, TAG, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
            if (bench_whole)
                bad |= check(s, rbuf, peer, round);
        }
        t = MPI_Wtime() - t;
        bad |= check(s, rbuf, peer, round);
        double p = 0;
        for (int r = 0; r < reps; r++)
            p += copy_pass(s, sbuf, copy);
        bad |= memcmp(sbuf, copy, span) != 0;
        if (c >= 0) {
            exchange[c] = t / reps * 1e6;
            pass[c] = p / reps * 1e6;
        }
        round++;
    }
    int any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (rank == 0 && !any) {
        double e = bench_median(exchange, CHUNKS), p = bench_median(pass, CHUNKS);
        printf("# dt_halo %s%s: %zu blocks of %zu B at a stride of %zu B, %d exchanges a chunk\n",
               s->name, bench_private ? " private" : "", s->blocks, s->block, s->stride, reps);
        printf("metric exchange_us %.3f us lower\n", e);
        printf("metric copy_us %.3f us lower\n", p);
        printf("metric exchange_per_copy %.3f x lower\n", e / p);
    }
    MPI_Type_free(&face);
    bench_free(sbuf, span);
    bench_free(rbuf, span);
    bench_free(copy, span);
    MPI_Finalize();
    return any;
}
