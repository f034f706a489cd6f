/*
 * Creating and freeing ghost-served windows on the application's side (see
 * served.h); served.c keeps the table from the application's MPI_Win to
 * wisp's state.
 *
 * A window is served only when its communicator holds every application
 * process of each node it touches (one node for MPI_Win_allocate_shared).
 * Then the node's first application process takes part in the window's
 * creation and the ghosts of a node only ever see one creation or free at a
 * time, in the order that all their node's processes call them, so ghosts of
 * different nodes can never wait for each other in opposite orders. Other
 * windows are the underlying MPI's, and WISP_VERBOSE=1 says so.
 */
#include "ghost/win.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "core/log.h"
#include "ghost/async.h"
#include "ghost/board.h"
#include "ghost/hints.h"
#include "ghost/icomm.h"
#include "ghost/issue.h"
#include "ghost/pool.h"
#include "ghost/target_help.h"
#include "shm/heap.h"

enum { ALIGN = 64 };

static uint32_t next_serial; /* in node rank 0: the serial of the node's next window */

/* A node runs one window creation or free at a time: the board has one
 * command slot, and a creation's broadcasts over wisp_ghost_node.all would
 * mix with another's. So a process holds this gate through its part; a
 * creation that finds it taken in some process is not served (decided
 * together, before anything of the node's protocol); a free waits for it
 * in the node's first process, which posts the command. */
static pthread_mutex_t protocol_gate = PTHREAD_MUTEX_INITIALIZER;

/* What each application process tells the others at creation. */
enum {
    M_WORLD,
    M_LEADER,
    M_LOCAL,
    M_USERS,
    M_DISP_UNIT,
    M_SIZE,
    M_LOCKS,
    M_HEAP_OFF, /* MPI_Win_create: the memory's offset in the node's heap, -1 outside it */
    M_HIDDEN,   /* displacement of its hidden bytes in its ghosts' windows */
    M_ASYNC,    /* its wish for the route of its operations (async.c) */
    M_GHOSTS
};

static void free_state(struct wisp_ghost_win *w)
{
    pthread_mutex_destroy(&w->books);
    free(w->lockwin);
    free(w->t);
    free(w->locked);
    free(w->held);
    free(w->start);
    free(w->post);
    free(w->post_done);
    free(w->ts);
    free(w->ops);
    free(w->bytes);
    free(w->route);
    free(w->wishes);
    free(w);
}

/* From everyone's record: whether the window can be served (its number of
 * nodes, 0 if not), and if so its targets, member list and this node's
 * segment length. */
static int plan(struct wisp_ghost_win *w, const int64_t *m, int stride, int flavor, int *members,
                size_t *seglen)
{
    int n = w->size, G = wisp_ghost_node.ghosts;
    int *node_of = malloc(sizeof *node_of * (size_t)n);
    int *leader = malloc(sizeof *leader * (size_t)n);
    int *base = malloc(sizeof *base * (size_t)(n + 1));
    MPI_Aint *cum = malloc(sizeof *cum * (size_t)n);
    MPI_Aint *chunk = malloc(sizeof *chunk * (size_t)n);
    bool ok = node_of && leader && base && cum && chunk;
    int nodes = 0;
    for (int r = 0; ok && r < n; r++) {
        const int64_t *mr = m + (size_t)r * (size_t)stride;
        int k = 0;
        while (k < nodes && leader[k] != mr[M_LEADER])
            k++;
        if (k == nodes)
            leader[nodes++] = (int)mr[M_LEADER];
        node_of[r] = k;
    }
    /* Every application process of each node, and no more. */
    for (int k = 0; ok && k < nodes; k++) {
        int users = -1, count = 0;
        for (int r = 0; r < n; r++)
            if (node_of[r] == k) {
                const int64_t *mr = m + (size_t)r * (size_t)stride;
                users = (int)mr[M_USERS];
                count++;
            }
        ok = count == users;
    }
    if (ok && flavor == MPI_WIN_FLAVOR_SHARED && nodes != 1)
        ok = false;
    for (int r = 0; ok && w->heap && r < n; r++)
        ok = m[(size_t)r * (size_t)stride + M_HEAP_OFF] >= 0;
    if (ok) {
        /* Node k's processes by local index in cum[base[k] ...]: sizes, then offsets. */
        base[0] = 0;
        for (int k = 0; k < nodes; k++) {
            int users = 0;
            for (int r = 0; r < n; r++)
                users += node_of[r] == k;
            base[k + 1] = base[k] + users;
        }
        for (int r = 0; r < n; r++) {
            const int64_t *mr = m + (size_t)r * (size_t)stride;
            MPI_Aint size = (MPI_Aint)mr[M_SIZE];
            if (flavor != MPI_WIN_FLAVOR_SHARED)
                size = (size + ALIGN - 1) / ALIGN * ALIGN;
            cum[base[node_of[r]] + mr[M_LOCAL]] = size;
        }
        /* Each node's exposed memory, one segment per ghost (binding.c). */
        int my_node = node_of[w->rank];
        for (int k = 0; k < nodes; k++) {
            MPI_Aint off = 0;
            for (int i = base[k]; i < base[k + 1]; i++) {
                MPI_Aint size = cum[i];
                cum[i] = off;
                off += size;
            }
            chunk[k] = (off + G - 1) / G;
            chunk[k] =
                (chunk[k] + WISP_GHOST_SEG_ALIGN - 1) / WISP_GHOST_SEG_ALIGN * WISP_GHOST_SEG_ALIGN;
            if (k == my_node)
                *seglen = w->heap ? 0 : (size_t)(WISP_GHOST_HIDDEN + off);
        }
        int wants_locks = 0, most_users = 0;
        for (int r = 0; r < n; r++) {
            const int64_t *mr = m + (size_t)r * (size_t)stride;
            int k = node_of[r];
            struct wisp_ghost_target *t = &w->t[r];
            t->local = (int)mr[M_LOCAL];
            t->vbase = cum[base[k] + t->local];
            t->chunk = chunk[k];
            t->hidden = (MPI_Aint)mr[M_HIDDEN];
            t->off = w->heap ? (MPI_Aint)mr[M_HEAP_OFF] : WISP_GHOST_HIDDEN + t->vbase;
            t->size = (MPI_Aint)mr[M_SIZE];
            t->disp_unit = (int)mr[M_DISP_UNIT];
            t->ghost0 = n + k * G;
            t->ghost = t->ghost0 + t->local % G; /* static rank binding */
            t->here = k == my_node;
            w->wishes[r] = (int)mr[M_ASYNC];
            members[r] = (int)mr[M_WORLD];
            for (int g = 0; g < G; g++)
                members[n + k * G + g] = (int)mr[M_GHOSTS + g];
            wants_locks |= (int)mr[M_LOCKS];
            if (base[k + 1] - base[k] > most_users)
                most_users = base[k + 1] - base[k];
        }
        w->nlock = wants_locks ? most_users : 0;
    }
    free(node_of);
    free(leader);
    free(base);
    free(cum);
    free(chunk);
    return ok ? nodes : 0;
}

/* The internal windows of set `w->set`, kept from a window before: the
 * ghosts hold them already (pool.h), nothing to ask of them. */
static void take_kept(struct wisp_ghost_win *w)
{
    for (int i = 0; i <= w->nlock; i++)
        *(i == 0 ? &w->global : &w->lockwin[i - 1]) = w->set->wins[i];
    PMPI_Win_lock_all(MPI_MODE_NOCHECK, w->global);
}

/* The application's side of serve.c's create_window, in the same order;
 * the windows go into w->set too when it is not NULL. */
static bool create_internal(struct wisp_ghost_win *w, int *members, int nmembers, size_t seglen)
{
    struct wisp_ghost_node *node = &wisp_ghost_node;
    struct wisp_ghost_create_msg msg = {.nmembers = nmembers,
                                        .nwins = 1 + w->nlock,
                                        .heap = w->heap,
                                        .set = w->set ? w->set->id : -1,
                                        .seglen = seglen};
    if (node->all_rank == 0) {
        msg.serial = next_serial++;
        wisp_ghost_post(WISP_GHOST_CMD_WIN_CREATE, 0);
    }
    PMPI_Bcast(&msg, sizeof msg, MPI_BYTE, 0, node->all);
    PMPI_Bcast(members, nmembers, MPI_INT, 0, node->all);
    w->serial = msg.serial;
    MPI_Comm icomm; /* the processes (same ranks), then the ghosts of their nodes */
    int ok = wisp_ghost_icomm_get(members, nmembers, &icomm);
    if (!w->heap)
        ok = wisp_ghost_segment_map(&w->seg, seglen, (size_t)w->t[w->rank].off,
                                    (size_t)w->t[w->rank].size, ok) &&
             ok;
    int all_ok = 0;
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, icomm);
    if (!all_ok) {
        wisp_ghost_segment_unmap(&w->seg);
        wisp_ghost_icomm_put(&icomm);
        return false;
    }
    if (!w->heap)
        w->base = w->seg.base + w->t[w->rank].off;
    /* In the heap every member exposes all of it, as the ghosts do: the
     * windows then fit any window there (pool.h). */
    void *expose = w->heap ? wisp_shm_heap.base : w->base;
    MPI_Aint len = w->heap ? (MPI_Aint)wisp_shm_heap_span() : w->t[w->rank].size;
    for (int i = 0; i <= w->nlock; i++) {
        MPI_Win *iw = i == 0 ? &w->global : &w->lockwin[i - 1];
        PMPI_Win_create(expose, len, 1, MPI_INFO_NULL, icomm, iw);
        PMPI_Win_set_errhandler(*iw, MPI_ERRORS_RETURN);
        if (w->set)
            w->set->wins[i] = *iw;
    }
    /* The windows keep what they need of it: one communicator context less
     * per served window (the MPI has few: 2048 in MPICH). */
    wisp_ghost_icomm_put(&icomm);
    PMPI_Win_lock_all(MPI_MODE_NOCHECK, w->global);
    return true;
}

static const char *flavor_name(int flavor)
{
    return flavor == MPI_WIN_FLAVOR_SHARED   ? "MPI_Win_allocate_shared"
           : flavor == MPI_WIN_FLAVOR_CREATE ? "MPI_Win_create"
                                             : "MPI_Win_allocate";
}

/* Bytes in the shared heap that no application process touches: the
 * self-lock's one-byte get reads them from the ghosts (redirect.c). */
static MPI_Aint heap_hidden(void)
{
    static char *hidden;
    if (!hidden)
        hidden = wisp_shm_heap_alloc(WISP_GHOST_HIDDEN, WISP_GHOST_HIDDEN, true);
    return hidden && wisp_shm_heap_holds(hidden, WISP_GHOST_HIDDEN) ? hidden - wisp_shm_heap.base
                                                                    : -1;
}

/* The offset of [base, base + size) in the node's shared heap, or -1 when
 * it is not all there or the ghosts may not touch it (a page of it private,
 * or no room in /dev/shm to commit it: shm/fault.c). */
static int64_t heap_offset(const void *base, MPI_Aint size)
{
    if (size == 0)
        return 0;
    if (!wisp_shm_heap_holds(base, (uint64_t)size))
        return -1;
    return (const char *)base - wisp_shm_heap.base;
}

/* Collective over w->comm, holding protocol_gate: decide whether the window
 * can be served and, if so, create its internal windows with the ghosts. */
static bool set_up(struct wisp_ghost_win *w, MPI_Aint size, int disp_unit, MPI_Info info, void *mem,
                   int flavor, const char **why)
{
    int n = w->size, G = wisp_ghost_node.ghosts, stride = M_GHOSTS + G;
    struct wisp_ghost_hints hints = wisp_ghost_read_hints(info, w->rank == 0);
    w->no_local_load_store = hints.no_local_load_store;
    w->noncontig = hints.noncontig;
    w->async_mode =
        (int)wisp_ghost_async_mode(info, (enum wisp_config_async)wisp_config.ASYNC, w->rank == 0);
    w->seed = (unsigned)wisp_ghost_node.world_rank * 2654435761u + 1;

    int64_t *m = malloc(sizeof *m * (size_t)stride * (size_t)n);
    int64_t *mine = malloc(sizeof *mine * (size_t)stride);
    int *members = malloc(sizeof *members * (size_t)(n + n * G));
    w->t = calloc((size_t)n, sizeof *w->t);
    w->route = calloc((size_t)n, 1);
    w->wishes = calloc((size_t)n, sizeof *w->wishes);
    int ok = m && mine && members && w->t && w->route && w->wishes;
    if (mine) {
        mine[M_WORLD] = wisp_ghost_node.world_rank;
        mine[M_LEADER] = wisp_ghost_node.leader;
        mine[M_LOCAL] = wisp_ghost_node.all_rank;
        mine[M_USERS] = wisp_ghost_node.users;
        mine[M_DISP_UNIT] = disp_unit;
        mine[M_SIZE] = size;
        mine[M_LOCKS] = hints.locks;
        mine[M_HEAP_OFF] = -1;
        mine[M_HIDDEN] = 0;
        mine[M_ASYNC] = wisp_ghost_async_wish(w);
        if (w->heap) {
            w->base = mem;
            mine[M_HIDDEN] = heap_hidden();
            mine[M_HEAP_OFF] = mine[M_HIDDEN] < 0 ? -1 : heap_offset(mem, size);
        }
        for (int g = 0; g < G; g++)
            mine[M_GHOSTS + g] = wisp_ghost_node.ghost_rank[g];
    }
    int all_ok = 0;
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, w->comm);
    *why = "out of memory";
    size_t seglen = 0;
    int nodes = 0;
    if (all_ok) {
        PMPI_Allgather(mine, stride, MPI_INT64_T, m, stride, MPI_INT64_T, w->comm);
        bool outside = false;
        for (int r = 0; w->heap && r < n; r++)
            outside |= m[(size_t)r * (size_t)stride + M_HEAP_OFF] < 0;
        if (outside && flavor == MPI_WIN_FLAVOR_ALLOCATE) /* some heap was full: new segments */
            w->heap = outside = false;
        nodes = plan(w, m, stride, flavor, members, &seglen);
        all_ok = nodes > 0;
        *why = outside
                   ? "some process's memory is not in wisp's shared heap, where only memory from "
                     "malloc and MPI_Alloc_mem after MPI_Init is, or has pages that /dev/shm "
                     "could not back"
               : flavor == MPI_WIN_FLAVOR_SHARED
                   ? "its communicator leaves out some application processes of a node, or "
                     "spans several nodes"
                   : "its communicator leaves out some application processes of a node";
    }
    free(mine);
    free(m);
    if (all_ok) {
        w->lockwin = calloc((size_t)w->nlock + 1, sizeof *w->lockwin);
        w->locked = calloc((size_t)n, 1);
        w->ts = calloc((size_t)n, sizeof *w->ts);
        w->nranks = n + nodes * G;
        w->ops = calloc((size_t)(nodes * G), sizeof *w->ops);
        w->bytes = calloc((size_t)(nodes * G), sizeof *w->bytes);
        w->held = calloc((size_t)w->nlock + 1, sizeof *w->held);
        w->start = malloc(sizeof *w->start * (size_t)n);
        w->post = malloc(sizeof *w->post * (size_t)n);
        w->post_done = malloc(sizeof *w->post_done * (size_t)n);
        ok = w->lockwin && w->locked && w->ts && w->ops && w->bytes && w->held && w->start &&
             w->post && w->post_done;
        /* With that answer, the set of internal windows it would take (pool.h). */
        struct wisp_ghost_pool_vote vote;
        wisp_ghost_pool_vote(&vote, ok && w->heap && wisp_ghost_icomm_keeps(members, n + nodes * G),
                             1 + w->nlock);
        int said[1 + WISP_GHOST_POOL_VOTE] = {ok}, least[1 + WISP_GHOST_POOL_VOTE];
        memcpy(said + 1, vote.vote, sizeof vote.vote);
        PMPI_Allreduce(said, least, 1 + WISP_GHOST_POOL_VOTE, MPI_INT, MPI_MIN, w->comm);
        all_ok = least[0];
        *why = "out of memory";
        if (!all_ok) {
            free(vote.set);
        } else if (wisp_ghost_pool_decide(&vote, least + 1, &w->set)) {
            take_kept(w);
        } else {
            all_ok = create_internal(w, members, n + nodes * G, seglen);
            *why = "its memory could not be mapped into the ghosts";
            if (!all_ok) { /* its id stays unused: the ghosts keep nothing either */
                free(w->set);
                w->set = NULL;
            }
        }
    }
    free(members);
    return all_ok;
}

/* Collective over comm: whether every process of it holds protocol_gate,
 * which it then keeps, and serves fewer than WISP_GHOST_WINDOWS_MAX windows;
 * otherwise nobody holds the gate, and *why says why. */
static bool enter_protocol(MPI_Comm comm, const char **why)
{
    /* Worst first: the minimum over the processes is the answer. */
    enum { GATE_TAKEN, AT_MAX, READY };
    bool gate = pthread_mutex_trylock(&protocol_gate) == 0;
    int mine = !gate ? GATE_TAKEN
               : atomic_load_explicit(&wisp_ghost_nserved, memory_order_relaxed) >=
                       wisp_config.GHOST_WINDOWS_MAX
                   ? AT_MAX
                   : READY,
        all = GATE_TAKEN;
    PMPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm);
    if (gate && all != READY)
        pthread_mutex_unlock(&protocol_gate);
    if (all == GATE_TAKEN)
        *why = "another thread of one of its processes was creating or freeing a served window "
               "at the same time";
    else if (all == AT_MAX)
        *why = "one of its processes has WISP_GHOST_WINDOWS_MAX served windows already";
    return all == READY;
}

/* Collective over comm: set up a served window (memory in a new segment,
 * or `mem` for MPI_Win_create) and the application's handle. NULL when it
 * cannot be served; `why` then says why. */
static struct wisp_ghost_win *serve(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                                    void *mem, int flavor, const char **why)
{
    struct wisp_ghost_win *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->flavor = flavor;
    w->heap = flavor == MPI_WIN_FLAVOR_CREATE || mem;
    pthread_mutex_init(&w->books, NULL);
    PMPI_Comm_dup(comm, &w->comm);
    PMPI_Comm_rank(w->comm, &w->rank);
    PMPI_Comm_size(w->comm, &w->size);
    bool ok = enter_protocol(w->comm, why);
    if (ok) {
        ok = set_up(w, size, disp_unit, info, mem, flavor, why);
        pthread_mutex_unlock(&protocol_gate);
    }
    if (!ok) {
        PMPI_Comm_free(&w->comm);
        free_state(w);
        return NULL;
    }
    if (PMPI_Win_create(w->base, size, disp_unit, info, comm, &w->win) != MPI_SUCCESS)
        wisp_fatal("ghost-served window: the application's window could not be created");
    wisp_ghost_async_apply(w, w->wishes, WISP_ASYNC_AT_CREATE);
    wisp_ghost_served_add(w);
    if (w->rank == 0)
        wisp_log(2, "%s: served by ghosts, %d lock windows", flavor_name(flavor), w->nlock);
    return w;
}

/* Whether windows can be served at all, and why not (said once). */
static bool can_serve(const char *name, int inter, MPI_Aint size, int disp_unit, MPI_Comm comm)
{
    if (!wisp_ghost_node.board)
        return false;
    if (!wisp_ghost_windows_served()) {
        static _Atomic bool said; /* threads may create windows at once */
        if (!atomic_exchange_explicit(&said, true, memory_order_relaxed) &&
            wisp_ghost_node.world_rank == wisp_ghost_node.leader && wisp_ghost_node.leader == 0)
            wisp_log(1, "%s: windows not served by ghosts (WISP_GHOST_WINDOWS=%s%s)", name,
                     wisp_config.GHOST_WINDOWS == WISP_GHOST_WINDOWS_OFF ? "off" : "auto: ",
                     wisp_config.GHOST_WINDOWS == WISP_GHOST_WINDOWS_OFF
                         ? ""
                         : wisp_ghost_windows_because());
        return false;
    }
    /* Arguments the MPI rejects get its own error. */
    int procs = 0;
    if (comm == MPI_COMM_NULL || size < 0 || disp_unit <= 0 || inter ||
        PMPI_Comm_size(comm, &procs) != MPI_SUCCESS)
        return false;
    /* A window of one process has no other origin to progress for; and Open
     * MPI 4.1.4 cannot create the application's handle (MPI_Win_create) over
     * one process of a split communicator. */
    if (procs == 1) {
        wisp_log(1, "%s: not served by ghosts (a window of one process)", name);
        return false;
    }
    return true;
}

static void say_not_served(MPI_Comm comm, int flavor, const char *why)
{
    int rank = -1;
    PMPI_Comm_rank(comm, &rank);
    if (rank == 0)
        wisp_log(1,
                 "%s: not served by ghosts (%s); the MPI's own window, without asynchronous "
                 "progress",
                 flavor_name(flavor), why);
}

int wisp_ghost_win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                            void *baseptr, MPI_Win *win, int flavor)
{
    int (*native)(MPI_Aint, int, MPI_Info, MPI_Comm, void *, MPI_Win *) =
        flavor == MPI_WIN_FLAVOR_SHARED ? PMPI_Win_allocate_shared : PMPI_Win_allocate;
    int inter = 1;
    if (comm != MPI_COMM_NULL && PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
        inter = 1;
    if (!can_serve(flavor_name(flavor), inter, size, disp_unit, comm))
        return native(size, disp_unit, info, comm, baseptr, win);
    /* MPI_Win_allocate's memory comes from the shared heap, which the
     * ghosts map already: no segment to map. Where some process's heap is
     * full, the window gets new segments; a shared window always does, as
     * its processes' parts follow each other. */
    void *mem = flavor == MPI_WIN_FLAVOR_ALLOCATE && wisp_shm_heap.base
                    ? wisp_shm_heap_alloc(size ? (size_t)size : 1, ALIGN, false)
                    : NULL;
    const char *why = "";
    struct wisp_ghost_win *w = serve(size, disp_unit, info, comm, mem, flavor, &why);
    if (!w || !w->heap)
        wisp_shm_heap_free(mem);
    if (!w) {
        say_not_served(comm, flavor, why);
        return native(size, disp_unit, info, comm, baseptr, win);
    }
    *(void **)baseptr = wisp_ghost_app_base(w, w->rank);
    *win = w->win;
    return MPI_SUCCESS;
}

int wisp_ghost_win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                          MPI_Win *win)
{
    if (!wisp_ghost_node.board) /* no ghosts: nothing to ask of the communicator */
        return PMPI_Win_create(base, size, disp_unit, info, comm, win);
    int inter = 1;
    if (comm != MPI_COMM_NULL && PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
        inter = 1;
    if (!can_serve("MPI_Win_create", inter, size, disp_unit, comm))
        return PMPI_Win_create(base, size, disp_unit, info, comm, win);
    const char *why = "";
    struct wisp_ghost_win *w =
        wisp_shm_heap.base ? serve(size, disp_unit, info, comm, base, MPI_WIN_FLAVOR_CREATE, &why)
                           : NULL;
    if (!w) {
        say_not_served(comm, MPI_WIN_FLAVOR_CREATE,
                       wisp_shm_heap.base ? why : "wisp's shared heap is off on this node");
        return PMPI_Win_create(base, size, disp_unit, info, comm, win);
    }
    *win = w->win;
    return MPI_SUCCESS;
}

int wisp_ghost_win_free(struct wisp_ghost_win *w)
{
    /* After a fence without MPI_MODE_NOSUCCEED no epoch is open unless another fence follows. */
    if ((w->access != WISP_GHOST_NO_ACCESS && w->access != WISP_GHOST_FENCE) || w->exposed)
        return wisp_ghost_win_error(w, MPI_ERR_RMA_SYNC);
    wisp_log(3, "%s: %llu operations split across segments, %llu puts/gets moved to another ghost",
             flavor_name(w->flavor), (unsigned long long)w->nsplit, (unsigned long long)w->nmoved);
    int rc = PMPI_Win_free(&w->win); /* the application's: runs its attribute callbacks */
    wisp_ghost_served_remove(w);
    wisp_ghost_async_forget(w);
    PMPI_Win_unlock_all(w->global);
    bool poster = wisp_ghost_node.all_rank == 0 && !w->set;
    if (poster) {
        pthread_mutex_lock(&protocol_gate);
        wisp_ghost_post(WISP_GHOST_CMD_WIN_FREE, w->serial);
    }
    if (w->set) /* kept, here and by the ghosts: nothing to tell them */
        wisp_ghost_pool_put(w->set);
    else
        for (int i = 0; i <= w->nlock; i++)
            PMPI_Win_free(i == 0 ? &w->global : &w->lockwin[i - 1]);
    if (poster)
        pthread_mutex_unlock(&protocol_gate);
    PMPI_Comm_free(&w->comm);
    wisp_ghost_segment_unmap(&w->seg);
    if (w->heap && w->flavor == MPI_WIN_FLAVOR_ALLOCATE)
        wisp_shm_heap_free(w->base);
    free_state(w);
    return rc;
}

void wisp_ghost_win_free_all(void)
{
    for (struct wisp_ghost_win *w; (w = wisp_ghost_served_first());) {
        w->access = WISP_GHOST_NO_ACCESS; /* MPI_Finalize ends every epoch */
        w->exposed = false;
        wisp_ghost_win_free(w);
    }
}

/* MPI_Win_create_dynamic: memory attached later cannot be mapped by the
 * ghosts, so the window is the MPI's own; WISP_VERBOSE=1 says so. */
int wisp_ghost_win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    int rank = -1;
    if (wisp_ghost_node.board && comm != MPI_COMM_NULL &&
        PMPI_Comm_rank(comm, &rank) == MPI_SUCCESS && rank == 0)
        wisp_log(1, "MPI_Win_create_dynamic: not served by ghosts; the MPI's own window, without "
                    "asynchronous progress");
    return PMPI_Win_create_dynamic(info, comm, win);
}

/* MPI_Win_free: a served window's internal windows and memory go too. */
int wisp_ghost_win_free_handle(MPI_Win *win)
{
    struct wisp_ghost_win *w = wisp_ghost_win_find(*win);
    if (!w)
        return PMPI_Win_free(win);
    int rc = wisp_ghost_win_free(w);
    if (rc == MPI_SUCCESS)
        *win = MPI_WIN_NULL;
    return rc;
}

/* MPI_Win_get_attr: a served window is an MPI_Win_create window over the
 * application's memory, so its creation flavor is the one the application
 * asked for, and its base is the memory wisp returned or was given (MPICH reports the
 * base of an MPI_Win_create window rounded down to 8 bytes); every other
 * attribute is the MPI's. */
int wisp_ghost_win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag)
{
    static int flavors[] = {MPI_WIN_FLAVOR_ALLOCATE, MPI_WIN_FLAVOR_SHARED, MPI_WIN_FLAVOR_CREATE};
    struct wisp_ghost_win *w = wisp_ghost_win_find(win);
    if (w && win_keyval == MPI_WIN_BASE)
        *(void **)attribute_val = wisp_ghost_app_base(w, w->rank);
    else if (w && win_keyval == MPI_WIN_CREATE_FLAVOR)
        *(int **)attribute_val = &flavors[w->flavor == MPI_WIN_FLAVOR_SHARED   ? 1
                                          : w->flavor == MPI_WIN_FLAVOR_CREATE ? 2
                                                                               : 0];
    else
        return PMPI_Win_get_attr(win, win_keyval, attribute_val, flag);
    *flag = 1;
    return MPI_SUCCESS;
}

bool wisp_ghost_shared_query(MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit,
                             void *baseptr)
{
    struct wisp_ghost_win *w = wisp_ghost_win_find(win);
    if (!w || w->flavor != MPI_WIN_FLAVOR_SHARED ||
        (rank != MPI_PROC_NULL && (rank < 0 || rank >= w->size)))
        return false; /* the MPI answers: an allocate window gets the MPI's answer for it */
    if (rank == MPI_PROC_NULL) { /* the lowest rank with memory */
        rank = 0;
        while (rank < w->size - 1 && w->t[rank].size == 0)
            rank++;
    }
    const struct wisp_ghost_target *t = &w->t[rank];
    *size = t->size;
    *disp_unit = t->disp_unit;
    *(void **)baseptr = wisp_ghost_app_base(w, rank);
    return true;
}

/* MPI_Win_shared_query, whose displacement unit is an int: see
 * wisp_ghost_shared_query. */
int wisp_ghost_win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit,
                                void *baseptr)
{
    MPI_Aint unit;
    if (!wisp_ghost_shared_query(win, rank, size, &unit, baseptr))
        return PMPI_Win_shared_query(win, rank, size, disp_unit, baseptr);
    *disp_unit = (int)unit;
    return MPI_SUCCESS;
}
