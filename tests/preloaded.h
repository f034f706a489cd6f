/*
 * Forced into a test program (-include) that is not linked with libwisp but
 * run with it in LD_PRELOAD, as a user would without wisprun: the functions
 * of wisp.h the program calls are looked up at run time in the libwisp the
 * loader preloaded (the program would otherwise load libwisp itself, and
 * the test would not be about LD_PRELOAD). A missing one aborts.
 */
#ifndef WISP_TESTS_PRELOADED_H
#define WISP_TESTS_PRELOADED_H

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "wisp.h"

static inline void *preloaded_wisp(const char *name)
{
    void *f = dlsym(RTLD_DEFAULT, name);
    if (!f) {
        fprintf(stderr, "%s not found: libwisp is not preloaded\n", name);
        abort();
    }
    return f;
}

#define PRELOADED_WISP(name)   ((__typeof__(&name))preloaded_wisp(#name))
#define wisp_heap_contains(p)  PRELOADED_WISP(wisp_heap_contains)(p)
#define wisp_node_size()       PRELOADED_WISP(wisp_node_size)()
#define wisp_node_rank()       PRELOADED_WISP(wisp_node_rank)()
#define wisp_node_comm()       PRELOADED_WISP(wisp_node_comm)()
#define wisp_shm_counter(name) PRELOADED_WISP(wisp_shm_counter)(name)

#endif
