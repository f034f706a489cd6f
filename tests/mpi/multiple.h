/* The opening that the MPI_THREAD_MULTIPLE test programs (tests/mpi) share:
 * MPI_Init_thread asking for MPI_THREAD_MULTIPLE, a skip where the MPI does
 * not provide it, and a watchdog that ends a hung run with a line of its own
 * (a hang would otherwise only show as CTest's timeout). */
#ifndef WISP_TESTS_MULTIPLE_H
#define WISP_TESTS_MULTIPLE_H

#include <mpi.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

/* MPI_Init_thread with MPI_THREAD_MULTIPLE; *rank_out and *size_out of
 * MPI_COMM_WORLD. Where the MPI does not provide MPI_THREAD_MULTIPLE, rank 0
 * prints "<name>: MPI_THREAD_MULTIPLE not provided, skipped", MPI is
 * finalized and it returns false: the caller returns 0. */
static inline bool multiple_init(int *argc, char ***argv, const char *name, int *rank_out,
                                 int *size_out)
{
    int provided;
    MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, rank_out);
    MPI_Comm_size(MPI_COMM_WORLD, size_out);
    if (provided >= MPI_THREAD_MULTIPLE)
        return true;
    if (*rank_out == 0)
        printf("%s: MPI_THREAD_MULTIPLE not provided, skipped\n", name);
    MPI_Finalize();
    return false;
}

/* The watchdog's line, written when the alarm goes off: built when it is
 * armed, so that the handler only calls write() and _exit(). */
static char multiple_hang_line[128];
static size_t multiple_hang_len;

static inline void multiple_hang(int sig)
{
    (void)sig;
    if (write(2, multiple_hang_line, multiple_hang_len) < 0)
        _exit(3);
    _exit(3);
}

/* Arms the watchdog: after `seconds` the process prints "<name>: no end
 * after <seconds> s: a hang" and exits with 3. 0 disarms it. */
static inline void multiple_watchdog(const char *name, unsigned seconds)
{
    if (seconds == 0) {
        alarm(0);
        return;
    }
    int n = snprintf(multiple_hang_line, sizeof multiple_hang_line,
                     "%s: no end after %u s: a hang\n", name, seconds);
    multiple_hang_len = n < 0 ? 0 : (size_t)n;
    if (multiple_hang_len >= sizeof multiple_hang_line) { /* a long name: cut, still a line */
        multiple_hang_len = sizeof multiple_hang_line - 1;
        multiple_hang_line[multiple_hang_len - 1] = '\n';
    }
    signal(SIGALRM, multiple_hang);
    alarm(seconds);
}

#endif
