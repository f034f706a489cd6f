/*
 * The application's profile (profile.h).
 */
#include "core/profile.h"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/config.h"
#include "core/topo.h"

/* Where processes and ghosts have no core of their own, a ghost serves an
 * operation only after it took a core from a process, which cost more than
 * waiting for the target in rma_crossover's epochs against computations of
 * 0.25-0.75 ms (docs/ghosts.md); a progress thread's look likewise. */
uint64_t wisp_core_profile_gap_ns(void)
{
    enum { OWN_CORE_US = 50, NO_CORE_US = 5000 };
    int64_t us = wisp_config.ASYNC_GAP        ? wisp_config.ASYNC_GAP
                 : wisp_topo_oversubscribed() ? NO_CORE_US
                                              : OWN_CORE_US;
    return (uint64_t)us * 1000u;
}

/* What a process that was `computing` is after a stretch with `fraction`
 * of its time with MPI. */
static bool judge(bool computing, double fraction)
{
    if (fraction * 100 > (double)wisp_config.ASYNC_OFF_ABOVE)
        return false;
    if (fraction * 100 < (double)wisp_config.ASYNC_ON_BELOW)
        return true;
    return computing;
}

uint64_t wisp_core_profile_away(struct wisp_core_live *live, uint64_t now, uint64_t gap)
{
    uint64_t away = atomic_load_explicit(&live->away, memory_order_relaxed);
    uint64_t last = atomic_load_explicit(&live->last_exit, memory_order_relaxed);
    if (last && !atomic_load_explicit(&live->inside, memory_order_relaxed) && now > last &&
        now - last > gap)
        away += now - last;
    return away;
}

uint64_t wisp_core_profile_waited(int pid)
{
    /* Read and closed each time: a stretch is tens of milliseconds. */
    unsigned long long ran = 0, waited = 0;
    char path[48] = "/proc/self/schedstat";
    if (pid)
        snprintf(path, sizeof path, "/proc/%d/schedstat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    char text[96];
    ssize_t n = fd < 0 ? -1 : read(fd, text, sizeof text - 1);
    if (fd >= 0)
        close(fd);
    if (n <= 0)
        return 0;
    text[n] = '\0';
    if (sscanf(text, "%llu %llu", &ran, &waited) != 2)
        return 0;
    return wisp_core_ns_to_ticks(waited);
}

bool wisp_core_profile_stretch(struct wisp_core_stretch *s, uint64_t now, uint64_t away,
                               uint64_t waited, uint64_t interval)
{
    if (!s->at) {
        *s = (struct wisp_core_stretch){
            .at = now, .away = away, .waited = waited, .computing = true};
    } else if (now - s->at >= interval) {
        /* The wait is taken off both, away from MPI first (where a process
         * between two calls is likeliest to lose its core). */
        uint64_t off = waited - s->waited, wall = now - s->at, gone = away - s->away;
        wall = wall > off ? wall - off : 0;
        gone = gone > off ? gone - off : 0;
        double f = wall ? 1 - (double)gone / (double)wall : 1;
        s->fraction = f < 0 ? 0 : f; /* several threads may be away at once */
        s->computing = judge(s->computing, s->fraction);
        s->at = now;
        s->away = away;
        s->waited = waited;
    }
    return s->computing;
}
