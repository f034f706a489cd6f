/*
 * Predefined attributes of MPI_COMM_WORLD under ghosts. The application's
 * world is a communicator derived from the real one, and an MPI may cache
 * MPI_TAG_UB, MPI_UNIVERSE_SIZE, MPI_APPNUM, MPI_HOST, MPI_IO,
 * MPI_WTIME_IS_GLOBAL and MPI_LASTUSEDCODE on the real MPI_COMM_WORLD only,
 * so they are read there, for the application's world and for the
 * communicators made from it.
 */
#include "ghost/world_attr.h"

#include <pthread.h>
#include <stdbool.h>

#include "core/world.h"
#include "ghost/ghost.h"

bool wisp_ghost_world_only(int keyval)
{
    return keyval == MPI_TAG_UB || keyval == MPI_HOST || keyval == MPI_IO ||
           keyval == MPI_WTIME_IS_GLOBAL || keyval == MPI_UNIVERSE_SIZE || keyval == MPI_APPNUM ||
           keyval == MPI_LASTUSEDCODE;
}

/* The universe the application can use: the real one less the ghosts, and
 * never less than the application's world (Open MPI counts the slots, which
 * an oversubscribed run exceeds: natively `-n 2` on 2 slots says 2, so wisp
 * with a ghost says 2 too, not 1). Written once: threads may ask at the
 * same time, and read it through the pointer afterwards without a lock. */
static void universe_less_ghosts(void *value)
{
    static int universe;
    static bool known;
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&lock);
    if (!known) {
        int world = 0;
        PMPI_Comm_size(wisp_core_user_world, &world);
        universe = **(int **)value - wisp_ghost_count();
        universe = universe < world ? world : universe;
    }
    known = true;
    pthread_mutex_unlock(&lock);
    *(int **)value = &universe;
}

int wisp_ghost_world_attr(wisp_attr_get_fn *get, MPI_Comm comm, int keyval, void *value, int *flag)
{
    if (comm == MPI_COMM_WORLD || wisp_core_user_world == MPI_COMM_WORLD ||
        !wisp_ghost_world_only(keyval))
        return get(comm, keyval, value, flag);
    int rc = MPI_SUCCESS;
    /* Another communicator may have them of its own (MPICH gives them to
     * every one, with the real universe); Open MPI gives them to none made
     * from the application's world, where natively a duplicate of the world
     * has them. */
    if (comm == wisp_core_user_world ||
        ((rc = get(comm, keyval, value, flag)) == MPI_SUCCESS && !*flag && comm != MPI_COMM_SELF))
        rc = get(MPI_COMM_WORLD, keyval, value, flag);
    if (rc == MPI_SUCCESS && *flag && keyval == MPI_UNIVERSE_SIZE)
        universe_less_ghosts(value);
    return rc;
}
