/* A request's integer handle and back: MPI_Request_c2f and MPI_Request_f2c,
 * or, in the MPI-5 standard ABI (which has no Fortran interface),
 * MPI_Request_toint and MPI_Request_fromint. Both must give wisp's own
 * requests back as they were. */
#ifndef WISP_TESTS_INT_HANDLES_H
#define WISP_TESTS_INT_HANDLES_H

#include <mpi.h>

#ifdef MPI_ABI_VERSION
typedef int request_int;
#define REQUEST_TO_INT   MPI_Request_toint
#define REQUEST_FROM_INT MPI_Request_fromint
#define MESSAGE_TO_INT   MPI_Message_toint
#define MESSAGE_FROM_INT MPI_Message_fromint
#else
typedef MPI_Fint request_int;
#define REQUEST_TO_INT   MPI_Request_c2f
#define REQUEST_FROM_INT MPI_Request_f2c
#define MESSAGE_TO_INT   MPI_Message_c2f
#define MESSAGE_FROM_INT MPI_Message_f2c
#endif

#endif
