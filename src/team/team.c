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
 * threads' minimum (wisp_team_run), or inside a region where no thread
 * is parked, the calling thread does it alone; outside a region the team
 * has one thread per minimum of work, up to the pool's size.
 */
#include "team/team.h"

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

int wisp_team_init(int want, int share, uint64_t min, const char **runtime)
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
    wisp_team_ompt_enable(pool.threads);
    return pool.threads;
}

struct job {
    wisp_team_range_fn *fn;
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

void wisp_team_run(size_t first, size_t len, double runs, wisp_team_range_fn *fn, void *arg)
{
    double units = (double)len + runs * WISP_TEAM_RUN_UNITS;
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
    } else if (!wisp_team_ompt_share(first, len, fn, arg)) {
        fn(arg, first, len);
    }
}
