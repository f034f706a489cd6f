/*
 * Idle threads share a large pack, unpack or copy (seed 000, MT-MPI). wisp
 * does not link an OpenMP runtime: it finds the one the program loaded
 * (GCC's libgomp, or LLVM's libomp through the GOMP_ entry points it also
 * provides) by name. Two cases, on cache-line aligned byte ranges of the
 * stream, which every operation of the engine takes:
 * - outside a parallel region, from the thread that initialized MPI (its
 *   pool is the one known idle): a team of the pool's threads, equal ranges;
 * - inside a region, from any thread: the threads of its region that wait
 *   at a barrier, parked there by wisp's OMPT tool (ompt.c, libomp only;
 *   libgomp has no OMPT), take chunks as they come.
 * Without a runtime, with one core to run on, for less work than two
 * threads' minimum (wisp_dt_team_run), or inside a region where no thread
 * is parked, the calling thread does it alone; outside a region the team
 * has one thread per minimum of work, up to the pool's size.
 */
#include "dt/dt.h"

#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>

enum { SPLIT_ALIGN = 64 }; /* ranges start on cache lines of the stream */

static struct {
    void (*parallel)(void (*fn)(void *), void *data, unsigned threads, unsigned flags);
    int (*in_parallel)(void);
    int (*thread_num)(void);
    int (*num_threads)(void);
    int threads;  /* in a team; below 2: never */
    uint64_t min; /* units of work (dt.h) each thread of a team has at least */
    pthread_t owner;
} pool;

int wisp_dt_team_init(int want, int share, uint64_t min, const char **runtime)
{
    *runtime = NULL;
    pool.threads = 1;
    pool.min = min;
    pool.owner = pthread_self();
    if (want == 1)
        return 1;
    int (*max_threads)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "omp_get_max_threads");
    pool.parallel = (void (*)(void (*)(void *), void *, unsigned, unsigned))dlsym(RTLD_DEFAULT,
                                                                                  "GOMP_parallel");
    pool.in_parallel = (int (*)(void))dlsym(RTLD_DEFAULT, "omp_in_parallel");
    pool.thread_num = (int (*)(void))dlsym(RTLD_DEFAULT, "omp_get_thread_num");
    pool.num_threads = (int (*)(void))dlsym(RTLD_DEFAULT, "omp_get_num_threads");
    if (!max_threads || !pool.parallel || !pool.in_parallel || !pool.thread_num ||
        !pool.num_threads)
        return 1;
    *runtime = dlsym(RTLD_DEFAULT, "__kmpc_fork_call") ? "libomp" : "libgomp";
    int max = max_threads(); /* starts the runtime, and libomp's OMPT tool: ours */
    pool.threads = want ? want : max;
    /* Threads beyond the process's share of the cores take them from the
     * other processes, which spin in MPI meanwhile. */
    if (!want && share > 0 && share < pool.threads)
        pool.threads = share;
    /* Threads that share the process's cores take turns, never faster (a
     * launcher that binds each process to one core: Open MPI's default). */
    cpu_set_t cores;
    if (sched_getaffinity(0, sizeof cores, &cores) == 0 && CPU_COUNT(&cores) < pool.threads)
        pool.threads = CPU_COUNT(&cores);
    wisp_dt_ompt_enable(pool.threads);
    return pool.threads;
}

struct job {
    wisp_dt_range_fn *fn;
    void *arg;
    size_t first, len;
};

static void member(void *data)
{
    const struct job *j = data;
    size_t n = (size_t)pool.num_threads(), k = (size_t)pool.thread_num();
    size_t part = ((j->len + n - 1) / n + SPLIT_ALIGN - 1) / SPLIT_ALIGN * SPLIT_ALIGN;
    size_t at = k * part;
    if (at < j->len)
        j->fn(j->arg, j->first + at, j->len - at < part ? j->len - at : part);
}

void wisp_dt_team_run(size_t first, size_t len, double runs, wisp_dt_range_fn *fn, void *arg)
{
    double units = (double)len + runs * WISP_DT_RUN_UNITS;
    double worth = pool.min ? units / (double)pool.min : pool.threads;
    unsigned threads = worth < pool.threads ? (unsigned)worth : (unsigned)pool.threads;
    if (threads < 2 || len < 2 * SPLIT_ALIGN) {
        fn(arg, first, len);
        return;
    }
    /* Only the owner asks omp_in_parallel: from a thread the runtime does
     * not know (the progress thread, the application's own), libomp would
     * make it a new root. ompt.c asks OMPT, which registers nobody. */
    if (pthread_equal(pthread_self(), pool.owner) && !pool.in_parallel()) {
        struct job j = {fn, arg, first, len};
        pool.parallel(member, &j, threads, 0);
    } else if (!wisp_dt_ompt_share(first, len, fn, arg)) {
        fn(arg, first, len);
    }
}

/* The engine's operations as ranges a team shares. */
struct layout_op {
    const void *src;
    MPI_Count scount;
    const wisp_dt_desc_t *sdesc;
    void *dst;
    MPI_Count dcount;
    const wisp_dt_desc_t *ddesc;
    size_t base; /* the contiguous side's offset for the caller's range start */
};

static void pack_range(void *arg, size_t first, size_t len)
{
    const struct layout_op *op = arg;
    wisp_dt_layout_pack(op->src, op->scount, op->sdesc, first, len,
                        (char *)op->dst + (first - op->base));
}

static void unpack_range(void *arg, size_t first, size_t len)
{
    const struct layout_op *op = arg;
    wisp_dt_layout_unpack((const char *)op->src + (first - op->base), first, len, op->dst,
                          op->dcount, op->ddesc);
}

static void copy_range(void *arg, size_t first, size_t len)
{
    const struct layout_op *op = arg;
    wisp_dt_layout_copy(op->src, op->scount, op->sdesc, op->dst, op->dcount, op->ddesc, first, len);
}

/* The bytes of [first, first + len) the stream of `count` elements holds. */
static size_t clip(MPI_Count count, const wisp_dt_desc_t *desc, size_t first, size_t len)
{
    uint64_t all = count > 0 ? (uint64_t)count * desc->size : 0;
    return first >= all ? 0 : all - first < len ? (size_t)(all - first) : len;
}

/* The runs of memory `len` bytes of the stream of `desc` lie in. */
static double runs_of(const wisp_dt_desc_t *desc, size_t len)
{
    return desc->size ? desc->segments * (double)len / (double)desc->size : 1;
}

size_t wisp_dt_team_pack(const void *buf, MPI_Count count, const wisp_dt_desc_t *desc, size_t first,
                         size_t len, void *out)
{
    len = clip(count, desc, first, len);
    struct layout_op op = {.src = buf, .scount = count, .sdesc = desc, .dst = out, .base = first};
    wisp_dt_team_run(first, len, runs_of(desc, len), pack_range, &op);
    return len;
}

size_t wisp_dt_team_unpack(const void *in, size_t first, size_t len, void *buf, MPI_Count count,
                           const wisp_dt_desc_t *desc)
{
    len = clip(count, desc, first, len);
    struct layout_op op = {.src = in, .dst = buf, .dcount = count, .ddesc = desc, .base = first};
    wisp_dt_team_run(first, len, runs_of(desc, len), unpack_range, &op);
    return len;
}

size_t wisp_dt_team_copy(const void *src, MPI_Count scount, const wisp_dt_desc_t *sdesc, void *dst,
                         MPI_Count dcount, const wisp_dt_desc_t *ddesc, size_t first, size_t len)
{
    size_t s = clip(scount, sdesc, first, len), d = clip(dcount, ddesc, first, len);
    len = s < d ? s : d;
    struct layout_op op = {
        .src = src, .scount = scount, .sdesc = sdesc, .dst = dst, .dcount = dcount, .ddesc = ddesc};
    wisp_dt_team_run(first, len, runs_of(sdesc, len) + runs_of(ddesc, len), copy_range, &op);
    return len;
}
