/* May a process read another's memory (process_vm_readv)? Not under Yama's
 * restricted ptrace, where wisp stages private messages instead of reading
 * them across (tests that expect cross-memory attach ask here first). */
#ifndef WISP_TESTS_PTRACE_SCOPE_H
#define WISP_TESTS_PTRACE_SCOPE_H

#include <stdio.h>

static int ptrace_open(void)
{
    FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "r");
    int scope = 0;
    if (f) {
        if (fscanf(f, "%d", &scope) != 1)
            scope = 0;
        fclose(f);
    }
    return scope == 0;
}

#endif
