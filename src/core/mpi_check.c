/*
 * Which MPI the process carries, against the one libwisp was built for.
 * libwisp's MPI_* and PMPI_* are compiled against one MPI's ABI (MPICH's
 * handles are ints, Open MPI's are pointers) and are found before the MPI's
 * own, so in a program of the other MPI every call they take goes wrong:
 * Open MPI died in UCX, MPICH stopped with "Invalid communicator" (issue 41).
 *
 * The process "carries" an MPI when an object other than libwisp needs its
 * library (DT_NEEDED): libwisp brings its own MPI in, so in the case that
 * matters both MPIs are loaded, and only who needs them tells them apart.
 * Every object a process needs at start is mapped before any constructor
 * runs, so the constructor below sees it; a mismatch is the other MPI needed
 * and libwisp's not. Both needed is left alone (wisp cannot know which one
 * the program calls), and neither (bash, make, python before it loads an
 * MPI) too, silently.
 *
 * Stepping aside: where libwisp came in by LD_PRELOAD, the constructor
 * takes it out of LD_PRELOAD and restarts the program (execve of
 * /proc/self/exe with the same argv): nothing of the program or of its MPI
 * has run yet, so this is the run without wisp, same pid and all. Where it
 * cannot (libwisp linked in, the program started as ld.so's argument, a
 * set-user-ID program), and where the MPI is loaded later by dlopen, MPI_Init
 * stops the process with one line instead: forwarding every call to the
 * other MPI is not possible cleanly, as libwisp's exported PMPI_* and
 * Fortran entry points interpret their arguments, and libwisp's own MPI,
 * in the global scope since load, comes before a dlopened MPI for every
 * name libwisp does not define (docs/design.md, "A library for another
 * MPI").
 */
#include "core/mpi_check.h"

#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/log.h"

/* The MPIs by the sonames of their C library: the MPICH ABI's (also Intel
 * MPI's and MVAPICH's), Open MPI's since 3.0, and the MPI-5 standard ABI's. */
enum { FLAVORS = 3 };
static const struct flavor {
    const char *name; /* for people */
    const char *word; /* in the paths of a build or install (build/mpich) */
    const char *sonames[3];
} flavors[FLAVORS] = {
    {"MPICH", "mpich", {"libmpich.so.12", "libmpi.so.12", NULL}},
    {"Open MPI", "openmpi", {"libmpi.so.40", NULL}},
    {"the MPI-5 ABI", "abi", {"libmpi_abi.so.1", NULL}},
};
#if defined(MPI_ABI_VERSION)
enum { OURS = 2 };
#elif defined(OPEN_MPI)
enum { OURS = 1 };
#else
enum { OURS = 0 };
#endif

struct scan {
    int index;                   /* of the object looked at; the program is 0 */
    bool needs[FLAVORS];         /* an object but libwisp needs that MPI's library */
    bool loaded[FLAVORS];        /* that MPI's library is loaded (for any reason) */
    const char *soname[FLAVORS]; /* its name */
    int other;                   /* the other MPI carried (wrong_mpi) */
};

/* Is `addr` in one of the object's segments? */
static bool holds(const struct dl_phdr_info *info, const void *addr)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && (uintptr_t)addr >= lo && (uintptr_t)addr < lo + ph->p_memsz)
            return true;
    }
    return false;
}

/* `name` (a soname) is one of an MPI's libraries: mark it in `marks`. */
static void note(struct scan *s, bool marks[FLAVORS], const char *name)
{
    for (int f = 0; f < FLAVORS; f++)
        for (const char *const *n = flavors[f].sonames; *n; n++)
            if (!strcmp(name, *n)) {
                marks[f] = true;
                s->soname[f] = *n;
            }
}

static int look(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct scan *s = arg;
    /* libwisp's own needs do not count, unless it is linked into the
     * program (libwisp.a): then the program's are the same. */
    bool needs_count = s->index++ == 0 || !holds(info, (const void *)look);
    const ElfW(Dyn) *dyn = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    if (!dyn)
        return 0;
    uintptr_t strtab = 0;
    for (const ElfW(Dyn) *d = dyn; d->d_tag != DT_NULL; d++)
        if (d->d_tag == DT_STRTAB)
            strtab = d->d_un.d_ptr;
    /* ld.so relocates the dynamic section's addresses in place, but not
     * where it is read-only (the vDSO's). */
    if (!strtab)
        return 0;
    if (strtab < info->dlpi_addr)
        strtab += info->dlpi_addr;
    for (const ElfW(Dyn) *d = dyn; d->d_tag != DT_NULL; d++)
        if (d->d_tag == DT_NEEDED && needs_count)
            note(s, s->needs, (const char *)strtab + d->d_un.d_val);
        else if (d->d_tag == DT_SONAME) /* dlopened by a program without MPI too */
            note(s, s->loaded, (const char *)strtab + d->d_un.d_val);
    return 0;
}

/* Does the process carry another MPI and not libwisp's? libwisp never
 * loads another, so another loaded is the program's; libwisp's own counts
 * only where something else needs it. */
static bool wrong_mpi(struct scan *s)
{
    memset(s, 0, sizeof *s);
    dl_iterate_phdr(look, s);
    if (s->needs[OURS])
        return false;
    for (s->other = 0; s->other < FLAVORS; s->other++)
        if (s->other != OURS && (s->loaded[s->other] || s->needs[s->other]))
            return true;
    return false;
}

/* The launcher's first task, or a process no launcher started: the one that
 * speaks for the job. */
static bool first_task(void)
{
    static const char *const ranks[] = {"PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK",
                                        "SLURM_PROCID"};
    for (size_t i = 0; i < sizeof ranks / sizeof ranks[0]; i++) {
        const char *v = getenv(ranks[i]);
        if (v)
            return !strcmp(v, "0");
    }
    return true;
}

/* libwisp's path as loaded (absolute where it can be told). */
static const char *self_path(char *buf, size_t cap)
{
    Dl_info info;
    if (!dladdr((const void *)look, &info) || !info.dli_fname || !*info.dli_fname)
        return "libwisp";
    if (info.dli_fname[0] == '/' || !realpath(info.dli_fname, buf) || strlen(buf) >= cap)
        return info.dli_fname;
    return buf;
}

/* `from` in `path` replaced by `to`: every occurrence (all < 0), or the
 * one at byte `all`; true if that file exists. */
static bool replaced(const char *path, const char *from, const char *to, long all, char *out,
                     size_t cap)
{
    size_t n = strlen(from), used = 0;
    for (const char *p = path; *p && used + 1 < cap;) {
        if (!strncmp(p, from, n) && (all < 0 || p - path == all)) {
            size_t len = strlen(to);
            if (used + len + 1 >= cap)
                return false;
            memcpy(out + used, to, len);
            used += len;
            p += n;
        } else {
            out[used++] = *p++;
        }
    }
    if (used + 1 >= cap)
        return false;
    out[used] = '\0';
    return !access(out, R_OK);
}

/* The library built for the other MPI where a build or an install keeps it
 * beside this one: this one's path with the words that name its MPI
 * (build/mpich/libwisp-mpich.so, lib/libwisp-mpich.so) changed to the
 * other's, all of them, else one, the last first. */
static bool sibling(const char *self, int other, char *out, size_t cap)
{
    const char *from = flavors[OURS].word, *to = flavors[other].word;
    if (replaced(self, from, to, -1, out, cap))
        return true;
    for (const char *p = self + strlen(self); p-- > self;)
        if (!strncmp(p, from, strlen(from)) && replaced(self, from, to, p - self, out, cap))
            return true;
    return false;
}

/* The one line: what was found, what happens, and the right library. */
static void say(const struct scan *s, const char *outcome)
{
    char buf[PATH_MAX], other[PATH_MAX], use[PATH_MAX + 64];
    const char *self = self_path(buf, sizeof buf);
    if (sibling(self, s->other, other, sizeof other))
        snprintf(use, sizeof use, "%s for %s", other, flavors[s->other].name);
    else
        snprintf(use, sizeof use, "the libwisp built for %s", flavors[s->other].name);
    wisp_log_error(
        "this program uses %s (%s), but %s was built for %s%s; use %s (wisprun picks it)",
        flavors[s->other].name, s->soname[s->other], self, flavors[OURS].name, outcome, use);
}

/* Is the LD_PRELOAD entry `entry` (`len` bytes) this libwisp? */
static bool is_self(const char *entry, size_t len, const char *self, const struct stat *self_st)
{
    char path[PATH_MAX];
    if (len >= sizeof path)
        return false;
    memcpy(path, entry, len);
    path[len] = '\0';
    if (!strcmp(path, self))
        return true;
    if (!strchr(path, '/')) { /* found through the library path */
        const char *base = strrchr(self, '/');
        return !strcmp(path, base ? base + 1 : self);
    }
    struct stat st;
    return self_st && !stat(path, &st) && st.st_dev == self_st->st_dev &&
           st.st_ino == self_st->st_ino;
}

/* `preload` (LD_PRELOAD's value) without libwisp into `out`, entries joined
 * by ':' (ld.so takes spaces and colons); false if libwisp is not in it. */
static bool without_self(const char *preload, char *out, size_t cap)
{
    char buf[PATH_MAX];
    const char *self = self_path(buf, sizeof buf);
    struct stat self_st;
    bool have_st = !stat(self, &self_st), found = false;
    size_t used = 0;
    out[0] = '\0';
    for (const char *p = preload; *p;) {
        size_t len = strcspn(p, " :");
        if (len && is_self(p, len, self, have_st ? &self_st : NULL)) {
            found = true;
        } else if (len) {
            if (used + len + 2 > cap)
                return false;
            if (used)
                out[used++] = ':';
            memcpy(out + used, p, len);
            out[used += len] = '\0';
        }
        p += len;
        p += *p != '\0';
    }
    return found;
}

/* Restart the program without libwisp in LD_PRELOAD; returns if it cannot. */
static void restart_without_wisp(const struct scan *s, char **argv, char **envp)
{
    /* A set-user-ID program reads LD_PRELOAD its own way; started as ld.so's
     * argument (no interpreter: AT_BASE 0), /proc/self/exe is ld.so. */
    if (!argv || !envp || getauxval(AT_SECURE) || !getauxval(AT_BASE))
        return;
    const char *preload = getenv("LD_PRELOAD");
    static char rest[8192];
    if (!preload || !without_self(preload, rest, sizeof rest))
        return;
    size_t n = 0;
    while (envp[n])
        n++;
    /* mmap, not malloc: libwisp's own malloc is not for this early hour. */
    size_t bytes = (n + 1) * sizeof(char *) + sizeof "LD_PRELOAD=" + strlen(rest);
    char **env = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (env == MAP_FAILED)
        return;
    char *entry = (char *)(env + n + 1);
    snprintf(entry, bytes - (n + 1) * sizeof(char *), "LD_PRELOAD=%s", rest);
    size_t k = 0;
    bool placed = false;
    for (size_t i = 0; i < n; i++) {
        if (strncmp(envp[i], "LD_PRELOAD=", 11)) {
            env[k++] = envp[i];
        } else if (!placed) { /* in its place; none left: unset, as natively */
            placed = true;
            if (rest[0])
                env[k++] = entry;
        }
    }
    env[k] = NULL;
    if (first_task())
        say(s, ": running it without wisp");
    execve("/proc/self/exe", argv, env);
    munmap(env, bytes);
}

static bool seen_at_load; /* a mismatch the constructor could not step aside from */

/* Among libwisp's first constructors (priority 101), before src/wrap
 * looks up the MPI's functions; glibc passes argc, argv and envp to
 * constructors. If the restart fails, MPI_Init stops with a second line. */
__attribute__((constructor(101))) static void check_at_load(int argc, char **argv, char **envp)
{
    (void)argc;
    struct scan s;
    if (!wrong_mpi(&s))
        return;
    restart_without_wisp(&s, argv, envp);
    seen_at_load = true;
}

void wisp_core_mpi_check_at_init(void)
{
    struct scan s;
    if (!wrong_mpi(&s))
        return;
    char outcome[256];
    const char *preload = getenv("LD_PRELOAD");
    static char rest[8192];
    snprintf(outcome, sizeof outcome, " and cannot step aside, as %s: stopping in MPI_Init",
             !seen_at_load ? "the program loaded that MPI after libwisp, whose own came first "
                             "(dlopen)"
             : preload && without_self(preload, rest, sizeof rest)
                 ? "it could not restart the program without itself"
                 : "it is not in LD_PRELOAD (linked into the program?)");
    if (first_task()) {
        say(&s, outcome);
    } else { /* let the first task's line out before the launcher ends the job */
        struct timespec pause = {0, 500 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    exit(1);
}
