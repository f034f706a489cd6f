/*
 * Error handlers and the application's world (see errhandler.h). The MPI
 * calls a communicator's handler with the communicator it knows, and the
 * application's world is one carved out of the real MPI_COMM_WORLD that the
 * program has never seen. So while ghosts are set aside, every handler the
 * program creates is the MPI's handler around one trampoline, which finds
 * the program's function by the handle the communicator holds and calls it
 * with MPI_COMM_WORLD in place of the carved world. Handles stay the
 * program's own: MPI_Comm_get_errhandler gives back what was set.
 */
#include "ghost/errhandler.h"

#include <pthread.h>
#include <stdlib.h>

#include "core/world.h"

/* The program's function of each handler created through the trampoline.
 * A handle the MPI reuses after a free is overwritten by its new creation. */
struct handler {
    MPI_Errhandler handle;
    MPI_Comm_errhandler_function *fn;
};
static struct handler *handlers;
static int nhandlers, capacity;
static pthread_mutex_t handlers_lock = PTHREAD_MUTEX_INITIALIZER;

static MPI_Comm_errhandler_function *function_of(MPI_Errhandler handle)
{
    MPI_Comm_errhandler_function *fn = NULL;
    pthread_mutex_lock(&handlers_lock);
    for (int i = 0; i < nhandlers && !fn; i++)
        if (handlers[i].handle == handle)
            fn = handlers[i].fn;
    pthread_mutex_unlock(&handlers_lock);
    return fn;
}

static bool remember(MPI_Errhandler handle, MPI_Comm_errhandler_function *fn)
{
    pthread_mutex_lock(&handlers_lock);
    int i = 0;
    while (i < nhandlers && handlers[i].handle != handle)
        i++;
    if (i == nhandlers && nhandlers == capacity) {
        int more = capacity ? 2 * capacity : 8;
        struct handler *grown = realloc(handlers, sizeof *grown * (size_t)more);
        if (grown) {
            handlers = grown;
            capacity = more;
        }
    }
    bool ok = i < capacity;
    if (ok) {
        handlers[i] = (struct handler){handle, fn};
        nhandlers += i == nhandlers;
    }
    pthread_mutex_unlock(&handlers_lock);
    return ok;
}

static void trampoline(MPI_Comm *comm, int *code, ...)
{
    MPI_Errhandler handle;
    if (PMPI_Comm_get_errhandler(*comm, &handle) != MPI_SUCCESS)
        return;
    MPI_Comm_errhandler_function *fn = function_of(handle);
    PMPI_Errhandler_free(&handle); /* the reference get_errhandler took */
    MPI_Comm shown = *comm == wisp_core_user_world ? MPI_COMM_WORLD : *comm;
    if (fn)
        fn(&shown, code);
}

static int create_comm_errhandler(MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    int rc = PMPI_Comm_create_errhandler(trampoline, errhandler);
    if (rc == MPI_SUCCESS && !remember(*errhandler, fn)) {
        PMPI_Errhandler_free(errhandler);
        rc = MPI_ERR_NO_MEM;
    }
    return rc;
}

/* Set in the application's processes while ghosts are set aside. */
static bool translating;

void wisp_ghost_errhandlers_translate(bool on)
{
    translating = on;
}

int wisp_ghost_comm_create_errhandler(MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    return translating ? create_comm_errhandler(fn, errhandler)
                       : PMPI_Comm_create_errhandler(fn, errhandler);
}

#ifdef WISP_HAVE_MPI_Errhandler_create
int wisp_ghost_errhandler_create(MPI_Handler_function *fn, MPI_Errhandler *errhandler)
{
    return translating ? create_comm_errhandler(fn, errhandler)
                       : PMPI_Errhandler_create(fn, errhandler);
}
#endif

/* MPI_Comm_set_errhandler: a handler set on the application's world is set
 * on the real MPI_COMM_WORLD too, which the MPI uses for errors that belong
 * to no communicator (an MPI_COMM_NULL argument, say). */
int wisp_ghost_comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    int rc = PMPI_Comm_set_errhandler(comm, errhandler);
    if (rc == MPI_SUCCESS && comm == wisp_core_user_world && comm != MPI_COMM_WORLD)
        rc = PMPI_Comm_set_errhandler(MPI_COMM_WORLD, errhandler);
    return rc;
}
