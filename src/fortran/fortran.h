/*
 * wisp's Fortran entry points (docs/fortran.md): the conversions that the
 * generated bodies (fortran/gen/bindings.c, tools/gen_fortran.py) use
 * between a Fortran binding's arguments and the C MPI_X that libwisp
 * exports. Two argument conventions, chosen per exported symbol:
 *  - WISP_F_ABI_MPIF: mpif.h and `use mpi` (and Open MPI's `use mpi_f08`,
 *    whose entries pass the same integers): handles are MPI_Fint, statuses
 *    MPI_Fint[], MPI_STATUS(ES)_IGNORE at MPI_F_STATUS(ES)_IGNORE;
 *  - WISP_F_ABI_F08: MPICH's `use mpi_f08`, whose statuses are C statuses
 *    and whose MPI_STATUS(ES)_IGNORE are at MPI_F08_STATUS(ES)_IGNORE.
 * Every status goes through MPI_Status_c2f/f2c, which copy in both MPIs.
 */
#ifndef WISP_FORTRAN_H
#define WISP_FORTRAN_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

#include "wisp_fortran_have.h" /* WISP_F_MPIF_MPI_X, WISP_F_F08_MPI_X: the symbols to define */
#include "wisp_have.h"
#include "core/export.h"

#pragma GCC visibility push(hidden)

_Static_assert(sizeof(MPI_Fint) == sizeof(int), "Fortran INTEGER arrays are passed as int arrays");

enum wisp_f_abi { WISP_F_ABI_MPIF, WISP_F_ABI_F08 };

/* Converted arrays up to this many elements live on the caller's stack. */
enum { WISP_F_LOCAL = 16 };

/* A status in Fortran is this many INTEGERs (MPI_STATUS_SIZE). */
#define WISP_F_STATUS_SIZE (sizeof(MPI_Status) / sizeof(MPI_Fint))

/* gfortran's LOGICAL: .FALSE. is 0, .TRUE. is 1 (both MPIs built with it). */
static inline int wisp_f_logical_in(MPI_Fint value)
{
    return value != 0;
}
static inline MPI_Fint wisp_f_logical_out(int value)
{
    return value ? 1 : 0;
}

/* MPI_BOTTOM and MPI_IN_PLACE of the Fortran bindings, to the C ones. */
void *wisp_f_buf(void *buf);

/* One status: the C status to pass (MPI_STATUS_IGNORE when the Fortran one
 * is ignored), copied in from Fortran; and back after the call. Arrays the
 * same, element by element. */
MPI_Status *wisp_f_status_in(enum wisp_f_abi abi, MPI_Fint *status, MPI_Status *local);
void wisp_f_status_out(const MPI_Status *c, MPI_Fint *status);
/* Arrays of n: allocated when n > WISP_F_LOCAL, freed by wisp_f_release. */
MPI_Status *wisp_f_statuses_in(enum wisp_f_abi abi, MPI_Fint *statuses, int n, MPI_Status *local);
void wisp_f_statuses_out(const MPI_Status *c, int n, MPI_Fint *statuses);
MPI_Request *wisp_f_requests_in(const MPI_Fint *requests, int n, MPI_Request *local);
void wisp_f_requests_out(const MPI_Request *c, int n, MPI_Fint *requests);
MPI_Datatype *wisp_f_types_in(const MPI_Fint *types, int n, MPI_Datatype *local);
void wisp_f_types_out(const MPI_Datatype *c, int n, MPI_Fint *types);
int *wisp_f_logicals_in(const MPI_Fint *logicals, int n, int *local, bool in);
void wisp_f_logicals_out(const int *c, int n, MPI_Fint *logicals);
void wisp_f_release(void *array, void *local);
/* 0-based C indices (the first n) to Fortran's 1-based ones. */
void wisp_f_indices_out(MPI_Fint *indices, int n);

/* Requests and messages: wisp's own have Fortran handles of wisp's
 * (src/p2p/request.c); the MPI's keep the MPI's. */
MPI_Request wisp_f_request_f2c(MPI_Fint request);
MPI_Fint wisp_f_request_c2f(MPI_Request request);
MPI_Message wisp_f_message_f2c(MPI_Fint message);
MPI_Fint wisp_f_message_c2f(MPI_Message message);

/* A CHARACTER argument of `len` characters, without its leading and
 * trailing blanks, as a C string (from malloc). */
char *wisp_f_string_in(const char *string, size_t len);

/* Array lengths the Fortran call does not pass. */
int wisp_f_cartdim(MPI_Comm comm);
int wisp_f_comm_size(MPI_Comm comm);

/* The other spellings of an mpif.h entry, where the MPI's library has them
 * (gfortran uses mpi_x_; -fsecond-underscore mpi_x__; other compilers
 * mpi_x and MPI_X). */
#define WISP_F_MPIF_ALIASES(lower, upper, params)                                                  \
    WISP_EXPORT void mpi_##lower##_ params __attribute__((alias("ompi_" #lower "_f")));            \
    WISP_EXPORT void mpi_##lower##__ params __attribute__((alias("ompi_" #lower "_f")));           \
    WISP_EXPORT void mpi_##lower params __attribute__((alias("ompi_" #lower "_f")));               \
    WISP_EXPORT void MPI_##upper params __attribute__((alias("ompi_" #lower "_f")));

/*
 * Entry points of functions wisp does not convert but must see with ghosts
 * (tools/gen_fortran.py): they take the arguments as 16 integer registers
 * and stack slots, whatever the function's, and pass them on unchanged to
 * the MPI's own entry point; every Fortran argument is an address or a
 * hidden length, so this is exact on x86-64 (System V).
 */
#if !defined(__x86_64__)
#error "wisp's forwarding Fortran entry points assume the x86-64 System V calling convention"
#endif
#define WISP_F_ANY_PARAMS                                                                          \
    long a0, long a1, long a2, long a3, long a4, long a5, long a6, long a7, long a8, long a9,      \
        long a10, long a11, long a12, long a13, long a14, long a15
typedef void (*wisp_f_any_fn)(WISP_F_ANY_PARAMS);

/* The Fortran handle to pass on for `comm`: the application's world's
 * in place of MPI_COMM_WORLD's once ghosts are set aside, `comm` itself
 * otherwise. */
const MPI_Fint *wisp_f_comm_in(const MPI_Fint *comm);

/* The MPI's own `symbol` (dlsym RTLD_NEXT), looked up once into `cache`. */
wisp_f_any_fn wisp_f_next(const char *name, const char *symbol, wisp_f_any_fn *cache);

/* The MPI's own `symbol` for a call wisp does not convert. `comm` is the
 * argument slot of its communicator, which gets the application's world in
 * place of MPI_COMM_WORLD (wisp_f_comm_in); a call without one (NULL) that
 * wisp would serve stops the job with one line if ghosts are on. */
wisp_f_any_fn wisp_f_unserved(const char *name, const char *symbol, long *comm,
                              wisp_f_any_fn *cache);
#define WISP_F_UNSERVED(name, symbol, comm)                                                        \
    do {                                                                                           \
        static wisp_f_any_fn next_;                                                                \
        wisp_f_unserved(name, symbol, comm, &next_)(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10,   \
                                                    a11, a12, a13, a14, a15);                      \
    } while (0)

/* The attribute calls (src/fortran/attr.c): each MPI keeps the values set
 * from Fortran itself, so these pass the call on to the MPI's own `next`,
 * with the application's world, and answer what the ghosts change. */
void wisp_f_attr_get(wisp_f_any_fn next, MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *value,
                     MPI_Fint *flag, MPI_Fint *ierror);
void wisp_f_attr_put(wisp_f_any_fn next, MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *value,
                     MPI_Fint *ierror);
void wisp_f_comm_get_attr(wisp_f_any_fn next, MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *value,
                          MPI_Fint *flag, MPI_Fint *ierror);
void wisp_f_comm_set_attr(wisp_f_any_fn next, MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *value,
                          MPI_Fint *ierror);
void wisp_f_win_get_attr(wisp_f_any_fn next, MPI_Fint *win, MPI_Fint *keyval, MPI_Aint *value,
                         MPI_Fint *flag, MPI_Fint *ierror);

/* The other spellings of MPICH's mpif.h entry mpi_x_. */
#define WISP_F_MPICH_ALIASES(lower, upper, params)                                                 \
    WISP_EXPORT void mpi_##lower##__ params __attribute__((alias("mpi_" #lower "_")));             \
    WISP_EXPORT void mpi_##lower params __attribute__((alias("mpi_" #lower "_")));                 \
    WISP_EXPORT void MPI_##upper params __attribute__((alias("mpi_" #lower "_")));

#pragma GCC visibility pop

#endif
