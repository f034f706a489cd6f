/*
 * wisp's life cycle. The configuration is validated on every rank before the
 * underlying MPI_Init; after it, one allreduce lets all ranks agree to stop
 * when any of them has a bad WISP_* setting, so the job ends with one clear
 * line per bad rank and a non-zero exit instead of a hang half-way.
 */
#include "core/init.h"

#include <mpi.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/account.h"
#include "core/alive.h"
#include "core/clock.h"
#include "core/component.h"
#include "core/config.h"
#include "core/launch.h"
#include "core/log.h"
#include "core/mpi_check.h"
#include "core/mpi_exit.h"
#include "core/quirks.h"
#include "core/stats.h"
#include "core/topo.h"
#include "core/world.h"
#include "core/wrapper.h"
#include "wisp.h"

extern char **environ;

enum { MAX_PROBLEMS = 8 };

struct problems {
    int count;
    char lines[MAX_PROBLEMS][512];
};

static void collect(void *ctx, const char *line)
{
    struct problems *p = ctx;
    if (p->count < MAX_PROBLEMS)
        snprintf(p->lines[p->count++], sizeof p->lines[0], "%s", line);
}

void wisp_core_stop(const char *line)
{
    if (line)
        wisp_log_error("%s", line);
    wisp_core_alive_finalize();
    exit(1);
}

bool wisp_core_nonblocking_collectives;
_Atomic bool wisp_core_ult_one_thread;
static int thread_level; /* what the application was given */

int wisp_core_query_thread(int *provided)
{
    int initialized = 0;
    PMPI_Initialized(&initialized);
    if (!initialized) /* the MPI reports the error its way */
        return PMPI_Query_thread(provided);
    *provided = thread_level;
    return MPI_SUCCESS;
}

/* A thread level by its name, for messages. */
static const char *level_name(int level)
{
    switch (level) {
    case MPI_THREAD_SINGLE:
        return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED:
        return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED:
        return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE:
        return "MPI_THREAD_MULTIPLE";
    case WISP_THREAD_ULT:
        return "WISP_THREAD_ULT";
    }
    return "an unknown thread level";
}

/* What the application's own calls need of the MPI for `required` (-1:
 * MPI_Init). WISP_THREAD_ULT (seed 003's MPI_THREAD_ULT) is many ULTs that
 * call MPI; on one kernel thread they call it one at a time, since they
 * switch only between calls. Also whether this process wants blocking
 * collectives to go through their nonblocking forms (so that ULTs waiting
 * in them yield, docs/ult.md). */
static int level_for_application(int required, bool *nonblocking_collectives)
{
    bool ult_level = required == WISP_THREAD_ULT;
    *nonblocking_collectives =
        wisp_config.ULT_COLLECTIVES == WISP_ULT_COLLECTIVES_ON ||
        (wisp_config.ULT_COLLECTIVES == WISP_ULT_COLLECTIVES_AUTO && ult_level);
    if (ult_level)
        return MPI_THREAD_SERIALIZED;
    return required < 0 ? MPI_THREAD_SINGLE : required;
}

/* The thread levels of one process (docs/ult.md, "Thread levels"). */
struct levels {
    int app;       /* what the application's own calls need */
    int mpi;       /* what wisp asks of the MPI */
    int got;       /* what the MPI gave */
    bool streams;  /* ULTs run on several kernel threads */
    char off[512]; /* what wisp turned off, and why: one line for rank 0 */
};

/* Raise the MPI to MPI_THREAD_MULTIPLE where wisp's own threads call it at
 * once beside the application's: the progress thread, and ULTs on several
 * kernel threads (WISP_ULT_THREADS > 1), whatever level the application
 * asked for, since wisp, not the application, places its ULTs. Where that
 * level would break the MPI (quirks.c), keep the application's and turn
 * those off instead: the progress thread, and ULTs but on one kernel thread,
 * which the application's level allows (one flow at a time). */
static void choose_mpi_level(struct levels *l)
{
    bool progress = wisp_config.PROGRESS != WISP_PROGRESS_OFF;
    l->streams = wisp_config.ULT_THREADS > 1;
    l->mpi = l->app;
    if (l->app >= MPI_THREAD_MULTIPLE || !(progress || l->streams))
        return;
    const char *why = wisp_core_quirks_multiple_breaks_windows();
    if (!why) {
        l->mpi = MPI_THREAD_MULTIPLE;
        return;
    }
    snprintf(l->off, sizeof l->off, "%s%s%s: %s, which %s%s%s would need",
             progress ? "no progress thread" : "", progress && l->streams ? " and " : "",
             l->streams ? "user-level threads on one kernel thread" : "", why,
             !progress                                    ? ""
             : wisp_config.PROGRESS == WISP_PROGRESS_AUTO ? "WISP_PROGRESS=auto"
                                                          : "WISP_PROGRESS=thread",
             progress && l->streams ? " and " : "", l->streams ? "WISP_ULT_THREADS>1" : "");
    wisp_config.PROGRESS = WISP_PROGRESS_OFF;
    if (l->streams)
        atomic_store(&wisp_core_ult_one_thread, true);
    l->streams = false;
}

/* MPI_Init or MPI_Init_thread of the MPI at the level chosen. */
static int init_mpi(int *argc, char ***argv, int required, struct levels *l)
{
    choose_mpi_level(l);
    wisp_core_quirks_before_init();
    int rc;
    l->got = l->app;
    if (required < 0 && l->mpi == l->app) {
        rc = PMPI_Init(argc, argv);
        PMPI_Query_thread(&l->got);
    } else {
        rc = PMPI_Init_thread(argc, argv, l->mpi, &l->got);
    }
    if (rc == MPI_SUCCESS && l->streams && l->got < MPI_THREAD_MULTIPLE) {
        snprintf(l->off, sizeof l->off,
                 "user-level threads on one kernel thread: the MPI gave no MPI_THREAD_MULTIPLE, "
                 "which WISP_ULT_THREADS>1 would need");
        atomic_store(&wisp_core_ult_one_thread, true);
        l->streams = false;
    }
    return rc;
}

/* Where MPI_Init's time goes (WISP_VERBOSE=2, world rank 0): the MPI's
 * own start, then each of wisp's steps, in milliseconds. */
static struct {
    char line[256];
    size_t len;
    uint64_t last;
} startup;

static void startup_step(const char *name)
{
    uint64_t now = wisp_core_clock_ns();
    if (startup.len < sizeof startup.line) {
        int n = snprintf(startup.line + startup.len, sizeof startup.line - startup.len, "%s%s %.1f",
                         startup.len ? ", " : "", name, (double)(now - startup.last) / 1e6);
        startup.len += n > 0 ? (size_t)n : 0;
    }
    startup.last = now;
}

int wisp_core_init(int *argc, char ***argv, int required, int *provided)
{
    uint64_t start = startup.last = wisp_core_clock_ns();
    /* A library built for another MPI stops here (core/mpi_check.h). */
    wisp_core_mpi_check_at_init();
    static struct problems problems; /* static: 4 KiB off the user's stack */
    int bad = wisp_core_config_parse(&wisp_config, environ, collect, &problems);
    bool ult_collectives;
    static struct levels l; /* static: its line is 512 bytes */
    l.app = level_for_application(required, &ult_collectives);
    wisp_core_launch_check_before(environ);
    wisp_core_topo_prefetch();
    wisp_core_mpi_exit_recording(true);
    int rc = init_mpi(argc, argv, required, &l);
    wisp_core_mpi_exit_recording(false);
    if (rc != MPI_SUCCESS)
        return rc;
    startup_step("the MPI's");
    /* The application gets the level it asked for (a level raised for wisp
     * is not passed on); wisp's components the level of the calls they may
     * see at once, which ULTs on several kernel threads raise. */
    int level = l.got < l.app ? l.got : l.app;
    thread_level = required == WISP_THREAD_ULT && level >= l.app ? WISP_THREAD_ULT : level;
    if (required >= 0)
        *provided = thread_level;
    if (l.streams && l.got >= MPI_THREAD_MULTIPLE)
        level = MPI_THREAD_MULTIPLE;
    PMPI_Comm_rank(MPI_COMM_WORLD, &wisp_core_log_rank);
    int world_size = 0;
    PMPI_Comm_size(MPI_COMM_WORLD, &world_size);
    wisp_core_launch_check(world_size, environ);
    /* Anyone's bad configuration stops everyone; collectives are converted
     * only if everyone wants it (max of -want is minus the min). */
    int mine[3] = {bad, ult_collectives, -(int)ult_collectives}, all[3];
    PMPI_Allreduce(mine, all, 3, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    int any_bad = all[0];
    wisp_core_nonblocking_collectives = all[2] == -1;
    if (any_bad) {
        for (int i = 0; i < problems.count; i++)
            wisp_log_error("%s", problems.lines[i]);
        wisp_core_stop(NULL);
    }
    startup_step("configuration");
    wisp_core_topo_init(MPI_COMM_WORLD, (int)wisp_config.VNODE_SIZE);
    startup_step("topology");
    /* Before the ghosts are set aside: they are watched too. */
    wisp_core_alive_start(wisp_topo.node_comm, (int)wisp_config.GHOSTS);
    startup_step("watcher");
    for (const struct wisp_component *c = wisp_components; c->name; c++) {
        c->start(level);
        startup_step(c->name);
    }
    wisp_core_topo_log();
    wisp_core_stats_start();
    if (wisp_topo.world_rank == 0) {
        wisp_core_quirks_report();
        wisp_core_wrapper.tools_report();
        if (l.off[0]) /* every process decided the same */
            wisp_log_error("%s", l.off);
        else if (l.mpi > l.app)
            wisp_log(1, "MPI_THREAD_MULTIPLE for the MPI, for %s; the application has %s",
                     l.streams ? "user-level threads on several kernel threads"
                               : "the progress thread",
                     level_name(thread_level));
    }
    /* Translation and accounting live in the hooked path; events alone in
     * the watched one. */
    wisp_core_wrapper.hooks_enable(wisp_config.STATS || wisp_core_accounting ||
                                           wisp_core_user_world != MPI_COMM_WORLD
                                       ? WISP_CORE_HOOK_ALL
                                   : wisp_core_event_hook ? WISP_CORE_WATCH
                                                          : WISP_CORE_DIRECT);
    if (wisp_topo.world_rank == 0)
        wisp_log(2, "MPI_Init took %.1f ms: %s", (double)(wisp_core_clock_ns() - start) / 1e6,
                 startup.line);
    if (wisp_topo.world_rank == 0)
        wisp_log(1,
                 "%d rank%s on %d node%s%s, %d ghost%s per node; %d process%s on %d core%s "
                 "here%s; stats %s",
                 wisp_topo.world_size, wisp_plural(wisp_topo.world_size), wisp_topo.node_count,
                 wisp_plural(wisp_topo.node_count), wisp_config.VNODE_SIZE ? " (virtual)" : "",
                 (int)wisp_config.GHOSTS, wisp_plural(wisp_config.GHOSTS), wisp_topo.machine_procs,
                 wisp_topo.machine_procs == 1 ? "" : "es", wisp_topo.machine_cores,
                 wisp_plural(wisp_topo.machine_cores),
                 wisp_topo_oversubscribed() ? " (oversubscribed)" : "",
                 wisp_config.STATS ? "on" : "off");
    return MPI_SUCCESS;
}

int wisp_core_finalize(void)
{
    wisp_core_stats_finish(wisp_core_user_world);
    wisp_core_wrapper.hooks_enable(WISP_CORE_DIRECT);
    const struct wisp_component *c = wisp_components;
    while (c->name)
        c++;
    while (c-- != wisp_components)
        c->stop();
    wisp_core_topo_fini();
    int rc = wisp_core_alive_finalize();
    wisp_core_config_free(&wisp_config);
    return rc;
}
