/*
 * The application's world (world.h).
 */
#include "core/world.h"

MPI_Comm wisp_core_user_world = MPI_COMM_WORLD;
