/*
 * What the point-to-point benchmarks share: the pattern that makes every
 * received message checkable, and the median of the timed chunks.
 *
 * Timed runs check the first, middle and last byte of each message (they
 * depend on the message number, its size and its sender; the length must be
 * exact). With the argument `validate` (bench_validate_arg) every byte of
 * every message is written and checked instead: slower, and what the test
 * suite runs, so that an engine that delivers a torn or partly stale
 * payload cannot pass.
 */
#ifndef WISP_BENCH_CHECK_H
#define WISP_BENCH_CHECK_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Whole-payload mode: every byte written and checked. */
static int bench_whole;

/* Takes a trailing `validate` argument off the command line: sets whole-payload
 * mode and returns the remaining argc. */
static inline int bench_validate_arg(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[argc - 1], "validate") == 0) {
        bench_whole = 1;
        return argc - 1;
    }
    return argc;
}

/* Private buffers: with a trailing `private` argument, bench_alloc takes
 * the message buffers from mmap, outside wisp's shared heap (so wisp cannot
 * copy them once: its staged protocol, or the MPI's own path), instead of
 * from malloc (which the heap serves under wisp). */
static int bench_private;

/* Takes a trailing `private` argument off the command line (before or after
 * `validate`); returns the remaining argc. */
static inline int bench_private_arg(int argc, char **argv)
{
    for (int i = argc - 1; i > 0 && i >= argc - 2; i--)
        if (strcmp(argv[i], "private") == 0) {
            bench_private = 1;
            memmove(&argv[i], &argv[i + 1], (size_t)(argc - i) * sizeof *argv);
            return argc - 1;
        }
    return argc;
}

static inline void *bench_alloc(size_t bytes)
{
    if (!bench_private)
        return malloc(bytes);
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static inline void bench_free(void *p, size_t bytes)
{
    if (!bench_private)
        free(p);
    else if (p)
        munmap(p, bytes);
}

/* The seed of message `msg`'s whole-payload pattern; byte i is
 * 1 + (seed + 7 i) mod 251, so consecutive messages differ in every byte. */
static inline unsigned bench_seed(long msg, size_t size, int dir)
{
    return (
        unsigned)(((unsigned long)msg + (unsigned long)(size % 251) + 61ul * (unsigned long)dir) %
                  251ul);
}

/* Byte `where` (0 first, 1 middle, 2 last) of message `msg` of `size` bytes
 * sent by rank `dir`. Consecutive messages differ in every checked byte, so a
 * buffer or slot left over from an earlier message never passes. */
static inline unsigned char bench_pattern(long msg, size_t size, int dir, int where)
{
    unsigned long v = (unsigned long)msg + (unsigned long)(size % 251) + 61ul * (unsigned long)dir +
                      83ul * (unsigned long)where;
    return (unsigned char)(1 + v % 251);
}

/* Offsets of the checked bytes; fewer than 3 distinct ones below 3 bytes. */
static inline int bench_checked_offsets(size_t size, size_t off[3])
{
    int n = 0;
    if (size >= 1)
        off[n++] = 0;
    if (size >= 3)
        off[n++] = size / 2;
    if (size >= 2)
        off[n++] = size - 1;
    return n;
}

static inline void bench_stamp(unsigned char *buf, size_t size, long msg, int dir)
{
    if (bench_whole) {
        unsigned v = bench_seed(msg, size, dir);
        for (size_t i = 0; i < size; i++, v = v + 7 >= 251 ? v + 7 - 251 : v + 7)
            buf[i] = (unsigned char)(1 + v);
        return;
    }
    size_t off[3];
    int n = bench_checked_offsets(size, off);
    for (int i = 0; i < n; i++)
        buf[off[i]] = bench_pattern(msg, size, dir, i);
}

/* Checks a received message; aborts the job on a mismatch. */
static inline void bench_verify(const char *prog, const unsigned char *buf, size_t size, long msg,
                                int dir, const MPI_Status *status)
{
    int count = -1;
    MPI_Get_count(status, MPI_BYTE, &count);
    if (count < 0 || (size_t)count != size) {
        fprintf(stderr,
                "%s: data check failed: message %ld from rank %d: got %d bytes, expected %zu\n",
                prog, msg, dir, count, size);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (bench_whole) {
        unsigned v = bench_seed(msg, size, dir);
        for (size_t i = 0; i < size; i++, v = v + 7 >= 251 ? v + 7 - 251 : v + 7)
            if (buf[i] != (unsigned char)(1 + v)) {
                fprintf(stderr,
                        "%s: data check failed: message %ld of %zu bytes from rank %d: byte %zu "
                        "is 0x%02x, expected 0x%02x\n",
                        prog, msg, size, dir, i, buf[i], 1 + v);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
        return;
    }
    size_t off[3];
    int n = bench_checked_offsets(size, off);
    for (int i = 0; i < n; i++) {
        unsigned char want = bench_pattern(msg, size, dir, i);
        if (buf[off[i]] != want) {
            fprintf(stderr,
                    "%s: data check failed: message %ld of %zu bytes from rank %d: byte %zu is "
                    "0x%02x, expected 0x%02x\n",
                    prog, msg, size, dir, off[i], buf[off[i]], want);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
}

/* The median of n values (sorts v). */
static inline double bench_median(double *v, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double tmp = v[j];
            v[j] = v[j - 1];
            v[j - 1] = tmp;
        }
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

#endif
