/*
 * Which MPI implementation runs beneath wisp, read from the library at run
 * time (MPI_Get_library_version): what the headers say is not enough where
 * one build serves several (libwisp-mpich over MPICH and Intel MPI, both
 * libmpi.so.12; libwisp-abi over whichever MPI implements the standard ABI).
 */
#ifndef WISP_CORE_MPI_IMPL_H
#define WISP_CORE_MPI_IMPL_H

#include <stdbool.h>

#pragma GCC visibility push(hidden)

enum wisp_mpi_family { WISP_IMPL_OTHER, WISP_IMPL_MPICH, WISP_IMPL_OPENMPI, WISP_IMPL_INTEL };

struct wisp_mpi_impl {
    enum wisp_mpi_family family;
    int major, minor; /* 0.0 where the string has no version wisp can read */
};

/* The implementation, read once (callable before MPI_Init and after
 * MPI_Finalize, as MPI_Get_library_version is). */
struct wisp_mpi_impl wisp_core_mpi_impl(void);

/* MPICH of at least version `major` (not a derivative that names itself
 * otherwise, such as Intel MPI). */
static inline bool wisp_core_mpich_at_least(int major)
{
    struct wisp_mpi_impl impl = wisp_core_mpi_impl();
    return impl.family == WISP_IMPL_MPICH && impl.major >= major;
}

#pragma GCC visibility pop

#endif
