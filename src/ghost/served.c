/*
 * The windows this process serves with ghosts (win.h): the table from the
 * application's MPI_Win to wisp's state, which the operations (async.c,
 * redirect.c, ...) look up and win.c fills at creation and empties at free.
 */
#include <pthread.h>
#include <stdatomic.h>

#include "ghost/win.h"

_Atomic int wisp_ghost_nserved;
bool wisp_ghost_threaded;
static struct wisp_ghost_win *served; /* oldest first */
static pthread_mutex_t served_lock = PTHREAD_MUTEX_INITIALIZER;

struct wisp_ghost_win *wisp_ghost_win_lookup(MPI_Win win)
{
    if (wisp_ghost_threaded) /* another thread may be adding or removing a window */
        pthread_mutex_lock(&served_lock);
    struct wisp_ghost_win *w = served;
    while (w && w->win != win)
        w = w->next;
    if (wisp_ghost_threaded)
        pthread_mutex_unlock(&served_lock);
    return w;
}

void wisp_ghost_served_add(struct wisp_ghost_win *w)
{
    pthread_mutex_lock(&served_lock);
    struct wisp_ghost_win **p = &served;
    while (*p)
        p = &(*p)->next;
    *p = w;
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
        atomic_fetch_sub_explicit(&wisp_ghost_nserved, 1, memory_order_relaxed);
    }
    pthread_mutex_unlock(&served_lock);
}

struct wisp_ghost_win *wisp_ghost_served_first(void)
{
    return served;
}
