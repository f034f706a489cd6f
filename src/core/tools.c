/*
 * Where the dynamic linker finds each MPI function that wisp defines: the
 * definition a call binds to (RTLD_DEFAULT) should be wisp's, and the next
 * one after wisp (RTLD_NEXT) the MPI's, in the library that has the
 * function's PMPI_ name.
 */
#include "core/tools.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "wrap/wrap.h"

/* The object that holds `f`, or NULL. */
static const void *object_of(const void *f, const char **path)
{
    Dl_info info;
    if (!f || !dladdr(f, &info))
        return NULL;
    *path = info.dli_fname;
    return info.dli_fbase;
}

static void note(int *count, char *by, size_t by_size, char *fns, size_t fns_size, const char *path,
                 const char *name)
{
    if ((*count)++ == 0)
        snprintf(by, by_size, "%s", path);
    size_t used = strlen(fns);
    if (used + strlen(name) + 6 < fns_size)
        snprintf(fns + used, fns_size - used, "%s%s", used ? ", " : "", name);
    else if (!strstr(fns, "..."))
        snprintf(fns + used, fns_size - used, ", ...");
}

void wisp_core_tools_find(struct wisp_tools *t)
{
    memset(t, 0, sizeof *t);
    const char *self_path = NULL, *path = NULL;
    const void *self = object_of((const void *)wisp_core_tools_find, &self_path);
    char pname[128];
    for (int i = 0; i < WISP_FN_COUNT; i++) {
        const char *name = wisp_fn_names[i];
        const void *bound = object_of(dlsym(RTLD_DEFAULT, name), &path);
        if (bound && bound != self)
            note(&t->ahead, t->ahead_by, sizeof t->ahead_by, t->ahead_fns, sizeof t->ahead_fns,
                 path, name);
        snprintf(pname, sizeof pname, "P%s", name);
        const char *mpi_path = NULL;
        const void *mpi = object_of(dlsym(RTLD_NEXT, pname), &mpi_path);
        const void *next = object_of(dlsym(RTLD_NEXT, name), &path);
        if (next && mpi && next != mpi)
            note(&t->after, t->after_by, sizeof t->after_by, t->after_fns, sizeof t->after_fns,
                 path, name);
    }
}
