/*
 * Where the dynamic linker finds each MPI function that wisp defines: the
 * definition a call binds to (RTLD_DEFAULT) is wisp's unless a tool is
 * ahead of libwisp; the next one after wisp (RTLD_NEXT) is the MPI's (in
 * the library of its PMPI_X, which src/mpi finds) unless a tool is after it.
 */
#include "wrap/tools.h"

#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

#include "core/log.h"
#include "mpi/calls.h"
#include "wrap/pmpi.h"
#include "wrap/wrap.h"

bool wisp_pmpi_serves;

static struct found {
    int count;       /* MPI functions defined that way */
    char by[256];    /* the first library found */
    char names[160]; /* the first few functions, comma-separated */
} ahead, after;

/* The object that holds `f`, or NULL. _dl_find_object, not dladdr: dladdr
 * also looks for the nearest symbol, a walk of the object's whole symbol
 * table, and this runs three times for each of some 600 MPI functions at
 * every process's start (20 ms of it with dladdr). */
static const void *object_of(const void *f, const char **path)
{
    struct dl_find_object found;
    if (!f || _dl_find_object((void *)f, &found))
        return NULL;
    if (path) /* the program itself has no name in its link map */
        *path = *found.dlfo_link_map->l_name ? found.dlfo_link_map->l_name : "the program";
    return found.dlfo_link_map;
}

static void note(struct found *t, const char *path, const char *name)
{
    if (t->count++ == 0)
        snprintf(t->by, sizeof t->by, "%s", path);
    size_t used = strlen(t->names);
    if (used + strlen(name) + 6 < sizeof t->names)
        snprintf(t->names + used, sizeof t->names - used, "%s%s", used ? ", " : "", name);
    else if (!strstr(t->names, "..."))
        snprintf(t->names + used, sizeof t->names - used, ", ...");
}

/* A tool's `name` (MPI_X) after libwisp, or NULL, noting one ahead of it
 * too; `mpi_function` is the MPI's PMPI_X. */
static void *tool_after(const char *name, const void *mpi_function)
{
    static const void *self;
    if (!self)
        self = object_of((const void *)tool_after, NULL);
    const void *mpi = object_of(mpi_function, NULL);
    const char *path = NULL;
    const void *where = object_of(dlsym(RTLD_DEFAULT, name), &path);
    if (where && where != self && where != mpi)
        note(&ahead, path, name);
    void *next = dlsym(RTLD_NEXT, name);
    where = object_of(next, &path);
    if (!where || where == mpi)
        return NULL;
    note(&after, path, name);
    return next;
}

/* At load, before the application's first call: a tool after libwisp must
 * get MPI_Init too. */
__attribute__((constructor)) static void find_tools(void)
{
    wisp_mpi_resolve_once();
#define WISP_FN(f)                                                                                 \
    wisp_next.f = (__typeof__(wisp_next.f))tool_after(#f, (const void *)wisp_mpi.P##f);
#include "present.def"
#undef WISP_FN
    wisp_pmpi_serves = ahead.count || after.count;
    wisp_wrap_mpi_found();
}

void wisp_wrap_tools_report(void)
{
    if (ahead.count)
        wisp_log(1, "%s defines %d MPI functions (%s) ahead of libwisp: its PMPI_ calls reach wisp",
                 ahead.by, ahead.count, ahead.names);
    if (after.count)
        wisp_log(1,
                 "%s defines %d MPI functions (%s) after libwisp: wisp passes those calls to it "
                 "first, and its PMPI_ calls reach wisp",
                 after.by, after.count, after.names);
}
