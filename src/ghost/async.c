/*
 * Adaptive asynchronous progress (async.h): the routes of a served window,
 * the safe points where they change, and an origin's wait for a ghost that
 * shares its core.
 *
 * The profile a process in `auto` decides from is profile.c's.
 *
 * Every process applies the same wishes at the same safe point, so all
 * origins send a target's operations the same way between two safe points:
 * the lock on the target, the order and the atomicity of accumulates stay
 * with one process (the ghost or the target itself). A safe point at which
 * some process still has an epoch open on the window changes nothing.
 *
 * The node's board counts the (window, process) pairs whose route is
 * `ghost`: while none is, the node's ghosts have nothing to serve and sleep
 * long (serve.c); the process that makes the count leave 0 rings them.
 */
#include "ghost/async.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/clock.h"
#include "core/config.h"
#include "core/futex.h"
#include "core/init.h"
#include "core/log.h"
#include "core/topo.h"
#include "ghost/board.h"
#include "ghost/issue.h"
#include "ghost/profile.h"

#pragma GCC diagnostic ignored "-Wdeprecated-declarations" /* MPI_Info_get, in both MPIs */

enum {
    WISH_GHOST = 1, /* operations on this process go to a ghost */
    WISH_AUTO = 2,  /* it decides from its profile: fences exchange wishes */
    WISH_OPEN = 4,  /* it has an epoch open on the window: nothing may switch */
};

enum {
    LOOK_NS = 5000,    /* an origin watches its ghost this long before it sleeps for it */
    YIELD_NS = 200000, /* the longest an origin sleeps for its ghost */
};

/* The row of WISP_ASYNC in the configuration table: the info key
 * async_config takes and gives its words, in the order of enum
 * wisp_config_async. */
static const struct wisp_config_var *async_var(void)
{
    const struct wisp_config_var *var = wisp_core_config_var("WISP_ASYNC");
    if (!var)
        wisp_fatal("WISP_ASYNC is not in the configuration table");
    return var;
}

void wisp_ghost_async_start(void)
{
    /* The info key may ask for auto on any window: the profile is always kept. */
    wisp_ghost_profile_start();
}

enum wisp_config_async wisp_ghost_async_mode(MPI_Info info, enum wisp_config_async fallback,
                                             bool say)
{
    char value[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    if (info == MPI_INFO_NULL ||
        PMPI_Info_get(info, "async_config", MPI_MAX_INFO_VAL, value, &flag) != MPI_SUCCESS || !flag)
        return fallback;
    const char *word;
    size_t len;
    for (int m = 0; (word = wisp_core_config_word(async_var(), m, &len)); m++)
        if (len == strlen(value) && strncasecmp(value, word, len) == 0)
            return (enum wisp_config_async)m;
    if (say) {
        char words[128];
        wisp_core_config_accepted(async_var(), words, sizeof words);
        wisp_log(1, "window info async_config='%s' is not understood (%s): ignored", value, words);
    }
    return fallback;
}

int wisp_ghost_async_live(const struct wisp_ghost_win *w, const struct wisp_ghost_op *o,
                          MPI_Win iwin)
{
    const struct wisp_ghost_target *t = &w->t[o->target];
    if ((o->kind != WISP_GHOST_PUT && o->kind != WISP_GHOST_GET) || iwin != w->global ||
        !(w->wishes[o->target] & WISH_AUTO) || !t->here || t->local >= WISP_GHOST_LIVE_MAX)
        return -1;
    return wisp_ghost_profile_live(t->local);
}

int wisp_ghost_async_wish(const struct wisp_ghost_win *w)
{
    bool open = (w->access != WISP_GHOST_NO_ACCESS && w->access != WISP_GHOST_FENCE) || w->exposed;
    bool ghost = w->async_mode == WISP_ASYNC_ON ||
                 (w->async_mode == WISP_ASYNC_AUTO && wisp_ghost_profile_computing());
    return (ghost ? WISH_GHOST : 0) | (w->async_mode == WISP_ASYNC_AUTO ? WISH_AUTO : 0) |
           (open ? WISH_OPEN : 0);
}

/* This process's own route became `ghost` (+1) or not (-1): the board's count. */
static void want_ghost(int d)
{
    struct wisp_ghost_board *b = wisp_ghost_node.board;
    if (atomic_fetch_add_explicit(&b->want, (uint32_t)d, memory_order_seq_cst) == 0 && d > 0)
        for (int g = 0; g < wisp_ghost_node.ghosts; g++)
            wisp_doorbell_ring(&b->bells[g]);
}

static const char *const point_names[] = {
#define WISP_ASYNC_POINT(point, name) [point] = name,
    WISP_ASYNC_POINTS(WISP_ASYNC_POINT)
#undef WISP_ASYNC_POINT
};

void wisp_ghost_async_apply(struct wisp_ghost_win *w, const int *wishes,
                            enum wisp_async_point point)
{
    bool open = false, adaptive = false;
    for (int r = 0; r < w->size; r++) {
        open |= wishes[r] & WISH_OPEN;
        adaptive |= wishes[r] & WISH_AUTO;
    }
    w->adaptive = adaptive;
    if (open) {
        wisp_log(2, "window %u: routes kept at %s: a process had an epoch open", w->serial,
                 point_names[point]);
        return;
    }
    for (int r = 0; r < w->size; r++) {
        unsigned char ghost = (wishes[r] & WISH_GHOST) != 0;
        if (w->route[r] == ghost)
            continue;
        w->route[r] = ghost;
        if (r != w->rank)
            continue;
        want_ghost(ghost ? 1 : -1);
        if (point != WISP_ASYNC_AT_CREATE)
            w->nswitch[point]++;
        wisp_log(3,
                 "window %u: operations on this process go %s from this %s on (%.0f%% of the "
                 "last interval in MPI)",
                 w->serial, ghost ? "to a ghost" : "to it directly", point_names[point],
                 wisp_ghost_profile_fraction() * 100);
    }
}

int wisp_ghost_async_exchange(struct wisp_ghost_win *w, enum wisp_async_point point)
{
    int mine = wisp_ghost_async_wish(w);
    int rc = PMPI_Allgather(&mine, 1, MPI_INT, w->wishes, 1, MPI_INT, w->comm);
    if (rc == MPI_SUCCESS)
        wisp_ghost_async_apply(w, w->wishes, point);
    return rc;
}

void wisp_ghost_async_forget(struct wisp_ghost_win *w)
{
    if (w->route[w->rank])
        want_ghost(-1);
    wisp_log(2,
             "window %u: the route to this process switched %u times (%u at fences, %u at "
             "MPI_Win_set_info), ends %s; this origin sent %" PRIu64
             " operations to ghosts, %" PRIu64 " directly, %" PRIu64
             " of them by the target's live profile",
             w->serial, w->nswitch[WISP_ASYNC_AT_FENCE] + w->nswitch[WISP_ASYNC_AT_HINT],
             w->nswitch[WISP_ASYNC_AT_FENCE], w->nswitch[WISP_ASYNC_AT_HINT],
             w->route[w->rank] ? "on (ghost)" : "off (direct)", w->nghost, w->ndirect, w->nlive);
}

/* The served count of target `rank`'s bound ghost, when it is on this node. */
static struct wisp_ghost_served *served_by(const struct wisp_ghost_win *w, int rank)
{
    const struct wisp_ghost_target *t = &w->t[rank];
    return wisp_topo_oversubscribed() && t->here
               ? &wisp_ghost_node.board->served[t->ghost - t->ghost0]
               : NULL;
}

void wisp_ghost_async_issuing(struct wisp_ghost_win *w, int rank)
{
    struct wisp_ghost_served *s = served_by(w, rank);
    if (s)
        atomic_store_explicit(&w->ts[rank].served,
                              atomic_load_explicit(&s->seq, memory_order_acquire),
                              memory_order_relaxed);
}

int wisp_ghost_async_flush_all(const struct wisp_ghost_win *w, MPI_Win iwin, bool local)
{
    struct wisp_ghost_board *b = wisp_ghost_node.board;
    atomic_fetch_add_explicit(&b->busy, 1, memory_order_seq_cst);
    for (int g = 0; g < wisp_ghost_node.ghosts; g++)
        wisp_doorbell_ring(&b->bells[g]);
    int rc = wisp_ghost_flush_each(w, iwin, local);
    atomic_fetch_sub_explicit(&b->busy, 1, memory_order_seq_cst);
    return rc;
}

void wisp_ghost_async_flushing(struct wisp_ghost_win *w, int rank)
{
    struct wisp_ghost_served *s = served_by(w, rank);
    if (!s)
        return;
    /* A ghost that runs serves within a microsecond or two: look for that
     * first; only one that does not run needs this core. */
    static uint64_t look;
    if (!look)
        look = wisp_core_ns_to_ticks(LOOK_NS);
    uint32_t seen = atomic_load_explicit(&w->ts[rank].served, memory_order_relaxed);
    for (uint64_t until = wisp_core_ticks() + look;
         atomic_load_explicit(&s->seq, memory_order_acquire) == seen;)
        if (wisp_core_ticks() > until)
            break;
    if (atomic_load_explicit(&s->seq, memory_order_acquire) != seen)
        return; /* served since */
    atomic_fetch_add(&s->waiters, 1);
    const struct wisp_ghost_target *t = &w->t[rank];
    wisp_doorbell_ring(&wisp_ghost_node.board->bells[t->ghost - t->ghost0]);
    wisp_futex(&s->seq, FUTEX_WAIT, seen, YIELD_NS); /* shared: not _PRIVATE */
    atomic_fetch_sub(&s->waiters, 1);
}

int wisp_ghost_win_set_info(MPI_Win win, MPI_Info info)
{
    int rc = PMPI_Win_set_info(win, info);
    struct wisp_ghost_win *w = wisp_ghost_win_find(win);
    if (!w || rc != MPI_SUCCESS)
        return rc;
    w->async_mode = wisp_ghost_async_mode(info, w->async_mode, w->rank == 0);
    /* The hint says that this process's operations are complete; after a
     * fence they may still be in flight in `global`. */
    if (w->access == WISP_GHOST_FENCE)
        rc = wisp_ghost_async_flush_all(w, w->global, false);
    int rc2 = wisp_ghost_async_exchange(w, WISP_ASYNC_AT_HINT);
    return wisp_ghost_win_error(w, rc == MPI_SUCCESS ? rc2 : rc);
}

int wisp_ghost_win_get_info(MPI_Win win, MPI_Info *info)
{
    int rc = PMPI_Win_get_info(win, info);
    struct wisp_ghost_win *w = wisp_ghost_win_find(win);
    if (!w || rc != MPI_SUCCESS)
        return rc;
    /* What this origin sent each way so far: how a test sees the live profile work. */
    char ghosts[24], direct[24];
    wisp_ghost_books_lock(w);
    snprintf(ghosts, sizeof ghosts, "%" PRIu64, w->nghost);
    snprintf(direct, sizeof direct, "%" PRIu64, w->ndirect);
    wisp_ghost_books_unlock(w);
    size_t len;
    const char *word = wisp_core_config_word(
        async_var(), w->route[w->rank] ? WISP_ASYNC_ON : WISP_ASYNC_OFF, &len);
    char route[16];
    snprintf(route, sizeof route, "%.*s", (int)len, word);
    rc = PMPI_Info_set(*info, "async_config", route);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Info_set(*info, "wisp_ops_to_ghosts", ghosts);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Info_set(*info, "wisp_ops_direct", direct);
    return rc;
}
