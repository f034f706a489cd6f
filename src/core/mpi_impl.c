/*
 * The MPI beneath, from its library's version string: "MPICH Version: 5.0.2",
 * "Open MPI v5.0.11, ...", "Intel(R) MPI Library 2021.19 for Linux* OS".
 */
#include "core/mpi_impl.h"

#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static struct wisp_mpi_impl impl;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void read_impl(void)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int len = 0;
    if (PMPI_Get_library_version(v, &len) != MPI_SUCCESS)
        return;
    if (sscanf(v, "MPICH Version: %d.%d", &impl.major, &impl.minor) >= 1)
        impl.family = WISP_IMPL_MPICH;
    else if (sscanf(v, "Open MPI v%d.%d", &impl.major, &impl.minor) >= 1)
        impl.family = WISP_IMPL_OPENMPI;
    else if (sscanf(v, "Intel(R) MPI Library %d.%d", &impl.major, &impl.minor) >= 1 ||
             !strncmp(v, "Intel(R) MPI Library", strlen("Intel(R) MPI Library")))
        impl.family = WISP_IMPL_INTEL;
}

struct wisp_mpi_impl wisp_core_mpi_impl(void)
{
    pthread_once(&once, read_impl);
    return impl;
}
