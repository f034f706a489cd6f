/*
 * The windows this process serves with ghosts (served.h): the table from the
 * application's MPI_Win to wisp's state, which the operations (async.c,
 * redirect.c, ...) look up and win.c fills at creation and empties at free.
 * Every one-sided call on any window asks it (NWChem polls
 * MPI_Win_flush_local_all millions of times, among dozens of windows), so
 * it is a hash table of the handles; a list keeps them oldest first for
 * MPI_Finalize.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "ghost/served.h"

#include "core/wrapper.h"

enum { BUCKETS = 256 };

_Atomic int wisp_ghost_nserved;
bool wisp_ghost_threaded;
static struct wisp_ghost_win *served; /* oldest first */
static struct wisp_ghost_win *bucket[BUCKETS];
static pthread_mutex_t served_lock = PTHREAD_MUTEX_INITIALIZER;

/* MPICH's handles are ints, Open MPI's pointers: the top bits of a product. */
static unsigned bucket_of(MPI_Win win)
{
    return (unsigned)(((uint64_t)(uintptr_t)win * 0x9E3779B97F4A7C15u) >> 56);
}

struct wisp_ghost_win *wisp_ghost_win_lookup(MPI_Win win)
{
    if (wisp_ghost_threaded) /* another thread may be adding or removing a window */
        pthread_mutex_lock(&served_lock);
    struct wisp_ghost_win *w = bucket[bucket_of(win)];
    while (w && w->win != win)
        w = w->same_bucket;
    if (wisp_ghost_threaded)
        pthread_mutex_unlock(&served_lock);
    return w;
}

void wisp_ghost_served_add(struct wisp_ghost_win *w)
{
    wisp_core_begin(WISP_CORE_WINDOWS); /* before the application has the handle */
    pthread_mutex_lock(&served_lock);
    struct wisp_ghost_win **p = &served;
    while (*p)
        p = &(*p)->next;
    *p = w;
    w->bucket = bucket_of(w->win);
    struct wisp_ghost_win **b = &bucket[w->bucket];
    w->same_bucket = *b;
    *b = w;
    atomic_fetch_add_explicit(&wisp_ghost_nserved, 1, memory_order_relaxed);
    pthread_mutex_unlock(&served_lock);
}

void wisp_ghost_served_remove(struct wisp_ghost_win *w)
{
    pthread_mutex_lock(&served_lock);
    struct wisp_ghost_win **p = &served;
    while (*p && *p != w)
        p = &(*p)->next;
    if (*p) {
        *p = w->next;
        struct wisp_ghost_win **b = &bucket[w->bucket]; /* w->win is MPI_WIN_NULL by now */
        while (*b != w)
            b = &(*b)->same_bucket;
        *b = w->same_bucket;
        atomic_fetch_sub_explicit(&wisp_ghost_nserved, 1, memory_order_relaxed);
    }
    pthread_mutex_unlock(&served_lock);
}

struct wisp_ghost_win *wisp_ghost_served_first(void)
{
    return served;
}
