/*
 * The launchers' words for the number of tasks they started and this
 * task's index. Each process of a job launched wrong believes it is alone
 * and would say so; the launcher's task 0 alone speaks.
 */
#include "core/launch.h"

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

/* The value of `name` in `env`, or NULL. */
static const char *lookup(char **env, const char *name)
{
    size_t n = strlen(name);
    for (char **e = env; e && *e; e++)
        if (!strncmp(*e, name, n) && (*e)[n] == '=')
            return *e + n + 1;
    return NULL;
}

static long number(const char *text)
{
    char *end;
    long v = text && *text ? strtol(text, &end, 10) : -1;
    return text && *text && !*end ? v : -1;
}

void wisp_core_launch_check(int world_size, char **env)
{
    if (world_size != 1)
        return;
    for (size_t i = 0; i < sizeof launchers / sizeof launchers[0]; i++) {
        const struct launcher *l = &launchers[i];
        long tasks = number(lookup(env, l->size));
        if (tasks <= 1)
            continue;
        if (number(lookup(env, l->rank)) == 0) {
            char what[128];
            snprintf(what, sizeof what, l->what, tasks);
            wisp_log_error("%s, but the MPI made each a world of one process: %ld separate jobs, "
                           "not one of %ld; %s (the run goes on as it is)",
                           what, tasks, tasks, l->fix);
        }
        return;
    }
}
