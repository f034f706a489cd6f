/* A watchdog for test programs that must not hang: after `seconds`, one
 * line naming the program on stderr and exit status 3. */
#ifndef WISP_TESTS_WATCHDOG_H
#define WISP_TESTS_WATCHDOG_H

#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *watchdog_program;

static void watchdog_fired(int sig)
{
    (void)sig;
    static const char line[] = ": hangs (watchdog)\n";
    ssize_t rc = write(2, watchdog_program, strlen(watchdog_program));
    rc = write(2, line, sizeof line - 1);
    (void)rc;
    _exit(3);
}

static void watchdog_start(const char *program, unsigned seconds)
{
    watchdog_program = program;
    signal(SIGALRM, watchdog_fired);
    alarm(seconds);
}

static inline void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

#endif
