/*
 * The progress thread (progress.h). It moves the MPI by probing a
 * communicator of its own (the MPI advances everything it has in flight on
 * any call; no request of the application is ever tested here, since a
 * test that completes one would free it under the application). It also
 * hands wisp's receives waiting behind remote wildcards to the MPI, under
 * the engine's lock. Placement: on a core set aside at the end of the
 * machine (WISP_PROGRESS_CORES), else wherever its process may run, where
 * it looks less often (WISP_PROGRESS_INTERVAL), so as to leave the core to
 * the application.
 */
#include "progress/progress.h"

#include <hwloc.h>
#include <mpi.h>
#include <pthread.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "core/account.h"
#include "core/clock.h"
#include "core/config.h"
#include "core/futex.h"
#include "core/log.h"
#include "core/membarrier.h"
#include "core/profile.h"
#include "core/topo.h"
#include "core/world.h"
#include "core/thread.h"
#include "p2p/progress.h"

static struct {
    bool on; /* the thread runs */
    pthread_t thread;
    _Atomic bool stop;
    MPI_Comm comm; /* probed to move the MPI */
    long interval_ns;
    long linger_ns;
    bool own_core;
    bool adaptive; /* WISP_PROGRESS=auto: asleep while the process is with MPI */
    struct wisp_core_stretch profile;
    uint64_t gap, interval; /* of the profile, in ticks */
    _Atomic int windows;    /* windows created and not freed */
    _Atomic uint32_t bell;  /* futex word */
} pt = {.comm = MPI_COMM_NULL};

/* What the application did: counted by the wrappers (core/account.h), which call
 * on_event for a start only while the thread sleeps. The application's
 * side pays no fence where one application thread calls MPI at a time: the
 * thread, before it sleeps, makes the process execute a memory barrier
 * (membarrier). */
static struct wisp_core_activity *const app = &wisp_core_activity;

static void wake(void)
{
    atomic_fetch_add(&pt.bell, 1);
    wisp_futex(&pt.bell, FUTEX_WAKE_PRIVATE, 1, -1);
}

/* The wrappers' hook: a nonblocking call while the thread sleeps, a window
 * made or freed. */
static void on_event(enum wisp_core_event event)
{
    if (event == WISP_CORE_WIN_FREED)
        atomic_fetch_sub(&pt.windows, 1);
    else if (event != WISP_CORE_WIN_MADE || atomic_fetch_add(&pt.windows, 1) == 0)
        wake(); /* a window's target side needs looks from now on */
}

/* What the thread last saw of the application. */
struct seen {
    unsigned ends; /* the application's count of waits and tests */
    long ended;    /* when it saw a new one */
};

enum { NAP_GROWTH = 64 }; /* the longest nap, in intervals */

/* Something may be outstanding: a nonblocking call not followed by a wait
 * or test yet, a wait or test within the linger interval, or an open
 * window. */
static bool armed(struct seen *seen, long now)
{
    unsigned ends = atomic_load(&app->ends);
    if (ends != seen->ends) {
        seen->ends = ends;
        seen->ended = now;
    }
    return atomic_load(&app->pending) || now - seen->ended < pt.linger_ns ||
           atomic_load(&pt.windows) > 0;
}

/* WISP_PROGRESS=auto: whether the application computes, from its profile
 * (core/profile.h). While it spends its time with MPI, it moves the MPI
 * itself, and a look would only take a core or the MPI's lock from it. */
static bool app_computing(void)
{
    uint64_t now = wisp_core_ticks();
    uint64_t at = pt.profile.at;
    bool c = wisp_core_profile_stretch(
        &pt.profile, now, wisp_core_profile_away(wisp_core_account_live(), now, pt.gap),
        wisp_core_profile_waited(0), pt.interval);
    if (pt.profile.at != at)
        wisp_log(3, "progress thread: %.0f%% of the last stretch with MPI: %s",
                 pt.profile.fraction * 100, c ? "computing" : "with MPI");
    return c;
}

/* True when the engine made a pass, so its rings are empty: the thread may
 * then sleep on its doorbell until a local peer gives it more. */
static bool look(void)
{
    int flag;
    /* wisp's engine first: a local peer's ring woke this thread, and its
     * copy should not wait behind the MPI's progress. */
    bool passed = wisp_p2p_progress_async();
    PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, pt.comm, &flag, MPI_STATUS_IGNORE);
    return passed;
}

static void *run(void *unused)
{
    (void)unused;
    prctl(PR_SET_TIMERSLACK, 1UL); /* naps as long as asked, not 50 us more */
    /* From zero, as the count: a wait made before this thread first ran is
     * seen too (and a start leaves `pending` set until one). */
    struct seen seen = {0};
    long nap = pt.interval_ns;
    while (!atomic_load(&pt.stop)) {
        long now = (long)wisp_core_clock_ns();
        if (armed(&seen, now) && pt.adaptive && !app_computing()) {
            /* With MPI: asleep for a profile interval; a finalize cuts it
             * short. */
            wisp_futex(&pt.bell, FUTEX_WAIT_PRIVATE, atomic_load(&pt.bell),
                       (long)wisp_config.ASYNC_INTERVAL * 1000000L);
            continue;
        }
        if (armed(&seen, now)) {
            /* No look while an application thread is inside MPI: it moves
             * the MPI already, and a probe would only contend for the MPI's
             * lock with it. On a shared core every wake-up also costs the
             * application more than the look (about 100 us on this VM: 10%
             * of a message rate at 1 kHz), so while the thread finds it
             * inside, the naps double; the first time it finds it outside
             * (computing) brings them back. A nap that MPI_Finalize cuts
             * short; with a core of its own, also on the doorbell that a
             * local peer's message rings (the MPI's own traffic rings none:
             * it waits for the interval). */
            bool inside = atomic_load_explicit(&app->inside, memory_order_relaxed);
            nap = inside && !pt.own_core ? (nap < pt.interval_ns * NAP_GROWTH ? 2 * nap : nap)
                                         : pt.interval_ns;
            if (inside || !(look() && pt.own_core && wisp_p2p_nap(pt.interval_ns)))
                wisp_futex(&pt.bell, FUTEX_WAIT_PRIVATE, atomic_load(&pt.bell), nap);
            continue;
        }
        /* Nothing outstanding: sleep until the next nonblocking call (or
         * a second, should its wake-up have crossed this going to sleep). */
        unsigned bell = atomic_load(&pt.bell);
        atomic_store(&app->watcher_asleep, true);
        if (wisp_core_one_caller)
            wisp_membarrier();
        if (!atomic_load(&app->pending) && !atomic_load(&pt.stop))
            wisp_futex(&pt.bell, FUTEX_WAIT_PRIVATE, bell, 1000000000L);
        atomic_store(&app->watcher_asleep, false);
    }
    return NULL;
}

/* The (r mod N)-th of the last N cores this process may run on (all the
 * machine's unless the launcher bound it: Slurm's task/affinity, say; never
 * a core outside), r this process's node rank; false when there is no such
 * core or binding failed. */
static bool bind_to_spare_core(void)
{
    int spare = (int)wisp_config.PROGRESS_CORES;
    if (!spare)
        return false;
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) || hwloc_topology_load(topo))
        return false;
    hwloc_bitmap_t mine = hwloc_bitmap_alloc();
    if (!mine || hwloc_get_cpubind(topo, mine, HWLOC_CPUBIND_PROCESS))
        hwloc_bitmap_copy(mine, hwloc_topology_get_allowed_cpuset(topo));
    int cores = hwloc_get_nbobjs_inside_cpuset_by_type(topo, mine, HWLOC_OBJ_CORE);
    bool bound = false;
    if (spare <= cores) {
        unsigned pick = (unsigned)(cores - 1 - wisp_topo.node_rank % spare);
        hwloc_obj_t core = hwloc_get_obj_inside_cpuset_by_type(topo, mine, HWLOC_OBJ_CORE, pick);
        bound = core && !hwloc_set_cpubind(topo, core->cpuset, HWLOC_CPUBIND_THREAD);
    }
    hwloc_bitmap_free(mine);
    if (!bound)
        wisp_log(1,
                 "progress thread: cannot bind to one of the last %d of the %d cores this "
                 "process may run on; it runs where the process does",
                 spare, cores);
    hwloc_topology_destroy(topo);
    return bound;
}

static void *start_here(void *arg)
{
    pt.own_core = bind_to_spare_core() || wisp_topo.machine_cores > wisp_topo.machine_procs;
    long us = wisp_config.PROGRESS_INTERVAL ? wisp_config.PROGRESS_INTERVAL
              : pt.own_core                 ? 10
                                            : 1000;
    pt.interval_ns = us * 1000L;
    wisp_log(2, "progress thread on: %s core, a look every %ld us while work is outstanding",
             pt.own_core ? "its own" : "a shared", us);
    return run(arg);
}

void wisp_progress_start(int thread_level)
{
    int mpi_level = MPI_THREAD_SINGLE;
    PMPI_Query_thread(&mpi_level);
    if (wisp_config.PROGRESS == WISP_PROGRESS_OFF)
        return;
    pt.adaptive = wisp_config.PROGRESS == WISP_PROGRESS_AUTO;
    if (mpi_level != MPI_THREAD_MULTIPLE) { /* every process has the same */
        size_t len = 0;
        const char *word = wisp_core_config_word(wisp_core_config_var("WISP_PROGRESS"),
                                                 wisp_config.PROGRESS, &len);
        if (wisp_core_log_rank == 0)
            wisp_log_error("no progress thread: the MPI gave no MPI_THREAD_MULTIPLE, which "
                           "WISP_PROGRESS=%.*s would need",
                           (int)len, word);
        return;
    }
    if (pt.adaptive) {
        uint64_t gap_ns = wisp_core_profile_gap_ns();
        wisp_core_account_start(false, gap_ns);
        pt.gap = wisp_core_ns_to_ticks(gap_ns);
        pt.interval = wisp_core_ns_to_ticks((uint64_t)wisp_config.ASYNC_INTERVAL * 1000000u);
        uint64_t now = wisp_core_ticks();
        wisp_core_profile_stretch(&pt.profile, now,
                                  wisp_core_profile_away(wisp_core_account_live(), now, pt.gap),
                                  wisp_core_profile_waited(0), 0);
    }
    /* Of the world: MPICH answers a probe of MPI_COMM_SELF without moving
     * anything. The application's world: ghost processes (WISP_GHOSTS)
     * serve and never join a collective of the MPI's. */
    PMPI_Comm_dup(wisp_core_user_world, &pt.comm);
    pt.linger_ns = wisp_config.PROGRESS_LINGER * 1000L;
    atomic_store(&pt.stop, false);
    /* The application's level, not the MPI's (which the thread needs). */
    wisp_core_one_caller = thread_level != MPI_THREAD_MULTIPLE && wisp_membarrier_register();
    int rc = wisp_core_thread_start(&pt.thread, start_here, NULL, "wisp-progress");
    if (rc) {
        wisp_log(1, "progress thread off: cannot start it: %s", strerror(rc));
        PMPI_Comm_free(&pt.comm);
        return;
    }
    /* Local peers ring a thread with a core of its own (meant to have one:
     * its binding may still fail); on a shared core each wake-up would take
     * the core from the application, at every message. */
    wisp_p2p_progress_thread(wisp_config.PROGRESS_CORES ||
                             wisp_topo.machine_cores > wisp_topo.machine_procs);
    pt.on = true;
    wisp_core_event_hook = on_event;
}

void wisp_progress_stop(void)
{
    if (!pt.on)
        return;
    wisp_core_event_hook = NULL;
    atomic_store(&pt.stop, true);
    wake();
    wisp_p2p_nap_end();
    pthread_join(pt.thread, NULL);
    PMPI_Comm_free(&pt.comm);
    pt.on = false;
}
