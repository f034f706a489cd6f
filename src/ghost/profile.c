/*
 * The profiles adaptive progress decides from (profile.h, async.h), kept
 * and judged as core/profile.h describes. Above WISP_ASYNC_OFF_ABOVE a
 * process is with MPI nearly all the time and progresses the operations on
 * it itself, so they go to it directly; below WISP_ASYNC_ON_BELOW it
 * computes and they go to a ghost. Before its first interval ends a process
 * counts as computing (the ghost serves, as with WISP_ASYNC=on).
 *
 * The live profile (Casper(GP)): the wrappers of every application process
 * write its time away from MPI, its last call's end and whether it is
 * inside a call to its slot of the node's board (core/account.h); the
 * node's first ghost judges them every WISP_ASYNC_INTERVAL, counting the gap
 * under way too, and writes the verdict beside them for the origins.
 */
#include "ghost/profile.h"

#include <pthread.h>
#include <stdint.h>

#include "core/clock.h"
#include "core/config.h"
#include "core/profile.h"
#include "ghost/board.h"

static struct {
    pthread_mutex_t lock;
    struct wisp_core_stretch stretch;
} profile = {.lock = PTHREAD_MUTEX_INITIALIZER};

static uint64_t interval_ticks(void)
{
    return wisp_core_ns_to_ticks((uint64_t)wisp_config.ASYNC_INTERVAL * 1000000u);
}

void wisp_ghost_profile_start(void)
{
    if (wisp_ghost_node.all_rank < WISP_GHOST_LIVE_MAX)
        wisp_core_account_share(&wisp_ghost_node.board->live[wisp_ghost_node.all_rank].p);
    wisp_core_account_start(false, wisp_core_profile_gap_ns());
    uint64_t now = wisp_core_ticks();
    wisp_core_profile_stretch(&profile.stretch, now,
                              wisp_core_profile_away(wisp_core_account_live(), now, UINT64_MAX),
                              wisp_core_profile_waited(0), 0);
}

/* Whether this process computes (its operations want a ghost), from the
 * last interval that ended; asked from inside a call, so no gap is under
 * way. */
bool wisp_ghost_profile_computing(void)
{
    pthread_mutex_lock(&profile.lock);
    uint64_t now = wisp_core_ticks();
    bool c = wisp_core_profile_stretch(
        &profile.stretch, now, wisp_core_profile_away(wisp_core_account_live(), now, UINT64_MAX),
        wisp_core_profile_waited(0), interval_ticks());
    pthread_mutex_unlock(&profile.lock);
    return c;
}

double wisp_ghost_profile_fraction(void)
{
    return profile.stretch.fraction;
}

long wisp_ghost_profile_judge_node(void)
{
    static uint64_t interval, gap, at;
    static struct wisp_core_stretch stretches[WISP_GHOST_LIVE_MAX];
    if (!interval) {
        interval = interval_ticks();
        gap = wisp_core_ns_to_ticks(wisp_core_profile_gap_ns());
    }
    uint64_t now = wisp_core_ticks();
    if (at && now - at < interval)
        return (long)((double)(interval - (now - at)) * (double)wisp_config.ASYNC_INTERVAL * 1e6 /
                      (double)interval);
    int n =
        wisp_ghost_node.users < WISP_GHOST_LIVE_MAX ? wisp_ghost_node.users : WISP_GHOST_LIVE_MAX;
    for (int i = 0; i < n; i++) {
        struct wisp_core_live *p = &wisp_ghost_node.board->live[i].p;
        int pid = atomic_load_explicit(&p->pid, memory_order_relaxed);
        bool c = wisp_core_profile_stretch(&stretches[i], now, wisp_core_profile_away(p, now, gap),
                                           pid ? wisp_core_profile_waited(pid) : 0, interval);
        atomic_store_explicit(&p->computing, c, memory_order_relaxed);
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
