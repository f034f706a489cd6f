/*
 * wisp's own threads (thread.h).
 */
#include "core/thread.h"

#include <signal.h>

int wisp_core_thread_start(pthread_t *thread, void *(*body)(void *), void *arg, const char *name)
{
    static const int faults[] = {SIGBUS, SIGSEGV, SIGFPE, SIGILL};
    sigset_t mask, before;
    sigfillset(&mask);
    for (unsigned i = 0; i < sizeof faults / sizeof *faults; i++)
        sigdelset(&mask, faults[i]);
    pthread_sigmask(SIG_SETMASK, &mask, &before);
    int rc = pthread_create(thread, NULL, body, arg);
    pthread_sigmask(SIG_SETMASK, &before, NULL);
    if (!rc)
        pthread_setname_np(*thread, name);
    return rc;
}
