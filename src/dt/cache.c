/*
 * The descriptions of the types in use, one per handle, so that a type is
 * flattened once, not per message. An open-addressing table under one
 * mutex: a hit is a hash, a probe or two and a reference taken. A type
 * the engine refuses is remembered too, so that asking again is as cheap.
 *
 * The MPI gives a freed handle to the next new type, so an entry must not
 * outlive its type's free: wisp_dt_forget, called when a derived type is
 * freed, drops its entry and the table's reference to its description (a
 * type made from it has its own: freeing the one leaves the other valid).
 * A description a caller holds lives on until its last reference goes.
 * Flattening runs outside the mutex; two threads that miss on the same
 * handle both flatten it and the second keeps the first's.
 */
#include "dt/dt.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_SLOTS = 1 << 14 }; /* past half of it, the derived types' entries go */

struct slot {
    MPI_Datatype type;
    wisp_dt_desc_t *desc; /* NULL: refused with `status` */
    wisp_dt_status_t status;
    bool used;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct slot *table;
static size_t slots, used, derived;

static size_t hash(MPI_Datatype type)
{
    uint64_t key = 0;
    memcpy(&key, &type, sizeof type < sizeof key ? sizeof type : sizeof key);
    return (size_t)((key * 0x9e3779b97f4a7c15u) >> 17);
}

static struct slot *find(MPI_Datatype type)
{
    if (!slots)
        return NULL;
    for (size_t i = hash(type) & (slots - 1);; i = (i + 1) & (slots - 1)) {
        if (!table[i].used)
            return NULL;
        if (table[i].type == type)
            return &table[i];
    }
}

static void put(struct slot *t, size_t n, struct slot s)
{
    size_t i = hash(s.type) & (n - 1);
    while (t[i].used)
        i = (i + 1) & (n - 1);
    t[i] = s;
}

/* A table of n slots with the entries kept (all, or the named types'
 * only); the others' references dropped. False without memory. */
static bool rebuild(size_t n, bool keep_derived)
{
    struct slot *t = calloc(n, sizeof *t);
    if (!t)
        return false;
    used = derived = 0;
    for (size_t i = 0; i < slots; i++) {
        struct slot s = table[i];
        if (!s.used)
            continue;
        bool is_named = s.desc && s.desc->named;
        if (is_named || keep_derived) {
            put(t, n, s);
            used++;
            derived += !is_named;
        } else if (s.desc) {
            wisp_dt_desc_release(s.desc);
        }
    }
    free(table);
    table = t;
    slots = n;
    return true;
}

/* Record `type`'s answer; the caller holds the lock. */
static void insert(MPI_Datatype type, wisp_dt_desc_t *desc, wisp_dt_status_t status)
{
    if (2 * (used + 1) > slots) {
        size_t n = slots ? 2 * slots : 64;
        if (n > MAX_SLOTS ? !rebuild(slots, false) : !rebuild(n, true))
            return;
        if (2 * (used + 1) > slots)
            return; /* named types fill it: serve without caching */
    }
    put(table, slots, (struct slot){.type = type, .desc = desc, .status = status, .used = true});
    used++;
    derived += !(desc && desc->named);
    if (desc)
        wisp_dt_desc_hold(desc);
}

wisp_dt_status_t wisp_dt_desc_get(MPI_Datatype type, wisp_dt_desc_t **desc)
{
    if (type == MPI_DATATYPE_NULL)
        return WISP_DT_MPI_ERROR;
    pthread_mutex_lock(&lock);
    struct slot *s = find(type);
    if (s) {
        wisp_dt_status_t rc = s->status;
        if (s->desc)
            *desc = wisp_dt_desc_hold(s->desc);
        pthread_mutex_unlock(&lock);
        return rc;
    }
    pthread_mutex_unlock(&lock);

    wisp_dt_desc_t *d = NULL;
    wisp_dt_status_t rc = wisp_dt_desc_flatten(type, &d);
    if (rc == WISP_DT_NOMEM || rc == WISP_DT_MPI_ERROR)
        return rc; /* not the type's fault: ask again next time */
    pthread_mutex_lock(&lock);
    s = find(type);
    if (s) { /* another thread was quicker */
        if (d)
            wisp_dt_desc_release(d);
        d = s->desc ? wisp_dt_desc_hold(s->desc) : NULL;
        rc = s->status;
    } else {
        insert(type, d, rc);
    }
    pthread_mutex_unlock(&lock);
    if (d)
        *desc = d;
    return rc;
}

wisp_dt_desc_t *wisp_dt_desc_hold(wisp_dt_desc_t *desc)
{
    atomic_fetch_add_explicit(&desc->refs, 1, memory_order_relaxed);
    return desc;
}

void wisp_dt_desc_release(wisp_dt_desc_t *desc)
{
    if (atomic_fetch_sub_explicit(&desc->refs, 1, memory_order_acq_rel) == 1)
        free(desc);
}

/* No memory for a new table: empty this one (the caller holds the lock). */
static void empty(void)
{
    for (size_t i = 0; i < slots; i++)
        if (table[i].used && table[i].desc)
            wisp_dt_desc_release(table[i].desc);
    memset(table, 0, slots * sizeof *table);
    used = derived = 0;
}

void wisp_dt_forget_all(void)
{
    pthread_mutex_lock(&lock);
    if (derived && !rebuild(slots, false))
        empty();
    pthread_mutex_unlock(&lock);
}

/* Empties slot `i`, moving back the entries after it that probed past it
 * (deletion in linear probing: no tombstones, lookups stay short). */
static void remove_at(size_t i)
{
    size_t mask = slots - 1;
    table[i].used = false;
    for (size_t j = (i + 1) & mask; table[j].used; j = (j + 1) & mask) {
        size_t home = hash(table[j].type) & mask;
        if (((j - home) & mask) >= ((j - i) & mask)) { /* the hole is on its probe path */
            table[i] = table[j];
            table[j].used = false;
            i = j;
        }
    }
}

void wisp_dt_forget(MPI_Datatype type)
{
    pthread_mutex_lock(&lock);
    struct slot *s = find(type);
    if (s && !(s->desc && s->desc->named)) {
        if (s->desc)
            wisp_dt_desc_release(s->desc);
        used--;
        derived--;
        remove_at((size_t)(s - table));
    }
    pthread_mutex_unlock(&lock);
}
