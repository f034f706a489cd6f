/*
 * check.h - tiny shared helpers for the wisp transparency suite.
 *
 * The transparency programs are ordinary MPI programs: they must behave and
 * print exactly the same whether run natively or under wisp, and with MPICH
 * or Open MPI.  To keep stdout deterministic:
 *   - only rank 0 of MPI_COMM_WORLD writes to stdout (tr_print), per-rank
 *     results are gathered and printed in rank order (tr_print_ranks);
 *   - failed checks are reported as "FAIL ..." lines (stdout on rank 0,
 *     stderr elsewhere) and counted; tr_finish() sums the counts over all
 *     ranks, finalizes MPI, prints "<name>: ok" as the last line on success
 *     and returns the exit code;
 *   - MPI error classes are printed by name via tr_errclass_name(), never as
 *     library-specific numbers or strings.
 *
 * Nothing here is wisp-specific; include after <mpi.h>.
 */
#ifndef WISP_TRANSPARENCY_CHECK_H
#define WISP_TRANSPARENCY_CHECK_H

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TR_LINE_MAX 256

static const char *tr_name = "test";
static int tr_rank = 0;
static int tr_size = 1;
static int tr_failures = 0;

#if defined(__GNUC__)
#define TR_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define TR_PRINTF(f, a)
#endif

/* Call right after MPI_Init*: records rank/size and aborts clearly when the
 * process count is outside [min_np, max_np] (max_np <= 0: no upper bound). */
static inline void tr_begin(const char *name, int min_np, int max_np)
{
    tr_name = name;
    MPI_Comm_rank(MPI_COMM_WORLD, &tr_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &tr_size);
    if (tr_size < min_np || (max_np > 0 && tr_size > max_np)) {
        if (tr_rank == 0) {
            if (max_np > 0)
                fprintf(stderr, "%s: needs %d..%d processes, got %d\n", name, min_np, max_np,
                        tr_size);
            else
                fprintf(stderr, "%s: needs at least %d processes, got %d\n", name, min_np, tr_size);
        }
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

/* printf on world rank 0 only. */
static inline TR_PRINTF(1, 2) void tr_print(const char *fmt, ...)
{
    if (tr_rank != 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    fflush(stdout);
}

/* Collective over MPI_COMM_WORLD: every rank formats one line, rank 0 prints
 * them as "rank <r>: <line>" in rank order. */
static inline TR_PRINTF(1, 2) void tr_print_ranks(const char *fmt, ...)
{
    char line[TR_LINE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);

    char *all = NULL;
    if (tr_rank == 0)
        all = malloc((size_t)tr_size * TR_LINE_MAX);
    MPI_Gather(line, TR_LINE_MAX, MPI_CHAR, all, TR_LINE_MAX, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (tr_rank == 0) {
        for (int r = 0; r < tr_size; r++)
            printf("rank %d: %s\n", r, all + (size_t)r * TR_LINE_MAX);
        fflush(stdout);
        free(all);
    }
}

/* Records a failed check; used through CHECK(). */
static inline TR_PRINTF(5, 6) void tr_check(int ok, const char *file, int line, const char *expr,
                                            const char *fmt, ...)
{
    if (ok)
        return;
    tr_failures++;
    FILE *out = tr_rank == 0 ? stdout : stderr;
    char msg[TR_LINE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const char *base = strrchr(file, '/');
    fprintf(out, "FAIL [rank %d] %s:%d: %s (%s)\n", tr_rank, base ? base + 1 : file, line, msg,
            expr);
    fflush(out);
}

/* CHECK(cond, fmt, ...): count and report a failure when cond is false. */
#define CHECK(cond, ...) tr_check(!!(cond), __FILE__, __LINE__, #cond, __VA_ARGS__)

/* CHECK_INT(actual, expected): integer equality with both values reported. */
#define CHECK_INT(actual, expected)                                                                \
    do {                                                                                           \
        long long tr_a_ = (long long)(actual), tr_e_ = (long long)(expected);                      \
        tr_check(tr_a_ == tr_e_, __FILE__, __LINE__, #actual " == " #expected,                     \
                 "got %lld, expected %lld", tr_a_, tr_e_);                                         \
    } while (0)

/* Fail hard: report and abort everything (for states the test cannot go on
 * from). */
#define REQUIRE(cond, ...)                                                                         \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            tr_check(0, __FILE__, __LINE__, #cond, __VA_ARGS__);                                   \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                          \
        }                                                                                          \
    } while (0)

/* Collective over MPI_COMM_WORLD: sums the failures of all ranks, finalizes
 * MPI, then runs after_finalize (may be NULL; returns its own number of
 * failed checks, which only count on the calling rank) and prints the
 * verdict on rank 0 as the last line.  Returns the process exit code (0 on
 * success). */
static inline int tr_finish_with(int (*after_finalize)(void))
{
    int total = 0;
    MPI_Allreduce(&tr_failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    if (after_finalize)
        total += after_finalize();
    if (total == 0)
        tr_print("%s: ok\n", tr_name);
    else
        tr_print("FAIL %s: %d failed check(s)\n", tr_name, total);
    return total == 0 ? 0 : 1;
}

static inline int tr_finish(void)
{
    return tr_finish_with(NULL);
}

/* Name of a predefined MPI error class; "MPI_ERR_<unknown>" otherwise so that
 * no library-specific number is ever printed. */
static inline const char *tr_errclass_name(int cls)
{
#define TR_EC(c)                                                                                   \
    {                                                                                              \
        c, #c                                                                                      \
    }
    static const struct {
        int cls;
        const char *name;
    } table[] = {
        TR_EC(MPI_SUCCESS),
        TR_EC(MPI_ERR_BUFFER),
        TR_EC(MPI_ERR_COUNT),
        TR_EC(MPI_ERR_TYPE),
        TR_EC(MPI_ERR_TAG),
        TR_EC(MPI_ERR_COMM),
        TR_EC(MPI_ERR_RANK),
        TR_EC(MPI_ERR_REQUEST),
        TR_EC(MPI_ERR_ROOT),
        TR_EC(MPI_ERR_GROUP),
        TR_EC(MPI_ERR_OP),
        TR_EC(MPI_ERR_TOPOLOGY),
        TR_EC(MPI_ERR_DIMS),
        TR_EC(MPI_ERR_ARG),
        TR_EC(MPI_ERR_UNKNOWN),
        TR_EC(MPI_ERR_TRUNCATE),
        TR_EC(MPI_ERR_OTHER),
        TR_EC(MPI_ERR_INTERN),
        TR_EC(MPI_ERR_IN_STATUS),
        TR_EC(MPI_ERR_PENDING),
        TR_EC(MPI_ERR_KEYVAL),
        TR_EC(MPI_ERR_NO_MEM),
        TR_EC(MPI_ERR_BASE),
        TR_EC(MPI_ERR_INFO_KEY),
        TR_EC(MPI_ERR_INFO_VALUE),
        TR_EC(MPI_ERR_INFO_NOKEY),
        TR_EC(MPI_ERR_SPAWN),
        TR_EC(MPI_ERR_PORT),
        TR_EC(MPI_ERR_SERVICE),
        TR_EC(MPI_ERR_NAME),
        TR_EC(MPI_ERR_WIN),
        TR_EC(MPI_ERR_SIZE),
        TR_EC(MPI_ERR_DISP),
        TR_EC(MPI_ERR_INFO),
        TR_EC(MPI_ERR_LOCKTYPE),
        TR_EC(MPI_ERR_ASSERT),
        TR_EC(MPI_ERR_RMA_CONFLICT),
        TR_EC(MPI_ERR_RMA_SYNC),
        TR_EC(MPI_ERR_RMA_RANGE),
        TR_EC(MPI_ERR_RMA_ATTACH),
        TR_EC(MPI_ERR_RMA_SHARED),
        TR_EC(MPI_ERR_RMA_FLAVOR),
        TR_EC(MPI_ERR_FILE),
        TR_EC(MPI_ERR_NOT_SAME),
        TR_EC(MPI_ERR_AMODE),
        TR_EC(MPI_ERR_UNSUPPORTED_DATAREP),
        TR_EC(MPI_ERR_UNSUPPORTED_OPERATION),
        TR_EC(MPI_ERR_NO_SUCH_FILE),
        TR_EC(MPI_ERR_FILE_EXISTS),
        TR_EC(MPI_ERR_BAD_FILE),
        TR_EC(MPI_ERR_ACCESS),
        TR_EC(MPI_ERR_NO_SPACE),
        TR_EC(MPI_ERR_QUOTA),
        TR_EC(MPI_ERR_READ_ONLY),
        TR_EC(MPI_ERR_FILE_IN_USE),
        TR_EC(MPI_ERR_DUP_DATAREP),
        TR_EC(MPI_ERR_CONVERSION),
        TR_EC(MPI_ERR_IO),
    };
#undef TR_EC
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (table[i].cls == cls)
            return table[i].name;
    return "MPI_ERR_<unknown>";
}

/* Error class of an MPI return code, by name. */
static inline const char *tr_errcode_class_name(int code)
{
    int cls = MPI_ERR_UNKNOWN;
    MPI_Error_class(code, &cls);
    return tr_errclass_name(cls);
}

#endif /* WISP_TRANSPARENCY_CHECK_H */
