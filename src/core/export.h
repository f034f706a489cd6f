/*
 * What libwisp exports besides the wisp_* functions of wisp.h (WISP_API):
 * the MPI_X and PMPI_X wrappers (src/wrap/gen/), their Fortran entry points
 * (src/fortran/gen/) and the malloc family (src/shm/malloc.c). Everything
 * else is hidden (CMAKE_C_VISIBILITY_PRESET).
 */
#ifndef WISP_CORE_EXPORT_H
#define WISP_CORE_EXPORT_H

#define WISP_EXPORT __attribute__((visibility("default")))

#endif
