/*
 * Setting ghost processes aside (see ghost.h). Roles follow the node
 * layout: the last WISP_GHOSTS ranks of each (virtual) node are ghosts, so
 * the application's ranks stay in world order. A ghost waits for the word
 * of its node's first application process on a communicator of its own,
 * probing with a back-off that ends in millisecond sleeps, so that on an
 * oversubscribed node an idle ghost costs the application almost nothing.
 */
#include "ghost/ghost.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "core/init.h"
#include "core/log.h"
#include "core/topo.h"
#include "wrap/wrap.h"

enum { TAG_RELEASE = 1, MAX_GHOSTS = 64 };

static MPI_Comm ghost_comm = MPI_COMM_NULL; /* a private copy of the real world */
static MPI_Comm users = MPI_COMM_NULL;      /* the application's world */
static int node_ghosts[MAX_GHOSTS];         /* world ranks of this node's ghosts */
static int nghosts, total_ghosts;
static int is_node_leader;

int wisp_ghost_count(void)
{
    return total_ghosts;
}

/* Probe for the release with a growing pause: 1 us doubling to 1 ms. */
static void ghost_wait_for_release(void)
{
    long pause_ns = 1000;
    for (;;) {
        int flag = 0;
        MPI_Status status;
        PMPI_Iprobe(MPI_ANY_SOURCE, TAG_RELEASE, ghost_comm, &flag, &status);
        if (flag) {
            PMPI_Recv(NULL, 0, MPI_BYTE, status.MPI_SOURCE, TAG_RELEASE, ghost_comm,
                      MPI_STATUS_IGNORE);
            return;
        }
        nanosleep(&(struct timespec){.tv_nsec = pause_ns}, NULL);
        if (pause_ns < 1000000)
            pause_ns *= 2;
    }
}

MPI_Comm wisp_ghost_carve(int ghosts)
{
    int fewest = wisp_topo.node_size;
    PMPI_Allreduce(&wisp_topo.node_size, &fewest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (fewest <= ghosts) {
        char line[256];
        snprintf(line, sizeof line,
                 "WISP_GHOSTS=%d needs more than %d processes on every node, but a node has %d: "
                 "launch more processes or set fewer ghosts",
                 ghosts, ghosts, fewest);
        wisp_core_stop(line);
    }
    nghosts = ghosts;
    total_ghosts = ghosts * wisp_topo.node_count;
    for (int g = 0; g < ghosts; g++)
        node_ghosts[g] = wisp_topo.node_peers[wisp_topo.node_size - ghosts + g];
    is_node_leader = wisp_topo.node_rank == 0;
    int ghost = wisp_topo.node_rank >= wisp_topo.node_size - ghosts;

    PMPI_Comm_dup(MPI_COMM_WORLD, &ghost_comm);
    PMPI_Comm_split(MPI_COMM_WORLD, ghost ? MPI_UNDEFINED : 0, wisp_topo.world_rank, &users);
    if (!ghost) {
        PMPI_Comm_set_name(users, "MPI_COMM_WORLD");
        return users;
    }

    wisp_log(2, "ghost of node %d, waiting", wisp_topo.node_id);
    ghost_wait_for_release();
    PMPI_Comm_free(&ghost_comm);
    PMPI_Finalize();
    fflush(NULL);
    _exit(0); /* the application's code after MPI_Init never runs here */
}

void wisp_ghost_release(void)
{
    if (ghost_comm == MPI_COMM_NULL)
        return;
    for (int g = 0; is_node_leader && g < nghosts; g++)
        PMPI_Send(NULL, 0, MPI_BYTE, node_ghosts[g], TAG_RELEASE, ghost_comm);
    PMPI_Comm_free(&ghost_comm);
    PMPI_Comm_free(&users);
    wisp_wrap_user_world = MPI_COMM_WORLD;
}
