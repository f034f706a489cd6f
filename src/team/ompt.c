/*
 * Idle OpenMP threads inside a parallel region share a large pack, unpack
 * or copy (MT-MPI's "parking", there in a modified runtime; here through
 * OMPT, the OpenMP tool interface, with the runtime the program loaded:
 * LLVM's libomp). libomp looks up ompt_start_tool when it starts; wisp's
 * registers callbacks that see each region begin and end, each thread's
 * implicit task, explicit tasks, and each thread that begins to wait at a
 * barrier. Such a thread parks in the callback, before it enters the
 * runtime's barrier: it sleeps on a futex (after polling as long as the
 * runtime's own waiter would spin, its blocktime: below) until another
 * thread of its region posts a job, whose chunks it then takes, or until
 * the last thread of the team arrives at the barrier and lets every parked
 * thread go on into it. Parking never changes what the barrier does: it
 * only delays a thread's arrival, which the last arrival ends.
 *
 * What keeps it correct:
 * - a region counts its explicit tasks, created and not complete: while
 *   any is outstanding no thread parks, and one created wakes the parked
 *   ones, since a deferred task may be one only a thread inside the
 *   runtime's barrier would run (undeferred ones count too: one too many
 *   only stops parking a moment, one too few could starve a barrier);
 * - each region has its own state (parallel_data->ptr), made only while
 *   the team is enabled (wisp_team_ompt_enable, at MPI_Init); a region begun
 *   before has none and is left alone; a nested region is a region;
 * - a cancelled region never parks again (threads may skip a barrier);
 * - a thread parks at most PARK_MAX_NS (1 s): a barrier that does not
 *   count its threads as wisp assumes costs time, never a hang.
 */
#include "team/ompt.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdalign.h>
#include <stdlib.h>

#include "core/clock.h"
#include "core/export.h"
#include "core/futex.h"
#include "core/states.h"
#include "team/team.h"

enum {
    CHUNK_ALIGN = 64,   /* chunks start on cache lines of the stream */
    CHUNK_MIN = 4096,   /* below this a chunk costs more to hand out than to do */
    CHUNKS_EACH = 4,    /* chunks per possible participant: late helpers still find some */
    TASK_BIT = 1,       /* an explicit task's ptr: its region | TASK_BIT (counted) */
    WAKE_ALL = INT_MAX, /* futex: wake every sleeper */
};
static const long PARK_MAX_NS = 1000000000L; /* the safety net of the top comment */
/* A parked thread polls before it sleeps as long as the runtime's own
 * waiter would spin (libomp's blocktime: 200 ms unless KMP_BLOCKTIME or
 * OMP_WAIT_POLICY=passive say otherwise), up to SPIN_MAX_NS: a futex wake
 * costs the sleeper tens of microseconds, which a barrier waited at for
 * 100-500 us paid (6% of it) when the poll was 50 us. Without the query,
 * SPIN_NS. A runtime whose waiters sleep at once (blocktime 0) gets no
 * parking: the parked thread's wake-up would come on top of the runtime's
 * own (+10 us, 50% of a barrier waited at for 20 us). */
static const uint64_t SPIN_NS = 50000, SPIN_MAX_NS = 2000000;

/* A region's job slot. FREE -> SETUP (one poster won it) -> OPEN (parked
 * threads may join) -> CLOSED (the poster took the last chunk; it waits
 * for the helpers inside) -> FREE. */
enum job_state { JOB_FREE, JOB_SETUP, JOB_OPEN, JOB_CLOSED };

struct region {
    _Atomic int size;    /* threads in the team (implicit task begin) */
    _Atomic bool closed; /* cancelled: never park again */
    /* the barrier, shared by arrivals */
    alignas(64) _Atomic int arrived; /* threads in this barrier's callback */
    _Atomic uint32_t gen;            /* barriers this region has completed */
    _Atomic int parked;              /* threads parked, able to help */
    _Atomic int sleepers;            /* parked threads in futex_wait on bell */
    _Atomic uint32_t bell;           /* futex: rung by release, job, task */
    _Atomic long tasks;              /* explicit tasks created, not complete */
    /* the job */
    alignas(64) _Atomic int job; /* enum job_state */
    _Atomic uint32_t job_id;     /* posts so far: a helper joins each once */
    _Atomic int helpers;         /* parked threads inside the job */
    _Atomic uint32_t done_bell;  /* futex: the poster waits for helpers on it */
    int most;                    /* helpers a job takes at most */
    wisp_team_range_fn *fn;
    void *arg;
    size_t first, len, chunk, nchunks;
    alignas(64) _Atomic size_t next; /* next chunk to take */
};

static struct {
    _Atomic bool enabled; /* wisp's team is on: regions get a state */
    int most;             /* threads in a job at most, the poster too */
    _Atomic bool active;  /* our callbacks are registered */
    const char *why_not;  /* when not active */
    ompt_get_parallel_info_t parallel_info;
    uint64_t spin_ns; /* a parked thread's poll before it sleeps */
} tool = {.spin_ns = SPIN_NS,
          .why_not = "the OpenMP runtime did not start wisp's OMPT tool: OMP_TOOL=disabled, or "
                     "no OMPT"};

static _Atomic uint64_t count_shared, count_ranges, count_bytes;

static void ring(struct region *r)
{
    atomic_fetch_add(&r->bell, 1);
    if (atomic_load(&r->sleepers))
        wisp_futex(&r->bell, FUTEX_WAKE_PRIVATE, WAKE_ALL, -1);
}

static struct region *region_of_task(const ompt_data_t *task)
{
    return task ? (struct region *)((uintptr_t)task->ptr & ~(uintptr_t)TASK_BIT) : NULL;
}

static inline void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
}

/* ---- a parked thread ---- */

/* A parked thread's states: it arrives, parks, helps with jobs (back to
 * parked after each) and leaves into the runtime's barrier. */
#define PARK_STATES(X) X(ARRIVING) X(PARKED) X(HELPING) X(LEAVING)
enum park_state {
#define PARK_STATE(s) s,
    PARK_STATES(PARK_STATE)
#undef PARK_STATE
};

static void move(enum park_state *s, enum park_state to)
{
    static const char *const names[] = {
#define PARK_STATE(s) [s] = #s,
        PARK_STATES(PARK_STATE)
#undef PARK_STATE
    };
    static const unsigned from[] = {
        [ARRIVING] = 0,
        [PARKED] = 1u << ARRIVING | 1u << HELPING,
        [HELPING] = 1u << PARKED,
        [LEAVING] = 1u << ARRIVING | 1u << PARKED,
    };
    wisp_state_check("a parked thread", names, *s, from[to], to);
    *s = to;
}

/* Do chunks of r's job until none is left to take; the ranges done, and
 * their bytes in *bytes. */
static uint64_t take_chunks(struct region *r, uint64_t *bytes)
{
    uint64_t ranges = 0;
    for (size_t i; (i = atomic_fetch_add(&r->next, 1)) < r->nchunks; ranges++) {
        size_t at = i * r->chunk, len = r->len - at < r->chunk ? r->len - at : r->chunk;
        r->fn(r->arg, r->first + at, len);
        *bytes += len;
    }
    return ranges;
}

/* Take chunks of the open job until none is left; false if the job closed
 * (or is full) before this thread got in. */
static bool help(struct region *r, uint32_t *joined)
{
    atomic_fetch_add(&r->helpers, 1);
    /* The helper count first, then the state: a poster that closed after
     * this check waits for us; one that closed before is not read. */
    bool in = atomic_load(&r->job) == JOB_OPEN && atomic_load(&r->helpers) <= r->most;
    uint64_t ranges = 0, bytes = 0;
    if (in) {
        *joined = atomic_load(&r->job_id);
        ranges = take_chunks(r, &bytes);
    }
    atomic_fetch_sub(&r->helpers, 1);
    atomic_fetch_add(&r->done_bell, 1);
    /* The poster closes, then reads helpers: if it was not closed yet, the
     * poster sees this helper out without a wake. */
    if (atomic_load(&r->job) == JOB_CLOSED)
        wisp_futex(&r->done_bell, FUTEX_WAKE_PRIVATE, 1, -1);
    if (ranges) {
        atomic_fetch_add_explicit(&count_ranges, ranges, memory_order_relaxed);
        atomic_fetch_add_explicit(&count_bytes, bytes, memory_order_relaxed);
    }
    return in;
}

/* A thread of region r begins to wait at a barrier. */
static void park(struct region *r)
{
    enum park_state s = ARRIVING;
    /* The generation before the arrival: the last arrival moves it on,
     * and may do so as soon as this one is counted. */
    uint32_t gen = atomic_load(&r->gen);
    int size = atomic_load(&r->size);
    if (atomic_fetch_add(&r->arrived, 1) + 1 >= size) {
        /* The last arrival: nobody else can arrive before this barrier
         * completes, which it cannot before this thread enters it. */
        atomic_store(&r->arrived, 0);
        atomic_fetch_add(&r->gen, 1);
        ring(r);
        return;
    }
    if (!atomic_load(&tool.enabled) || atomic_load(&r->closed) || atomic_load(&r->tasks) > 0)
        return;
    move(&s, PARKED);
    atomic_fetch_add(&r->parked, 1);
    uint32_t joined = atomic_load(&r->job_id) - 1; /* none of the jobs before */
    uint64_t now = wisp_core_clock_ns(), until = now + (uint64_t)PARK_MAX_NS,
             spin_until = now + tool.spin_ns;
    unsigned polls = 0;
    while (s == PARKED) {
        uint32_t bell = atomic_load(&r->bell);
        if (atomic_load(&r->gen) != gen || atomic_load(&r->tasks) > 0 || atomic_load(&r->closed)) {
            move(&s, LEAVING);
        } else if (atomic_load(&r->job) == JOB_OPEN && atomic_load(&r->job_id) != joined) {
            move(&s, HELPING);
            if (!help(r, &joined))
                joined = atomic_load(&r->job_id); /* closed meanwhile: wait for the next */
            move(&s, PARKED);
            spin_until = wisp_core_clock_ns() + tool.spin_ns;
        } else if (++polls % 64 || (now = wisp_core_clock_ns()) < spin_until) {
            relax();
        } else if (now >= until) {
            move(&s, LEAVING);
        } else {
            atomic_fetch_add(&r->sleepers, 1);
            /* The bell read before the checks: a ring since makes this return. */
            wisp_futex(&r->bell, FUTEX_WAIT_PRIVATE, bell, (long)(until - now));
            atomic_fetch_sub(&r->sleepers, 1);
            spin_until = wisp_core_clock_ns() + tool.spin_ns;
        }
    }
    atomic_fetch_sub(&r->parked, 1);
}

/* ---- a poster ---- */

bool wisp_team_ompt_share(size_t first, size_t len, wisp_team_range_fn *fn, void *arg)
{
    ompt_data_t *data = NULL;
    int size = 0;
    if (!tool.active || !atomic_load(&tool.enabled) || tool.parallel_info(0, &data, &size) != 2 ||
        !data || size < 2)
        return false;
    struct region *r = data->ptr;
    int expect = JOB_FREE;
    if (!r || atomic_load(&r->parked) == 0 ||
        !atomic_compare_exchange_strong(&r->job, &expect, JOB_SETUP))
        return false;
    int parked = atomic_load(&r->parked), most = tool.most - 1;
    size_t each = len / ((size_t)CHUNKS_EACH * (size_t)((parked < most ? parked : most) + 1));
    if (each < CHUNK_MIN)
        each = CHUNK_MIN;
    r->chunk = (each + CHUNK_ALIGN - 1) / CHUNK_ALIGN * CHUNK_ALIGN;
    r->nchunks = (len + r->chunk - 1) / r->chunk;
    r->most = most;
    r->fn = fn;
    r->arg = arg;
    r->first = first;
    r->len = len;
    atomic_store(&r->next, 0);
    atomic_fetch_add(&r->job_id, 1);
    atomic_store(&r->job, JOB_OPEN);
    ring(r);
    uint64_t bytes = 0;
    take_chunks(r, &bytes); /* the poster's share is not counted as help */
    /* Every chunk is taken; those of helpers are done when they are out. */
    atomic_store(&r->job, JOB_CLOSED);
    for (;;) {
        uint32_t bell = atomic_load(&r->done_bell);
        if (atomic_load(&r->helpers) == 0)
            break;
        wisp_futex(&r->done_bell, FUTEX_WAIT_PRIVATE, bell, -1);
    }
    atomic_store(&r->job, JOB_FREE);
    atomic_fetch_add_explicit(&count_shared, 1, memory_order_relaxed);
    return true;
}

/* ---- the callbacks ---- */

static void on_parallel_begin(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *parallel,
                              unsigned int requested, int flags, const void *codeptr)
{
    (void)task, (void)frame, (void)codeptr;
    parallel->ptr = NULL;
    if (!atomic_load_explicit(&tool.enabled, memory_order_relaxed) || requested < 2 ||
        (flags & ompt_parallel_league))
        return;
    struct region *r = aligned_alloc(64, (sizeof *r + 63) / 64 * 64);
    if (!r)
        return; /* no memory: the region runs without parking */
    *r = (struct region){.size = (int)requested};
    parallel->ptr = r;
}

static void on_parallel_end(ompt_data_t *parallel, ompt_data_t *task, int flags,
                            const void *codeptr)
{
    (void)task, (void)flags, (void)codeptr;
    /* Every thread is past the join barrier's callback, so out of r. */
    free(parallel->ptr);
    parallel->ptr = NULL;
}

static void on_implicit_task(int endpoint, ompt_data_t *parallel, ompt_data_t *task,
                             unsigned int threads, unsigned int index, int flags)
{
    (void)index;
    if (endpoint != ompt_scope_begin || !(flags & ompt_task_implicit))
        return;
    /* Always written: a hot team's thread keeps its task data across regions. */
    struct region *r = parallel ? parallel->ptr : NULL;
    task->ptr = r;
    if (r)
        atomic_store(&r->size, (int)threads); /* what the team got, not what was asked */
}

static void on_task_create(ompt_data_t *encountering, const ompt_frame_t *frame, ompt_data_t *task,
                           int flags, int dependences, const void *codeptr)
{
    (void)frame, (void)dependences, (void)codeptr;
    struct region *r = region_of_task(encountering);
    if (!(flags & ompt_task_explicit) || !r) {
        task->ptr = NULL;
        return;
    }
    task->ptr = (void *)((uintptr_t)r | TASK_BIT);
    atomic_fetch_add(&r->tasks, 1);
    if (atomic_load(&r->parked))
        ring(r);
}

static void on_task_schedule(ompt_data_t *prior, int status, ompt_data_t *next)
{
    (void)next;
    if (!prior || !((uintptr_t)prior->ptr & TASK_BIT) ||
        (status != ompt_task_complete && status != ompt_task_cancel && status != ompt_task_detach))
        return;
    atomic_fetch_sub(&region_of_task(prior)->tasks, 1);
    prior->ptr = NULL; /* counted once (a detached task is fulfilled later) */
}

static void on_sync_region_wait(int kind, int endpoint, ompt_data_t *parallel, ompt_data_t *task,
                                const void *codeptr)
{
    (void)task, (void)codeptr;
    if (endpoint != ompt_scope_begin || !parallel || !parallel->ptr)
        return;
    switch (kind) {
    case ompt_sync_region_barrier:
    case ompt_sync_region_barrier_implicit:
    case ompt_sync_region_barrier_explicit:
    case ompt_sync_region_barrier_implementation:
    case ompt_sync_region_barrier_implicit_workshare:
    case ompt_sync_region_barrier_implicit_parallel:
        park(parallel->ptr);
        break;
    default: /* taskwait, taskgroup, reduction, teams: not a team's barrier */
        break;
    }
}

static void on_cancel(ompt_data_t *task, int flags, const void *codeptr)
{
    (void)flags, (void)codeptr;
    struct region *r = region_of_task(task);
    if (r && !atomic_exchange(&r->closed, true))
        ring(r);
}

/* ---- the tool ---- */

static int initialize(ompt_function_lookup_t lookup, int device, ompt_data_t *data)
{
    (void)device, (void)data;
    ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
    tool.parallel_info = (ompt_get_parallel_info_t)lookup("ompt_get_parallel_info");
    if (!set || !tool.parallel_info) {
        tool.why_not = "the OpenMP runtime's OMPT lacks ompt_get_parallel_info";
        return 0;
    }
    static const struct {
        int event;
        ompt_callback_t fn;
    } callbacks[] = {
        {ompt_callback_parallel_begin,
         (ompt_callback_t)(ompt_callback_parallel_begin_t)on_parallel_begin},
        {ompt_callback_parallel_end,
         (ompt_callback_t)(ompt_callback_parallel_end_t)on_parallel_end},
        {ompt_callback_implicit_task,
         (ompt_callback_t)(ompt_callback_implicit_task_t)on_implicit_task},
        {ompt_callback_task_create, (ompt_callback_t)(ompt_callback_task_create_t)on_task_create},
        {ompt_callback_task_schedule,
         (ompt_callback_t)(ompt_callback_task_schedule_t)on_task_schedule},
        {ompt_callback_sync_region_wait,
         (ompt_callback_t)(ompt_callback_sync_region_t)on_sync_region_wait},
        {ompt_callback_cancel, (ompt_callback_t)(ompt_callback_cancel_t)on_cancel},
    };
    for (size_t i = 0; i < sizeof callbacks / sizeof callbacks[0]; i++)
        /* Each must be always dispatched, or counts go wrong: then none is
         * (the region states stay NULL without parallel_begin). */
        if (set(callbacks[i].event, callbacks[i].fn) != ompt_set_always) {
            for (size_t j = 0; j <= i; j++)
                set(callbacks[j].event, NULL);
            tool.why_not = "the OpenMP runtime does not dispatch every OMPT callback wisp needs";
            return 0;
        }
    tool.active = true;
    tool.why_not = NULL;
    return 1; /* stay active */
}

static void finalize(ompt_data_t *data)
{
    (void)data;
    tool.active = false;
}

typedef ompt_start_tool_result_t *start_tool_fn(unsigned int, const char *);

/* libomp calls the first ompt_start_tool of the process when it starts. A
 * tool after wisp (found next), or named in OMP_TOOL_LIBRARIES (which
 * libomp tries only when this returns NULL), comes first: OMPT has one
 * callback per event, and an application's own tool keeps working. */
WISP_EXPORT ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version,
                                                      const char *runtime_version);
ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version)
{
    start_tool_fn *next = (start_tool_fn *)dlsym(RTLD_NEXT, "ompt_start_tool");
    if (next && next != ompt_start_tool) {
        ompt_start_tool_result_t *theirs = next(omp_version, runtime_version);
        if (theirs) {
            tool.why_not = "another OMPT tool is loaded";
            return theirs;
        }
    }
    const char *libraries = getenv("OMP_TOOL_LIBRARIES");
    if (libraries && *libraries) {
        tool.why_not = "OMP_TOOL_LIBRARIES names another OMPT tool";
        return NULL;
    }
    static ompt_start_tool_result_t ours = {initialize, finalize, {0}};
    return &ours;
}

void wisp_team_ompt_enable(int most)
{
    int (*blocktime_ms)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "kmp_get_blocktime");
    if (blocktime_ms && most > 1) {
        uint64_t ns = (uint64_t)(blocktime_ms() > 0 ? blocktime_ms() : 0) * 1000000u;
        tool.spin_ns = ns < SPIN_MAX_NS ? ns : SPIN_MAX_NS;
        if (!ns) {
            tool.why_not = "the runtime's waiting threads sleep at once (OMP_WAIT_POLICY=passive "
                           "or KMP_BLOCKTIME=0)";
            most = 1;
        }
    }
    tool.most = most;
    atomic_store(&tool.enabled, most > 1);
}

const char *wisp_team_ompt_why_not(void)
{
    return tool.active && atomic_load(&tool.enabled) ? NULL : tool.why_not;
}

void wisp_team_ompt_counts(struct wisp_team_ompt_counts *c)
{
    c->shared = atomic_load(&count_shared);
    c->ranges = atomic_load(&count_ranges);
    c->bytes = atomic_load(&count_bytes);
}
