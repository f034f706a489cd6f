/* CHECK for wisp's own test programs (tests/mpi, tests/unit): a failed
 * condition is printed with its file and line and counted in `failures`,
 * and the program goes on, so one run reports every broken check. */
#ifndef WISP_TESTS_CHECK_H
#define WISP_TESTS_CHECK_H

#include <stdio.h>

static int failures;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);               \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

#endif
