/*
 * A program without MPI that loads an MPI later, by dlopen, as python loads
 * mpi4py (tests/wrong_mpi.sh):
 *   host LIBRARY [ARGS...]  calls wrong_mpi_main of LIBRARY, a library
 *                           linked with its MPI (tests/wrong_mpi/program.c
 *                           built with -DPLUGIN), loaded RTLD_LOCAL;
 *   host --global LIBMPI    loads the MPI's library itself, RTLD_GLOBAL, and
 *                           calls MPI_Init and MPI_Finalize found by name.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static int global(const char *libmpi)
{
    if (!dlopen(libmpi, RTLD_NOW | RTLD_GLOBAL)) {
        fprintf(stderr, "host: %s\n", dlerror());
        return 2;
    }
    /* MPI_Init(int *, char ***) and MPI_Finalize(void): one ABI in both MPIs */
    int (*init)(int *, char ***) = (int (*)(int *, char ***))dlsym(RTLD_DEFAULT, "MPI_Init");
    int (*finalize)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "MPI_Finalize");
    if (!init || !finalize || init(NULL, NULL) || finalize())
        return 1;
    printf("MPI_Init and MPI_Finalize through dlsym\n");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--global"))
        return global(argv[2]);
    if (argc < 2) {
        fprintf(stderr, "usage: host LIBRARY [ARGS...] | host --global LIBMPI\n");
        return 2;
    }
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL); /* python's way */
    int (*run)(int, char **) = lib ? (int (*)(int, char **))dlsym(lib, "wrong_mpi_main") : NULL;
    if (!run) {
        fprintf(stderr, "host: %s\n", dlerror());
        return 2;
    }
    return run(argc - 1, argv + 1);
}
