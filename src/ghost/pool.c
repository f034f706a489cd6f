/* Internal windows kept for the next served window (pool.h). */
#include "ghost/pool.h"

#include <pthread.h>
#include <stdlib.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER; /* threads free windows at once */
static struct wisp_ghost_set *kept;                      /* the last one kept first */
static int made;                                         /* sets made: the next id */

void wisp_ghost_pool_vote(struct wisp_ghost_pool_vote *v, bool poolable, int nwins)
{
    v->set = poolable ? malloc(sizeof *v->set + sizeof(MPI_Win) * (size_t)nwins) : NULL;
    int top = -1;
    if (v->set) {
        v->set->nwins = nwins;
        pthread_mutex_lock(&lock);
        for (const struct wisp_ghost_set *s = kept; s && top < 0; s = s->next)
            if (s->nwins == nwins)
                top = s->id;
        pthread_mutex_unlock(&lock);
    }
    v->vote[WISP_GHOST_POOL_OK] = v->set != NULL;
    v->vote[WISP_GHOST_POOL_TOP] = top;
    v->vote[WISP_GHOST_POOL_TOP_NEG] = -top;
}

bool wisp_ghost_pool_decide(struct wisp_ghost_pool_vote *v, const int *minima,
                            struct wisp_ghost_set **set)
{
    int top = minima[WISP_GHOST_POOL_TOP];
    if (!minima[WISP_GHOST_POOL_OK]) { /* some member cannot keep it: nobody does */
        free(v->set);
        *set = NULL;
        return false;
    }
    if (top >= 0 && top == -minima[WISP_GHOST_POOL_TOP_NEG]) {
        pthread_mutex_lock(&lock);
        struct wisp_ghost_set **p = &kept;
        while ((*p)->id != top) /* on top for its size in every member: here */
            p = &(*p)->next;
        *set = *p;
        *p = (*p)->next;
        pthread_mutex_unlock(&lock);
        free(v->set);
        return true;
    }
    v->set->id = made++; /* every member makes this set: the same count */
    *set = v->set;
    return false;
}

void wisp_ghost_pool_put(struct wisp_ghost_set *set)
{
    pthread_mutex_lock(&lock);
    set->next = kept;
    kept = set;
    pthread_mutex_unlock(&lock);
}

bool wisp_ghost_pool_empty(void)
{
    return kept == NULL;
}

void wisp_ghost_pool_release(void)
{
    /* Oldest first, whatever order the frees left them in: the same order
     * in every member, which all hold every set by now. */
    while (kept) {
        struct wisp_ghost_set **oldest = &kept;
        for (struct wisp_ghost_set **p = &kept; *p; p = &(*p)->next)
            if ((*p)->id < (*oldest)->id)
                oldest = p;
        struct wisp_ghost_set *s = *oldest;
        *oldest = s->next;
        for (int i = 0; i < s->nwins; i++)
            PMPI_Win_free(&s->wins[i]);
        free(s);
    }
    made = 0;
}
