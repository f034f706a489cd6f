/*
 * stderr messages. Each message is formatted first and written with a single
 * write(2), so lines from several ranks sharing one terminal do not interleave.
 */
#include "core/log.h"

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
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

/* Where stderr is a pipe (a launcher's, which forwards it), waits up to a
 * second for the launcher to read what is in it: an abort makes the
 * launcher kill the job, and MPICH's hydra then sometimes dropped the line
 * that says why (1 job in 8 of tests' fault cases ended with no output). */
static void drain_stderr(void)
{
    struct stat st;
    if (fstat(STDERR_FILENO, &st) != 0 || !S_ISFIFO(st.st_mode))
        return;
    for (int waited = 0; waited < 1000; waited++) {
        int queued = 0;
        if (ioctl(STDERR_FILENO, FIONREAD, &queued) != 0 || queued <= 0)
            return;
        nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
    }
}

void wisp_fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    emit(fmt, ap);
    va_end(ap);
    drain_stderr();
    int initialized = 0, finalized = 0;
    PMPI_Initialized(&initialized);
    PMPI_Finalized(&finalized);
    if (initialized && !finalized)
        PMPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}
