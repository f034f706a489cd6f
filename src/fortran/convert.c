/*
 * The conversions between Fortran arguments and C ones that the generated
 * Fortran entry points use (fortran/fortran.h), done as each MPI's own
 * Fortran library does them: the same sentinels, the same copies.
 */
#include "fortran/fortran.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/world.h"
#if defined(WISP_HAVE_MPI_Request_c2f) /* functions (Open MPI): wisp's own requests */
#include "p2p/p2p.h"
#endif

#if defined(OPEN_MPI)
/* Open MPI's Fortran MPI_BOTTOM and MPI_IN_PLACE: common blocks whose
 * addresses libmpi defines (mpif.h, `use mpi` and `use mpi_f08` alike). */
extern char mpi_fortran_bottom_[], mpi_fortran_in_place_[];

void *wisp_f_buf(void *buf)
{
    if (buf == (void *)mpi_fortran_bottom_)
        return MPI_BOTTOM;
    if (buf == (void *)mpi_fortran_in_place_)
        return MPI_IN_PLACE;
    return buf;
}
#else
/* MPICH: only `use mpi_f08` entries without choice buffers are defined
 * (its mpif.h and the buffers of its mpi_f08 reach the C MPI_X already). */
void *wisp_f_buf(void *buf)
{
    return buf;
}
#endif

static bool status_ignored(enum wisp_f_abi abi, const MPI_Fint *status)
{
#if defined(MPICH)
    if (abi == WISP_F_ABI_F08)
        return (const void *)status == (const void *)MPI_F08_STATUS_IGNORE;
#endif
    (void)abi;
    return status == MPI_F_STATUS_IGNORE;
}

static bool statuses_ignored(enum wisp_f_abi abi, const MPI_Fint *statuses)
{
#if defined(MPICH)
    if (abi == WISP_F_ABI_F08)
        return (const void *)statuses == (const void *)MPI_F08_STATUSES_IGNORE;
#endif
    (void)abi;
    return statuses == MPI_F_STATUSES_IGNORE;
}

/* Copied in even for an output: the fields the call leaves alone (MPI_ERROR
 * in single-completion calls) must come back as the caller set them. */
MPI_Status *wisp_f_status_in(enum wisp_f_abi abi, MPI_Fint *status, MPI_Status *local)
{
    if (status_ignored(abi, status))
        return MPI_STATUS_IGNORE;
    PMPI_Status_f2c(status, local);
    return local;
}

void wisp_f_status_out(const MPI_Status *c, MPI_Fint *status)
{
    if (c != MPI_STATUS_IGNORE)
        PMPI_Status_c2f(c, status);
}

/* n elements of size `size`: the local array, or one from malloc. */
static void *scratch(int n, size_t size, void *local)
{
    if (n <= WISP_F_LOCAL)
        return local;
    void *array = malloc((size_t)n * size);
    if (!array)
        wisp_fatal("cannot allocate %d converted Fortran arguments", n);
    return array;
}

void wisp_f_release(void *array, void *local)
{
    if (array != local && array != MPI_STATUSES_IGNORE)
        free(array);
}

MPI_Status *wisp_f_statuses_in(enum wisp_f_abi abi, MPI_Fint *statuses, int n, MPI_Status *local)
{
    if (statuses_ignored(abi, statuses))
        return MPI_STATUSES_IGNORE;
    MPI_Status *c = scratch(n, sizeof(MPI_Status), local);
    for (int i = 0; i < n; i++)
        PMPI_Status_f2c(statuses + (size_t)i * WISP_F_STATUS_SIZE, &c[i]);
    return c;
}

void wisp_f_statuses_out(const MPI_Status *c, int n, MPI_Fint *statuses)
{
    if (c == MPI_STATUSES_IGNORE || n == MPI_UNDEFINED)
        return;
    for (int i = 0; i < n; i++)
        PMPI_Status_c2f(&c[i], statuses + (size_t)i * WISP_F_STATUS_SIZE);
}

MPI_Request *wisp_f_requests_in(const MPI_Fint *requests, int n, MPI_Request *local)
{
    MPI_Request *c = scratch(n, sizeof(MPI_Request), local);
    for (int i = 0; i < n; i++)
        c[i] = wisp_f_request_f2c(requests[i]);
    return c;
}

void wisp_f_requests_out(const MPI_Request *c, int n, MPI_Fint *requests)
{
    for (int i = 0; i < n; i++)
        requests[i] = wisp_f_request_c2f(c[i]);
}

MPI_Datatype *wisp_f_types_in(const MPI_Fint *types, int n, MPI_Datatype *local)
{
    MPI_Datatype *c = scratch(n, sizeof(MPI_Datatype), local);
    for (int i = 0; i < n; i++)
        c[i] = PMPI_Type_f2c(types[i]);
    return c;
}

void wisp_f_types_out(const MPI_Datatype *c, int n, MPI_Fint *types)
{
    for (int i = 0; i < n; i++)
        types[i] = PMPI_Type_c2f(c[i]);
}

int *wisp_f_logicals_in(const MPI_Fint *logicals, int n, int *local, bool in)
{
    int *c = scratch(n, sizeof(int), local);
    for (int i = 0; in && i < n; i++)
        c[i] = wisp_f_logical_in(logicals[i]);
    return c;
}

void wisp_f_logicals_out(const int *c, int n, MPI_Fint *logicals)
{
    for (int i = 0; i < n; i++)
        logicals[i] = wisp_f_logical_out(c[i]);
}

void wisp_f_indices_out(MPI_Fint *indices, int n)
{
    for (int i = 0; n != MPI_UNDEFINED && i < n; i++)
        indices[i] += 1;
}

/* Under Open MPI wisp's requests and messages convert through wisp's table
 * (wrap of MPI_Request_c2f); under MPICH a handle is its own Fortran handle,
 * wisp's too, and the MPI's conversion serves. */
#if defined(WISP_HAVE_MPI_Request_c2f)
#define CONVERT(wisp_form, mpi_form) wisp_form
#else
#define CONVERT(wisp_form, mpi_form) mpi_form
#endif
MPI_Request wisp_f_request_f2c(MPI_Fint request)
{
    return CONVERT(wisp_p2p_request_f2c, MPI_Request_f2c)(request);
}
MPI_Fint wisp_f_request_c2f(MPI_Request request)
{
    return CONVERT(wisp_p2p_request_c2f, MPI_Request_c2f)(request);
}
MPI_Message wisp_f_message_f2c(MPI_Fint message)
{
    return CONVERT(wisp_p2p_message_f2c, MPI_Message_f2c)(message);
}
MPI_Fint wisp_f_message_c2f(MPI_Message message)
{
    return CONVERT(wisp_p2p_message_c2f, MPI_Message_c2f)(message);
}

int wisp_f_cartdim(MPI_Comm comm)
{
    int ndims = 0;
    PMPI_Cartdim_get(comm, &ndims);
    return ndims;
}

int wisp_f_comm_size(MPI_Comm comm)
{
    comm = wisp_core_comm_in(comm); /* the application's world, without the ghosts */
    int size = 0;
    int inter = 0;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter)
        PMPI_Comm_remote_size(comm, &size);
    else
        PMPI_Comm_size(comm, &size);
    return size;
}

char *wisp_f_string_in(const char *string, size_t len)
{
    /* Both ends, as the standard says and the MPIs' own bindings do. */
    while (len > 0 && string[0] == ' ') {
        string++;
        len--;
    }
    while (len > 0 && string[len - 1] == ' ')
        len--;
    char *c = malloc(len + 1);
    if (!c)
        wisp_fatal("cannot allocate a string of %zu characters", len);
    memcpy(c, string, len);
    c[len] = '\0';
    return c;
}

const MPI_Fint *wisp_f_comm_in(const MPI_Fint *comm)
{
    static MPI_Fint world = -1;
    if (wisp_core_user_world == MPI_COMM_WORLD || *comm != PMPI_Comm_c2f(MPI_COMM_WORLD))
        return comm;
    /* The same value whoever writes it; a stable address to pass on. */
    __atomic_store_n(&world, PMPI_Comm_c2f(wisp_core_user_world), __ATOMIC_RELAXED);
    return &world;
}

wisp_f_any_fn wisp_f_next(const char *name, const char *symbol, wisp_f_any_fn *cache)
{
    wisp_f_any_fn next = __atomic_load_n(cache, __ATOMIC_RELAXED);
    if (!next) {
        next = (wisp_f_any_fn)dlsym(RTLD_NEXT, symbol);
        if (!next)
            wisp_fatal("%s: the MPI's Fortran entry point %s is missing: %s", name, symbol,
                       dlerror());
        __atomic_store_n(cache, next, __ATOMIC_RELAXED);
    }
    return next;
}

wisp_f_any_fn wisp_f_unserved(const char *name, const char *symbol, long *comm,
                              wisp_f_any_fn *cache)
{
    bool ghosts = wisp_core_user_world != MPI_COMM_WORLD;
    if (ghosts && !comm)
        wisp_fatal("%s from Fortran is not served by wisp and would see the ghost processes "
                   "(WISP_GHOSTS); run without ghosts (docs/fortran.md)",
                   name);
    if (comm)
        *comm = (long)wisp_f_comm_in((const MPI_Fint *)*comm);
    return wisp_f_next(name, symbol, cache);
}
