/*
 * What the application experiments (bench/apps/) share, besides the
 * benchmarks' clock, computation and median: `key=value` arguments, the
 * node a process is on, the verdict of a check, and the `metric` lines of
 * bench/run.py.
 *
 * Every program checks its own numbers and exits 0 when they are right, 1
 * when a check failed (rank 0 says which on stderr) and 2 on a bad argument.
 * Only rank 0 prints `metric <name> <value> <unit> <higher|lower>` lines and
 * only when the checks passed, so that a runner never records the speed of a
 * wrong answer.
 */
#ifndef WISP_APP_COMMON_H
#define WISP_APP_COMMON_H

#include <dlfcn.h>
#include <math.h>
#include <stddef.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../bench_check.h" /* bench_median */
#include "../bench_rma.h"   /* bench_now, bench_compute_for: the clock and a computation */

static inline int app_rank(void)
{
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

/* Rank 0 prints a usage error; every rank leaves with status 2. */
static inline void app_usage_exit(const char *prog, const char *usage, const char *what)
{
    if (app_rank() == 0)
        fprintf(stderr, "%s: %s\nusage: %s %s\n", prog, what, prog, usage);
    MPI_Finalize();
    exit(2);
}

/* ---------------------------------------------------------------------- */
/* Arguments: `key=value` words, each key at most once, in any order. */

enum app_opt_type { APP_INT, APP_DOUBLE, APP_WORD };

struct app_opt {
    const char *key;
    enum app_opt_type type;
    void *value;         /* int *, double * or const char ** (the default is what it holds) */
    double min, max;     /* APP_INT, APP_DOUBLE: the accepted range */
    const char *choices; /* APP_WORD: the accepted words, separated by '|' (NULL: any) */
};

static inline int app_word_ok(const char *choices, const char *word)
{
    size_t len = strlen(word);
    for (const char *p = choices; p && *p;) {
        const char *bar = strchr(p, '|');
        size_t n = bar ? (size_t)(bar - p) : strlen(p);
        if (n == len && strncmp(p, word, n) == 0)
            return 1;
        p = bar ? bar + 1 : NULL;
    }
    return 0;
}

/* Parses argv[1..] into the options; a bad word stops the job with status 2. */
static inline void app_parse(const char *prog, const char *usage, int argc, char **argv,
                             const struct app_opt *opts, int nopts)
{
    char what[256];
    for (int a = 1; a < argc; a++) {
        const char *eq = strchr(argv[a], '=');
        int found = -1;
        for (int o = 0; eq && o < nopts; o++)
            if (strlen(opts[o].key) == (size_t)(eq - argv[a]) &&
                strncmp(opts[o].key, argv[a], (size_t)(eq - argv[a])) == 0)
                found = o;
        if (found < 0) {
            snprintf(what, sizeof what, "'%s' is not a known key=value argument", argv[a]);
            app_usage_exit(prog, usage, what);
        }
        const struct app_opt *o = &opts[found];
        const char *text = eq + 1;
        if (o->type == APP_WORD) {
            if (o->choices && !app_word_ok(o->choices, text)) {
                snprintf(what, sizeof what, "%s='%s': expected one of %s", o->key, text,
                         o->choices);
                app_usage_exit(prog, usage, what);
            }
            *(const char **)o->value = text;
            continue;
        }
        char *end = NULL;
        double v = strtod(text, &end);
        if (end == text || *end != '\0' || !(v >= o->min && v <= o->max) ||
            (o->type == APP_INT && v != floor(v))) {
            snprintf(what, sizeof what, "%s='%s': expected %s from %g to %g", o->key, text,
                     o->type == APP_INT ? "an integer" : "a number", o->min, o->max);
            app_usage_exit(prog, usage, what);
        }
        if (o->type == APP_INT)
            *(int *)o->value = (int)v;
        else
            *(double *)o->value = v;
    }
}

/* ---------------------------------------------------------------------- */
/* Nodes. Under wisp (preloaded or linked) wisp_node_id() says which node,
 * virtual nodes included. Without wisp: the processes that share a machine
 * (MPI_Comm_split_type), cut into nodes of WISP_VNODE_SIZE consecutive ranks
 * when that is set, as wisp does; the native run of a comparison then maps
 * the same processes to the same nodes. */

/* This process's node, 0 .. *count - 1, numbered by their lowest rank. */
static inline int app_node_id(MPI_Comm world, int *count)
{
    int (*wisp_id)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "wisp_node_id");
    int (*wisp_count)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "wisp_node_count");
    int world_rank, id;
    MPI_Comm_rank(world, &world_rank);
    if (wisp_id && wisp_count && wisp_id() >= 0) {
        *count = wisp_count();
        return wisp_id();
    }
    MPI_Comm machine, node;
    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &machine);
    const char *vnode = getenv("WISP_VNODE_SIZE");
    int k = vnode ? atoi(vnode) : 0, machine_rank;
    MPI_Comm_rank(machine, &machine_rank);
    MPI_Comm_split(machine, k > 0 ? machine_rank / k : 0, machine_rank, &node);
    int node_rank, leader, below = 0;
    MPI_Comm_rank(node, &node_rank);
    leader = node_rank == 0;
    MPI_Exscan(&leader, &below, 1, MPI_INT, MPI_SUM, world);
    id = world_rank == 0 ? 0 : below;
    MPI_Bcast(&id, 1, MPI_INT, 0, node);
    MPI_Allreduce(&leader, count, 1, MPI_INT, MPI_SUM, world);
    MPI_Comm_free(&node);
    MPI_Comm_free(&machine);
    return id;
}

/* ---------------------------------------------------------------------- */
/* Checks and results. */

/* The verdict of a check over `comm`: `local_bad` is this rank's count of
 * wrong things. Rank 0 says `check <what>: ok` on stdout or `... FAILED` on
 * stderr. Returns the number of ranks that saw something wrong. */
static inline int app_check(MPI_Comm comm, const char *prog, const char *what, int local_bad)
{
    int mine = local_bad != 0, bad = 0, rank;
    MPI_Allreduce(&mine, &bad, 1, MPI_INT, MPI_SUM, comm);
    MPI_Comm_rank(comm, &rank);
    if (rank == 0) {
        if (bad)
            fprintf(stderr, "%s: check %s: FAILED on %d rank(s)\n", prog, what, bad);
        else
            printf("check %s: ok\n", what);
        fflush(stdout);
    }
    return bad;
}

/* Rank 0 prints one result for bench/run.py. */
static inline void app_metric(const char *name, double value, const char *unit, const char *better)
{
    if (app_rank() == 0)
        printf("metric %s %.6g %s %s\n", name, isfinite(value) ? value : 0.0, unit, better);
}

/* The largest value of `v` over `comm`. */
static inline double app_max(MPI_Comm comm, double v)
{
    double m = v;
    MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, comm);
    return m;
}

/* Finalizes; the exit status of a program whose checks found `bad` wrong. */
static inline int app_finish(int bad)
{
    MPI_Finalize();
    return bad ? 1 : 0;
}

#endif
