/*
 * The launchers' words for the number of tasks they started and this
 * task's index. Each process of a job launched wrong believes it is alone
 * and would say so; the launcher's task 0 alone speaks.
 *
 * srun is known before MPI_Init: it sets no PMI or PMIx words for the MPI
 * without --mpi= (Open MPI then aborts in MPI_Init, MPICH makes a world of
 * one per task). Other launchers are known after it, by the world's size.
 */
#include "core/launch.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"

static const struct launcher {
    const char *size, *rank; /* environment variables */
    const char *what, *fix;
} launchers[] = {
    {"SLURM_STEP_NUM_TASKS", "SLURM_PROCID", "srun started %ld tasks",
     "srun --mpi=pmi2 for MPICH, --mpi=pmix for Open MPI (srun --mpi=list shows what this "
     "Slurm has), or MpiDefault in slurm.conf"},
    {"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "Open MPI's mpirun started %ld processes",
     "start the program with the mpiexec of the MPI it was built with"},
    {"PMI_SIZE", "PMI_RANK", "a PMI launcher (MPICH's mpiexec) started %ld processes",
     "start the program with the mpiexec of the MPI it was built with"},
};
enum { SRUN = 0 };

/* What srun sets for the MPI with --mpi=pmi2 or pmix (and a launcher
 * started inside the step sets for its own processes). */
static const char *const joined[] = {"PMI_FD", "PMI_RANK", "PMIX_RANK", "PMIX_NAMESPACE",
                                     "OMPI_COMM_WORLD_SIZE"};

static bool said; /* before MPI_Init */

/* The value of `name` in `env`, or NULL. */
static const char *lookup(char **env, const char *name)
{
    size_t n = strlen(name);
    for (char **e = env; e && *e; e++)
        if (!strncmp(*e, name, n) && (*e)[n] == '=')
            return *e + n + 1;
    return NULL;
}

long wisp_core_launch_number(const char *text)
{
    char *end;
    long v = text && *text ? strtol(text, &end, 10) : -1;
    return text && *text && !*end ? v : -1;
}

/* The launcher's line, from its task 0. */
static void say(const struct launcher *l, long tasks, char **env, const char *outcome)
{
    if (wisp_core_launch_number(lookup(env, l->rank)) != 0)
        return;
    char what[128];
    snprintf(what, sizeof what, l->what, tasks);
    wisp_log_error("%s, but %s: %s (the run goes on as it is)", what, outcome, l->fix);
}

void wisp_core_launch_check_before(char **env)
{
    long tasks = wisp_core_launch_number(lookup(env, launchers[SRUN].size));
    if (tasks <= 1)
        return;
    for (size_t i = 0; i < sizeof joined / sizeof joined[0]; i++)
        if (lookup(env, joined[i]))
            return;
    say(&launchers[SRUN], tasks, env,
        "with nothing that lets the MPI join them into one job (no --mpi=): with MPICH each "
        "becomes a job of one process, Open MPI stops in MPI_Init");
    said = true;
}

void wisp_core_launch_check(int world_size, char **env)
{
    if (world_size != 1 || said)
        return;
    for (size_t i = 0; i < sizeof launchers / sizeof launchers[0]; i++) {
        const struct launcher *l = &launchers[i];
        long tasks = wisp_core_launch_number(lookup(env, l->size));
        if (tasks > 1) {
            char outcome[96];
            snprintf(outcome, sizeof outcome,
                     "the MPI made each a world of one process: %ld separate jobs", tasks);
            say(l, tasks, env, outcome);
            return;
        }
    }
}
