/*
 * Messages on stderr, each one line prefixed with "wisp[rank]: ", printed
 * when WISP_VERBOSE is at least the message's level; and the one way out
 * for internal failures (message, then MPI_Abort).
 */
#ifndef WISP_CORE_LOG_H
#define WISP_CORE_LOG_H

#pragma GCC visibility push(hidden)

/* "s" after a count other than 1: "1 node", "2 nodes". */
static inline const char *wisp_plural(long long n)
{
    return n == 1 ? "" : "s";
}

/* World rank for message prefixes; -1 until MPI_Init has run. */
extern int wisp_core_log_rank;

void wisp_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Always printed, whatever WISP_VERBOSE says. */
void wisp_log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Always printed, a line about `rank` that this process prints for it
 * (rank 0's WISP_STATS report of every rank): prefixed "wisp[rank]: ". */
void wisp_log_for(int rank, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* An internal failure wisp cannot recover from: say why, then abort the job. */
_Noreturn void wisp_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#pragma GCC visibility pop

#endif
