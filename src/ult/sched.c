/*
 * The scheduler of user-level threads (seed 003): streams, run queues,
 * fork, join and yield.
 *
 * A stream is a kernel thread that runs ULTs. Stream 0 is the thread that
 * first used the API; its own flow (the primary) takes turns with the ULTs
 * placed on it whenever it yields, joins or waits in MPI. WISP_ULT_THREADS - 1
 * more streams are threads of wisp, whose own flow is a loop that runs what
 * is queued and sleeps on a futex when nothing is. A ULT stays on the stream
 * it was placed on (round robin at fork), so its thread-local storage and
 * the MPI's view of the calling thread never change under it.
 *
 * Nobody blocks: a ULT waiting for another (join) or for MPI polls and
 * yields between polls, and sleeps in the kernel only when its stream has
 * nothing else to run. A ULT that finishes is retired by whatever runs next
 * on its stream (its stack is still in use until the switch), which makes
 * it joinable and wakes a joiner asleep on it.
 */
#include "ult/ult.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "core/config.h"
#include "core/futex.h"
#include "core/wrapper.h"
#include "ult/fcontext.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define WISP_ULT_ASAN 1
#endif
#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
#define WISP_ULT_TSAN 1
#endif

struct wisp_ult {
    wisp_fcontext ctx; /* where it resumes, while it does not run */
    struct ult_stream *stream;
    struct wisp_ult *next; /* in its stream's run queue */
    void (*fn)(void *);
    void *arg;
    char *map; /* its stack mapping, guard page first; NULL for a stream's own flow */
    size_t map_size;
    bool finished;            /* returned from fn; retired by the next to run */
    bool left_behind;         /* by fork(), in the child: never runs there */
    _Atomic uint32_t done;    /* retired: joinable (a futex word) */
    _Atomic bool join_sleeps; /* a joiner waits in the kernel for `done` */
    const void *stack_bottom; /* AddressSanitizer: the stack it runs on, */
    size_t stack_size;
    void *fake;       /* and its fake stack while it does not run */
    void *tsan_fiber; /* ThreadSanitizer: its fiber */
};

struct ult_stream {
    atomic_flag lock; /* the run queue */
    struct wisp_ult *head, *tail;
    struct wisp_ult *current;   /* set under the lock: fork() sees each ULT in one place */
    struct wisp_ult *finishing; /* finished, switched away from, not yet retired */
    struct wisp_ult base;       /* the thread's own flow */
    _Atomic unsigned live;      /* ULTs placed here and not finished */
    _Atomic uint32_t bell;      /* rung when a ULT is queued here (a futex word) */
    _Atomic bool sleeping;      /* its thread waits on the bell */
    _Atomic bool stopping;
    pthread_t thread;
};

_Atomic unsigned wisp_ult_alive;

static struct {
    pthread_once_t once;
    int error; /* of the start: a bad WISP_ULT_* value, or no thread */
    struct ult_stream *streams;
    int count;
    _Atomic unsigned next_stream; /* round robin of fork */
    struct ult_stream *only;      /* in the child of fork(): the one stream left */
    size_t stack_size;            /* usable bytes, whole pages */
    size_t page;
    pthread_mutex_t spare_lock; /* finished ULTs kept for their stacks */
    struct wisp_ult *spare;
    int spares;
} ult = {.once = PTHREAD_ONCE_INIT, .spare_lock = PTHREAD_MUTEX_INITIALIZER};

enum { SPARES_MAX = 64 };

/* Read by every blocking MPI call of a program with ULTs: initial-exec, not
 * a call to __tls_get_addr (8 bytes, which glibc's reserve holds even when
 * libwisp is loaded with dlopen). */
static _Thread_local struct ult_stream *here __attribute__((tls_model("initial-exec")));

static void queue_lock(struct ult_stream *s)
{
    /* Held for a few instructions; but its holder may have lost its core. */
    for (unsigned spins = 0; atomic_flag_test_and_set_explicit(&s->lock, memory_order_acquire);)
        if (++spins % 64 == 0)
            sched_yield();
}

static void queue_unlock(struct ult_stream *s)
{
    atomic_flag_clear_explicit(&s->lock, memory_order_release);
}

static void push_locked(struct ult_stream *s, struct wisp_ult *u)
{
    u->next = NULL;
    if (s->tail)
        s->tail->next = u;
    else
        s->head = u;
    s->tail = u;
}

static struct wisp_ult *pop_locked(struct ult_stream *s)
{
    struct wisp_ult *u = s->head;
    if (u && !(s->head = u->next))
        s->tail = NULL;
    return u;
}

/* From any thread: queue `u` on its stream and wake the stream if it sleeps. */
static void make_ready(struct wisp_ult *u)
{
    struct ult_stream *s = u->stream;
    queue_lock(s);
    push_locked(s, u);
    queue_unlock(s);
    atomic_fetch_add(&s->bell, 1);
    if (atomic_load(&s->sleeping))
        wisp_futex(&s->bell, FUTEX_WAKE_PRIVATE, 1, -1);
}

/* ---- switching -------------------------------------------------------- */

static void retire(struct wisp_ult *u)
{
    struct ult_stream *s = u->stream;
    atomic_fetch_sub_explicit(&s->live, 1, memory_order_relaxed);
    atomic_fetch_sub_explicit(&wisp_ult_alive, 1, memory_order_relaxed);
    queue_lock(s);
    s->finishing = NULL;
    atomic_store_explicit(&u->done, 1, memory_order_release);
    queue_unlock(s);
    if (atomic_load(&u->join_sleeps))
        wisp_futex(&u->done, FUTEX_WAKE_PRIVATE, INT32_MAX, -1);
}

/* Every switch lands here, in the context switched to: remember where the
 * previous one stopped, and retire it if it finished. */
static void resumed(struct wisp_transfer t)
{
    struct wisp_ult *prev = t.data;
#ifdef WISP_ULT_ASAN
    __sanitizer_finish_switch_fiber(here->current->fake, &prev->stack_bottom, &prev->stack_size);
#endif
    prev->ctx = t.ctx;
    if (prev->finished)
        retire(prev);
}

/* The caller made `to` current under the queue lock. */
static void switch_to(struct wisp_ult *from, struct wisp_ult *to)
{
#ifdef WISP_ULT_ASAN
    /* A finished ULT's stack is gone for good: no fake stack to keep. */
    __sanitizer_start_switch_fiber(from->finished ? NULL : &from->fake, to->stack_bottom,
                                   to->stack_size);
#endif
#ifdef WISP_ULT_TSAN
    __tsan_switch_to_fiber(to->tsan_fiber, 0);
#endif
    resumed(wisp_ult_jump_fcontext(to->ctx, from));
}

static void entry(struct wisp_transfer t)
{
    resumed(t);
    struct ult_stream *s = here;
    struct wisp_ult *self = s->current;
    self->fn(self->arg);
    self->finished = true;
    queue_lock(s);
    struct wisp_ult *next = pop_locked(s);
    /* On stream 0 the primary is queued whenever a ULT runs (it got there
     * by yielding); on the others the stream's loop takes over. */
    s->current = next = next ? next : &s->base;
    s->finishing = self;
    queue_unlock(s);
    switch_to(self, next);
    abort(); /* never resumed */
}

bool wisp_ult_yield_once(void)
{
    struct ult_stream *s = here;
    if (!s)
        return false;
    struct wisp_ult *self = s->current;
    queue_lock(s);
    struct wisp_ult *next = pop_locked(s);
    if (next) {
        push_locked(s, self);
        s->current = next;
    }
    queue_unlock(s);
    if (!next)
        return false;
    switch_to(self, next);
    return true;
}

/* ---- streams ---------------------------------------------------------- */

/* Nothing to run here: sleep until something is queued or `timeout_ns`. */
static void stream_nap(struct ult_stream *s, long timeout_ns)
{
    atomic_store(&s->sleeping, true);
    uint32_t seen = atomic_load(&s->bell);
    queue_lock(s);
    bool empty = !s->head;
    queue_unlock(s);
    if (empty && !atomic_load(&s->stopping))
        wisp_futex(&s->bell, FUTEX_WAIT_PRIVATE, seen, timeout_ns);
    atomic_store(&s->sleeping, false);
}

static void *stream_loop(void *arg)
{
    struct ult_stream *s = arg;
    here = s;
#ifdef WISP_ULT_TSAN
    s->base.tsan_fiber = __tsan_get_current_fiber();
#endif
    for (;;) {
        queue_lock(s);
        struct wisp_ult *next = pop_locked(s);
        if (next)
            s->current = next;
        queue_unlock(s);
        if (next)
            switch_to(&s->base, next);
        else if (atomic_load(&s->stopping) && !atomic_load(&s->live))
            return NULL;
        else
            stream_nap(s, -1);
    }
}

static void stop_streams(void)
{
    for (int i = 1; i < ult.count; i++) {
        atomic_store(&ult.streams[i].stopping, true);
        atomic_fetch_add(&ult.streams[i].bell, 1);
        wisp_futex(&ult.streams[i].bell, FUTEX_WAKE_PRIVATE, 1, -1);
    }
    /* Not joined: a ULT that never ends would hold up exit(). */
}

/* ---- fork ------------------------------------------------------------- */

/* The child of fork() has only the calling kernel thread, and of the ULTs
 * only the calling one: the others would run in the child a second time
 * (and send their messages twice). They are left behind: joining one there
 * returns ESRCH. The calling thread's own flow stays, and every ULT forked
 * in the child runs on the calling thread. fork() holds every queue lock,
 * so each ULT is then in one place: queued, current, or finishing. */
static void leave_behind(struct wisp_ult *u)
{
    u->left_behind = true;
    atomic_store(&u->done, 1);
}

static void fork_prepare(void)
{
    pthread_mutex_lock(&ult.spare_lock);
    for (int i = 0; i < ult.count; i++)
        queue_lock(&ult.streams[i]);
}

static void fork_parent(void)
{
    for (int i = 0; i < ult.count; i++)
        queue_unlock(&ult.streams[i]);
    pthread_mutex_unlock(&ult.spare_lock);
}

static void forked_child(void)
{
    struct ult_stream *kept = here ? here : &ult.streams[0];
    for (int i = 0; i < ult.count; i++) {
        struct ult_stream *s = &ult.streams[i];
        if (s->finishing) /* it returned before the fork: joinable */
            atomic_store(&s->finishing->done, 1);
        s->finishing = NULL;
        struct wisp_ult *queued = s->head;
        s->head = s->tail = NULL;
        for (struct wisp_ult *u = queued, *next; u; u = next) {
            next = u->next;
            if (u == &kept->base && here) /* this thread's flow, yielded to a ULT */
                push_locked(s, u);
            else if (u != &s->base)
                leave_behind(u);
        }
        if (s != here && s->current != &s->base) /* ran on a thread the child has not */
            leave_behind(s->current);
        if (s != here)
            s->current = &s->base;
        atomic_store(&s->live, 0);
        atomic_store(&s->sleeping, false);
    }
    bool in_ult = kept->current != &kept->base;
    atomic_store(&kept->live, in_ult);
    atomic_store(&wisp_ult_alive, in_ult);
    here = kept;
    ult.only = kept;
    fork_parent(); /* the locks */
}

static void complain(void *ctx, const char *line)
{
    (void)ctx;
    fprintf(stderr, "wisp: %s\n", line);
}

/* The API works before MPI_Init and without it: it reads its own variables
 * (WISP_ULT_*) itself; MPI_Init judges the others. */
static void start(void)
{
    struct wisp_config cfg;
    int problems = wisp_core_config_parse_some(&cfg, "WISP_ULT_", complain, NULL);
    ult.page = (size_t)sysconf(_SC_PAGESIZE);
    ult.stack_size = ((size_t)cfg.ULT_STACK + ult.page - 1) / ult.page * ult.page;
    ult.count = atomic_load(&wisp_core_ult_one_thread) ? 1 : (int)cfg.ULT_THREADS;
    wisp_core_config_free(&cfg);
    if (problems) {
        ult.error = EINVAL;
        return;
    }
    /* Blocking calls in ULTs must reach wisp_impl (yields.def), also where
     * the dispatch would give the MPI's own function while wisp has no
     * request, served communicator or served window of its own
     * (src/wrap/dispatch.c). */
    wisp_core_begin(WISP_CORE_REQUESTS);
    wisp_core_begin(WISP_CORE_SERVED);
    wisp_core_begin(WISP_CORE_WINDOWS);
    ult.streams = calloc((size_t)ult.count, sizeof *ult.streams);
    if (!ult.streams) {
        ult.error = ENOMEM;
        return;
    }
    for (int i = 0; i < ult.count; i++) {
        ult.streams[i].base.stream = &ult.streams[i];
        ult.streams[i].current = &ult.streams[i].base;
        atomic_flag_clear(&ult.streams[i].lock);
    }
    here = &ult.streams[0];
#ifdef WISP_ULT_TSAN
    here->base.tsan_fiber = __tsan_get_current_fiber();
#endif
    for (int i = 1; i < ult.count; i++) {
        int rc = pthread_create(&ult.streams[i].thread, NULL, stream_loop, &ult.streams[i]);
        if (rc == 0)
            pthread_detach(ult.streams[i].thread); /* never joined (stop_streams) */
        if (rc) {
            fprintf(stderr, "wisp: cannot start user-level thread stream %d of %d: %s\n", i,
                    ult.count, strerror(rc));
            ult.count = i; /* run on those that started */
            break;
        }
    }
    atomic_store(&ult.next_stream, ult.count > 1 ? 1 : 0);
    atexit(stop_streams);
    pthread_atfork(fork_prepare, fork_parent, forked_child);
}

int wisp_ult_start(void)
{
    pthread_once(&ult.once, start);
    return ult.error;
}

/* ---- the API ---------------------------------------------------------- */

static struct wisp_ult *new_ult(void)
{
    pthread_mutex_lock(&ult.spare_lock);
    struct wisp_ult *u = ult.spare;
    if (u) {
        ult.spare = u->next;
        ult.spares--;
    }
    pthread_mutex_unlock(&ult.spare_lock);
    if (u) {
        char *map = u->map;
        size_t size = u->map_size;
        memset(u, 0, sizeof *u);
        u->map = map;
        u->map_size = size;
        return u;
    }
    /* The descriptor sits at the top of its own stack mapping. */
    size_t size = ult.page + ult.stack_size + ult.page;
    char *map =
        mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (map == MAP_FAILED)
        return NULL;
    if (mprotect(map, ult.page, PROT_NONE) != 0) { /* the guard: an overflow faults */
        munmap(map, size);
        return NULL;
    }
    u = (struct wisp_ult *)(map + size - ult.page);
    memset(u, 0, sizeof *u);
    u->map = map;
    u->map_size = size;
    return u;
}

static void free_ult(struct wisp_ult *u)
{
#ifdef WISP_ULT_TSAN
    __tsan_destroy_fiber(u->tsan_fiber);
#endif
    pthread_mutex_lock(&ult.spare_lock);
    if (ult.spares < SPARES_MAX) {
        u->next = ult.spare;
        ult.spare = u;
        ult.spares++;
        u = NULL;
    }
    pthread_mutex_unlock(&ult.spare_lock);
    if (u)
        munmap(u->map, u->map_size);
}

int wisp_ult_fork(void (*fn)(void *), void *arg, wisp_ult_t *handle)
{
    if (!fn || !handle)
        return EINVAL;
    int rc = wisp_ult_start();
    if (rc)
        return rc;
    struct wisp_ult *u = new_ult();
    if (!u)
        return ENOMEM;
    u->fn = fn;
    u->arg = arg;
    u->stream = ult.only ? ult.only
                : atomic_load(&wisp_core_ult_one_thread)
                    ? &ult.streams[0]
                    : &ult.streams[atomic_fetch_add(&ult.next_stream, 1) % (unsigned)ult.count];
    u->stack_bottom = u->map + ult.page;
    u->stack_size = ult.stack_size;
    u->ctx = wisp_ult_make_fcontext(u->map + ult.page + ult.stack_size, ult.stack_size, entry);
#ifdef WISP_ULT_TSAN
    u->tsan_fiber = __tsan_create_fiber(0);
#endif
    atomic_fetch_add_explicit(&u->stream->live, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&wisp_ult_alive, 1, memory_order_relaxed);
    *handle = u;
    make_ready(u);
    return 0;
}

int wisp_ult_join(wisp_ult_t u)
{
    if (!u)
        return EINVAL;
    if (here && u == here->current)
        return EDEADLK;
    unsigned spins = 0;
    while (!atomic_load_explicit(&u->done, memory_order_acquire)) {
        if (wisp_ult_yield_once() || ++spins < 64)
            continue;
        /* Nothing else to run on this thread: wait in the kernel, but look
         * at the run queue now and then (a ULT may be placed here). */
        atomic_store(&u->join_sleeps, true);
        if (!atomic_load(&u->done))
            wisp_futex(&u->done, FUTEX_WAIT_PRIVATE, 0, here ? 1000000 : -1);
        spins = 0;
    }
    bool left_behind = u->left_behind;
    free_ult(u);
    return left_behind ? ESRCH : 0;
}

void wisp_ult_yield(void)
{
    wisp_ult_yield_once();
}

wisp_ult_t wisp_ult_self(void)
{
    struct ult_stream *s = here;
    return s && s->current != &s->base ? s->current : NULL;
}

int wisp_ult_threads(void)
{
    return wisp_ult_start() ? 0 : atomic_load(&wisp_core_ult_one_thread) ? 1 : ult.count;
}

bool wisp_ult_here_shared(void)
{
    struct ult_stream *s = here;
    return s && (s->current != &s->base || atomic_load_explicit(&s->live, memory_order_relaxed));
}
