/*
 * The profiles adaptive progress decides from (profile.h, async.h).
 *
 * A process's profile is the fraction of its time it spent with MPI over
 * the last stretch of at least WISP_ASYNC_INTERVAL ms: all but the gaps
 * between two of its MPI calls (outermost, any thread) longer than
 * WISP_ASYNC_GAP us, since a process that calls MPI more often than that,
 * as a loop of polls does, answers an operation within that delay itself.
 * Two thresholds: above WISP_ASYNC_OFF_ABOVE percent the process is with
 * MPI nearly all the time
 * and progresses the operations on it itself, so they go to it directly;
 * below WISP_ASYNC_ON_BELOW percent it computes and they go to a ghost;
 * between the two it keeps what it had (hysteresis), so that a process near
 * one threshold does not flip at every safe point. Before its first
 * interval ends a process counts as computing (the ghost serves, as with
 * WISP_ASYNC=on).
 *
 * The live profile (Casper(GP)): the wrappers of every application process
 * write its time away from MPI, its last call's end and whether it is
 * inside a call to its slot of the node's board (wrap/account.h); the
 * node's first ghost judges them every WISP_ASYNC_INTERVAL, counting the gap
 * under way too, and writes the verdict beside them for the origins.
 */
#include "ghost/profile.h"

#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "core/config.h"
#include "core/topo.h"
#include "ghost/board.h"
#include "wrap/account.h"

static struct {
    pthread_mutex_t lock;
    uint64_t at, away_ns; /* start of the current interval, and time away from MPI then */
    bool computing;       /* what the last interval said */
    double fraction;      /* of the last stretch spent with MPI */
} profile = {.lock = PTHREAD_MUTEX_INITIALIZER, .computing = true};

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* WISP_ASYNC_GAP, or by the machine: where the ghosts have no core of their
 * own, a ghost serves an operation only after it took a core from a
 * process, which cost more than waiting for the target in rma_crossover's
 * epochs against computations of 0.25-0.75 ms (docs/ghosts.md). */
static uint64_t gap_ns(void)
{
    enum { OWN_CORE_US = 50, NO_CORE_US = 5000 };
    int64_t us = wisp_config.ASYNC_GAP        ? wisp_config.ASYNC_GAP
                 : wisp_topo_oversubscribed() ? NO_CORE_US
                                              : OWN_CORE_US;
    return (uint64_t)us * 1000u;
}

void wisp_ghost_profile_start(void)
{
    if (wisp_ghost_node.all_rank < WISP_GHOST_LIVE_MAX)
        wisp_wrap_account_share(&wisp_ghost_node.board->live[wisp_ghost_node.all_rank].p);
    wisp_wrap_account_start(false, gap_ns());
    profile.at = now_ns();
}

/* Hysteresis: what a process that was `computing` is after spending
 * `fraction` of a stretch with MPI. */
static bool judge(bool computing, double fraction)
{
    if (fraction * 100 > (double)wisp_config.ASYNC_OFF_ABOVE)
        return false;
    if (fraction * 100 < (double)wisp_config.ASYNC_ON_BELOW)
        return true;
    return computing;
}

/* Whether this process computes (its operations want a ghost), from the
 * last interval that ended. */
bool wisp_ghost_profile_computing(void)
{
    pthread_mutex_lock(&profile.lock);
    uint64_t now = now_ns(), away = wisp_wrap_account_away_ns();
    uint64_t wall = now - profile.at;
    if (wall >= (uint64_t)wisp_config.ASYNC_INTERVAL * 1000000u) {
        double f = 1 - (double)(away - profile.away_ns) / (double)wall;
        profile.fraction = f < 0 ? 0 : f; /* several threads may be away at once */
        profile.computing = judge(profile.computing, profile.fraction);
        profile.at = now;
        profile.away_ns = away;
    }
    bool c = profile.computing;
    pthread_mutex_unlock(&profile.lock);
    return c;
}

double wisp_ghost_profile_fraction(void)
{
    return profile.fraction;
}

long wisp_ghost_profile_judge_node(void)
{
    static uint64_t interval, gap, at, before[WISP_GHOST_LIVE_MAX];
    if (!interval) {
        interval = wisp_wrap_ns_to_ticks((uint64_t)wisp_config.ASYNC_INTERVAL * 1000000u);
        gap = wisp_wrap_ns_to_ticks(gap_ns());
    }
    uint64_t now = wisp_wrap_ticks();
    if (at && now - at < interval)
        return (long)((double)(interval - (now - at)) * (double)wisp_config.ASYNC_INTERVAL * 1e6 /
                      (double)interval);
    int n =
        wisp_ghost_node.users < WISP_GHOST_LIVE_MAX ? wisp_ghost_node.users : WISP_GHOST_LIVE_MAX;
    for (int i = 0; i < n; i++) {
        struct wisp_wrap_live *p = &wisp_ghost_node.board->live[i].p;
        /* The gap under way counts already; its end adds it whole, less what was counted. */
        uint64_t away = atomic_load_explicit(&p->away, memory_order_relaxed);
        uint64_t last = atomic_load_explicit(&p->last_exit, memory_order_relaxed);
        if (last && !atomic_load_explicit(&p->inside, memory_order_relaxed) && now > last &&
            now - last > gap)
            away += now - last;
        if (at) {
            double f = 1 - (double)(away - before[i]) / (double)(now - at);
            bool c = atomic_load_explicit(&p->computing, memory_order_relaxed);
            atomic_store_explicit(&p->computing, judge(c, f < 0 ? 0 : f), memory_order_relaxed);
        } else {
            atomic_store_explicit(&p->computing, 1, memory_order_relaxed);
        }
        before[i] = away;
    }
    at = now;
    return (long)wisp_config.ASYNC_INTERVAL * 1000000L;
}

int wisp_ghost_profile_live(int local)
{
    if (local >= WISP_GHOST_LIVE_MAX)
        return -1;
    return (int)atomic_load_explicit(&wisp_ghost_node.board->live[local].p.computing,
                                     memory_order_relaxed);
}
