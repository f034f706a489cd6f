/*
 * wisp's own threads: the point-to-point rescuer, the watcher of the
 * node's processes, the progress thread, the reader of the topology.
 */
#ifndef WISP_CORE_THREAD_H
#define WISP_CORE_THREAD_H

#include <pthread.h>

#pragma GCC visibility push(hidden)

/* Starts `body(arg)` on a thread named `name` (as ps and top show it);
 * pthread_create's result. The thread takes none of the application's
 * signals, whose handlers must run on the application's threads, but its
 * own faults reach their handlers: a SIGBUS on a heap page that /dev/shm
 * cannot back is the heap's to resolve (shm/fault.c), and a fault that is
 * blocked kills the process. */
int wisp_core_thread_start(pthread_t *thread, void *(*body)(void *), void *arg, const char *name);

#pragma GCC visibility pop

#endif
