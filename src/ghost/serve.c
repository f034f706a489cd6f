/*
 * The ghost's life: serve the commands of its node's application processes
 * (create a window, free it, finalize) and, while a window it serves
 * exists, make MPI progress for the operations that origins redirect to
 * it. MPICH processes accumulates, lock requests and flushes only inside
 * the target's MPI calls, so the ghost must call into MPI often; but on an
 * oversubscribed node a ghost that spins steals a core from the
 * application. So it backs off: after activity it polls for WISP_GHOST_SPIN
 * microseconds, then polls and yields the processor for as long again, then
 * sleeps on its doorbell between polls, each time 1/16 of the time since the
 * last activity (at least 1 us, at most WISP_GHOST_SLEEP us); without any
 * window it sleeps until the next command, and while no process of its node
 * wants its operations served by a ghost (async.h) it polls only every
 * UNWANTED_NS until one rings. Measured on 2 cores with 3
 * processes (docs/ghosts.md), a ghost that did not spin answered an origin
 * tens of times slower than one that spins for ~20 us after each operation,
 * and one that spins much longer no faster.
 *
 * Activity is what UCX's progress engine reports (ucx_activity.c). Where
 * the MPI does not use UCX it is read from the time one poll took:
 * processing an incoming operation takes microseconds, an empty poll tens
 * of nanoseconds (hundreds when the caches are cold after a sleep), so a
 * poll longer than ACTIVE_NS counts as activity; a poll that took long only
 * because the ghost was preempted merely keeps it awake a little longer.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/alive.h"
#include "core/clock.h"
#include "core/config.h"
#include "core/futex.h"
#include "core/log.h"
#include "core/mpi_exit.h"
#include "ghost/board.h"
#include "ghost/icomm.h"
#include "ghost/pool.h"
#include "ghost/profile.h"
#include "ghost/segment.h"
#include "shm/heap.h"

enum {
    ACTIVE_NS = 1500, /* a poll at least this long did some work */
    SLEEP_MIN_NS = 1000,
    NAP_FRACTION = 16,      /* a sleep lasts 1/16 of the time since the last activity */
    SLICE_NS = 100000,      /* the shortest slice Linux grants */
    UNWANTED_NS = 50000000, /* a poll while no operation may come, in case the MPI wants one */
};

/* A window as a ghost holds it. */
struct served {
    uint32_t serial;
    int nwins;
    MPI_Win *wins;
    struct wisp_ghost_segment seg;
    bool heap;
    struct served *next;
};

static struct served *served;
static int ghost_index;
static uint32_t seen_seq;

static bool command_pending(void *ctx)
{
    (void)ctx;
    return atomic_load_explicit(&wisp_ghost_node.board->seq, memory_order_acquire) != seen_seq;
}

/* Whether some process of the node has its operations sent to the ghosts (async.c). */
static bool wanted(void)
{
    const struct wisp_ghost_board *b = wisp_ghost_node.board;
    return atomic_load_explicit(&b->want, memory_order_relaxed) > 0 ||
           atomic_load_explicit(&b->busy, memory_order_relaxed) > 0;
}

static bool command_or_wanted(void *ctx)
{
    return command_pending(ctx) || wanted();
}

/* Sleep on the doorbell until a command is posted, or at most `ns` (< 0: no limit). */
static void sleep_on_bell(long ns)
{
    wisp_doorbell_wait_for(&wisp_ghost_node.board->bells[ghost_index], command_pending, NULL, ns);
}

/* The ghost's side of wisp_ghost_win_allocate (win.c), in the same order.
 * Internal windows that are kept at the window's free (msg.set >= 0) are
 * the pool's from now on: the application's processes take them again
 * without asking the ghost, and nothing of the window is held here. */
static void create_window(void)
{
    struct wisp_ghost_create_msg msg;
    PMPI_Bcast(&msg, sizeof msg, MPI_BYTE, 0, wisp_ghost_node.all);
    int *members = malloc(sizeof *members * (size_t)msg.nmembers);
    struct served *s = calloc(1, sizeof *s);
    MPI_Win *wins = malloc(sizeof *wins * (size_t)msg.nwins);
    struct wisp_ghost_set *set =
        msg.set < 0 ? NULL : malloc(sizeof *set + sizeof *set->wins * (size_t)msg.nwins);
    if (!members || !s || !wins || (msg.set >= 0 && !set))
        wisp_fatal("ghost: out of memory for a window of %d processes", msg.nmembers);
    PMPI_Bcast(members, msg.nmembers, MPI_INT, 0, wisp_ghost_node.all);
    s->serial = msg.serial;
    s->nwins = msg.nwins;
    s->wins = wins;
    MPI_Comm icomm;
    int ok = wisp_ghost_icomm_get(members, msg.nmembers, &icomm);
    free(members);
    s->heap = msg.heap;
    if (s->heap) /* MPI_Win_create on the heap, which this ghost maps at the same address */
        s->seg = (struct wisp_ghost_segment){wisp_shm_heap.base, wisp_shm_heap_span()};
    else
        ok = wisp_ghost_segment_map(&s->seg, msg.seglen, 0, 0, ok) && ok; /* commits nothing */
    int all_ok = 0;
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, icomm);
    if (!all_ok) {
        if (!s->heap)
            wisp_ghost_segment_unmap(&s->seg);
        wisp_ghost_icomm_put(&icomm);
        free(set);
        free(wins);
        free(s);
        return;
    }
    for (int i = 0; i < s->nwins; i++) {
        /* The first bytes are the hidden bytes of the self-lock (served.h), then every
         * application process's memory; or the whole heap. */
        PMPI_Win_create(s->seg.base, (MPI_Aint)s->seg.len, 1, MPI_INFO_NULL, icomm, &wins[i]);
    }
    wisp_ghost_icomm_put(&icomm); /* as the application's side does (win.c) */
    wisp_log(3, "ghost %d: serving window %u (%d internal windows%s, %zu bytes)", ghost_index,
             s->serial, s->nwins, set ? ", kept for the windows after it" : "", s->seg.len);
    if (set) {
        set->id = msg.set;
        set->nwins = msg.nwins;
        memcpy(set->wins, wins, sizeof *wins * (size_t)msg.nwins);
        wisp_ghost_pool_put(set);
        free(wins);
        free(s);
        return;
    }
    s->next = served;
    served = s;
}

static void free_window(uint32_t serial)
{
    struct served **p = &served;
    while (*p && (*p)->serial != serial)
        p = &(*p)->next;
    struct served *s = *p;
    if (!s)
        wisp_fatal("ghost: asked to free window %u, which it does not serve", serial);
    *p = s->next;
    for (int i = 0; i < s->nwins; i++)
        PMPI_Win_free(&s->wins[i]);
    if (!s->heap)
        wisp_ghost_segment_unmap(&s->seg);
    free(s->wins);
    free(s);
    wisp_log(3, "ghost %d: window %u freed", ghost_index, serial);
}

/* One command; false for FINALIZE. */
static bool run_command(void)
{
    struct wisp_ghost_board *b = wisp_ghost_node.board;
    seen_seq = atomic_load_explicit(&b->seq, memory_order_acquire);
    uint32_t cmd = b->cmd, arg = b->arg;
    atomic_store_explicit(&b->taken[ghost_index], seen_seq, memory_order_release);
    switch ((enum wisp_ghost_cmd)cmd) {
    case WISP_GHOST_CMD_WIN_CREATE:
        create_window();
        return true;
    case WISP_GHOST_CMD_WIN_FREE:
        free_window(arg);
        return true;
    case WISP_GHOST_CMD_FINALIZE:
        return false;
    case WISP_GHOST_CMD_NONE:
        break;
    }
    wisp_fatal("ghost: unknown command %u", cmd);
}

/* One look into MPI's progress engine; true when it did some work. */
static bool poll_progress(void)
{
    int flag;
    unsigned long events = atomic_load_explicit(&wisp_ghost_ucx_events, memory_order_relaxed);
    uint64_t t0 = wisp_core_clock_ns();
    PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, wisp_ghost_node.all, &flag, MPI_STATUS_IGNORE);
    if (wisp_ghost_ucx_seen)
        return atomic_load_explicit(&wisp_ghost_ucx_events, memory_order_relaxed) != events;
    return wisp_core_clock_ns() - t0 >= ACTIVE_NS;
}

/* Tell an origin that sleeps for this ghost (async.c, wisp_ghost_async_flushing). */
static void served_something(void)
{
    struct wisp_ghost_served *s = &wisp_ghost_node.board->served[ghost_index];
    atomic_fetch_add_explicit(&s->seq, 1, memory_order_seq_cst);
    if (atomic_load_explicit(&s->waiters, memory_order_seq_cst))
        wisp_futex(&s->seq, FUTEX_WAKE, INT32_MAX, -1);
}

/* Ask the kernel for a short time slice (Linux 6.12+, EEVDF: sched_runtime of
 * SCHED_OTHER): a task with a shorter slice than the one running preempts it
 * when it wakes, so a ghost that wakes from a short sleep runs at once instead
 * of waiting for a computing process's slice to end. Best effort: older
 * kernels refuse or ignore it. */
static void ask_short_slice(void)
{
    struct {
        uint32_t size, policy;
        uint64_t flags;
        int32_t nice;
        uint32_t priority;
        uint64_t runtime, deadline, period;
    } attr = {.size = sizeof attr, .policy = SCHED_OTHER, .runtime = SLICE_NS};
    if (syscall(SYS_sched_setattr, 0, &attr, 0))
        wisp_log(3, "ghost %d: no short time slice (sched_setattr: %m)", ghost_index);
}

_Noreturn void wisp_ghost_serve(int ghost)
{
    ghost_index = ghost;
    /* Short sleeps must be short: the default timer slack would add 50 us to each. */
    prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
    ask_short_slice();
    const uint64_t spin_ns = (uint64_t)wisp_config.GHOST_SPIN * 1000u;
    const long sleep_max_ns = (long)wisp_config.GHOST_SLEEP * 1000;
    wisp_log(2, "ghost %d of its node, waiting for commands", ghost);

    uint64_t last_active = wisp_core_clock_ns();
    for (;;) {
        if (command_pending(NULL)) {
            if (!run_command())
                break;
            last_active = wisp_core_clock_ns();
            continue;
        }
        if (!served &&
            wisp_ghost_pool_empty()) { /* no window in use: the next comes by a command */
            sleep_on_bell(-1);
            continue;
        }
        /* The first ghost judges the node's live profiles (profile.h). */
        long judge_in = ghost_index == 0 ? wisp_ghost_profile_judge_node() : UNWANTED_NS;
        if (!wanted()) {
            /* Every route of the node's processes is direct: nothing comes
             * here until one wants a ghost and rings (or an origin sends a
             * put or a get by a live profile, and rings). A rare poll still
             * answers what the MPI might send a window's member anyway.
             * Work found (a live profile's operations, which their origin's
             * flush may wait for without ringing) keeps the ghost polling
             * until it has been idle as long as a wanted one spins. */
            if (poll_progress()) {
                last_active = wisp_core_clock_ns();
                served_something();
                continue;
            }
            if (wisp_core_clock_ns() - last_active < 2 * spin_ns)
                continue;
            wisp_doorbell_wait_for(&wisp_ghost_node.board->bells[ghost_index], command_or_wanted,
                                   NULL, judge_in < UNWANTED_NS ? judge_in : UNWANTED_NS);
            continue;
        }
        if (poll_progress()) {
            last_active = wisp_core_clock_ns();
            served_something();
            continue;
        }
        uint64_t idle = wisp_core_clock_ns() - last_active;
        if (idle < spin_ns)
            continue;
        if (idle < 2 * spin_ns) {
            sched_yield();
            continue;
        }
        /* Sleep a fixed fraction of the time since the last activity: the polls
         * of a long idle period cost little, an operation after a short one
         * waits little. */
        long sleep_ns = (long)(idle / NAP_FRACTION);
        sleep_on_bell(sleep_ns < SLEEP_MIN_NS   ? SLEEP_MIN_NS
                      : sleep_ns > sleep_max_ns ? sleep_max_ns
                                                : sleep_ns);
    }
    /* The application finalizes; windows it never freed are freed by then (win.c). */
    wisp_ghost_pool_release();
    wisp_ghost_icomm_release();
    wisp_core_alive_finalize();
    wisp_core_mpi_exit_run(); /* MPICH 5's PMI finalize, as at its exit */
    fflush(NULL);
    _exit(0); /* the application's code after MPI_Init never runs here */
}
