/*
 * stderr messages. Each message is formatted first and written with a single
 * write(2), so lines from several ranks sharing one terminal do not interleave.
 */
#include "core/log.h"

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/config.h"

int wisp_core_log_rank = -1;

static void emit_as(int rank, const char *fmt, va_list ap)
{
    char line[1024];
    int n = rank >= 0 ? snprintf(line, sizeof line, "wisp[%d]: ", rank)
                      : snprintf(line, sizeof line, "wisp: ");
    n += vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    if (n > (int)sizeof line - 2)
        n = (int)sizeof line - 2;
    line[n++] = '\n';
    ssize_t ignored = write(STDERR_FILENO, line, (size_t)n);
    (void)ignored;
}

static void emit(const char *fmt, va_list ap)
{
    emit_as(wisp_core_log_rank, fmt, ap);
}

void wisp_log_for(int rank, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    emit_as(rank, fmt, ap);
    va_end(ap);
}

void wisp_log(int level, const char *fmt, ...)
{
    if (wisp_config.VERBOSE < level)
        return;
    va_list ap;
    va_start(ap, fmt);
    emit(fmt, ap);
    va_end(ap);
}

void wisp_log_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    emit(fmt, ap);
    va_end(ap);
}

void wisp_fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    emit(fmt, ap);
    va_end(ap);
    int initialized = 0, finalized = 0;
    PMPI_Initialized(&initialized);
    PMPI_Finalized(&finalized);
    if (initialized && !finalized)
        PMPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}
