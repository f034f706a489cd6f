/*
 * Prints, on rank 0, whether the MPI yields the processor in its empty
 * progress polls (Open MPI's MPI_T control variable mpi_yield_when_idle, a
 * bool, or what libopen-pal does where it exports it: "yield 0" or
 * "yield 1"; "yield none" where the MPI has no such variable) and what
 * OMPI_MCA_mpi_yield_when_idle holds in the environment ("env unset" where
 * nothing set it). tests/ghost_yield.sh judges the lines.
 */
#include <dlfcn.h>
#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h" /* tests/check.h */

/* The variable's value: 0 or 1, or -1 where the MPI has none. */
static int yield_when_idle(void)
{
    int vars = 0, value = -1;
    CHECK(MPI_T_cvar_get_num(&vars) == MPI_SUCCESS);
    for (int i = 0; i < vars && value < 0; i++) {
        char name[256], desc[8];
        int name_len = sizeof name, desc_len = sizeof desc, verbosity, bind, scope, count;
        MPI_Datatype type;
        MPI_T_enum values;
        if (MPI_T_cvar_get_info(i, name, &name_len, &verbosity, &type, &values, desc, &desc_len,
                                &bind, &scope) != MPI_SUCCESS ||
            strcmp(name, "mpi_yield_when_idle"))
            continue;
        MPI_T_cvar_handle handle;
        CHECK(MPI_T_cvar_handle_alloc(i, NULL, &handle, &count) == MPI_SUCCESS && count == 1);
        /* Open MPI keeps a bool in the int MPI_T reads: only its first byte is set. */
        int raw = 0;
        CHECK(MPI_T_cvar_read(handle, &raw) == MPI_SUCCESS);
        value = (raw & 0xff) != 0;
        MPI_T_cvar_handle_free(&handle);
    }
    return value;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int provided, rank;
    CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int yield = yield_when_idle();
    /* What Open MPI does: wisp gives the yield back after MPI_Init where the
     * ghosts serve the windows (core/quirks.c), which MPI_T does not show. */
    const bool *effective = dlsym(RTLD_DEFAULT, "opal_progress_yield_when_idle");
    if (effective)
        yield = *effective;
    const char *env = getenv("OMPI_MCA_mpi_yield_when_idle");
    if (rank == 0) {
        if (yield < 0)
            printf("yield none\n");
        else
            printf("yield %d\n", yield);
        printf("env %s\n", env ? env : "unset");
    }
    MPI_T_finalize();
    MPI_Finalize();
    return 0;
}
