/*
 * Setting ghost processes aside (see ghost.h). Roles follow the node
 * layout: the last WISP_GHOSTS ranks of each (virtual) node are ghosts, so
 * the application's ranks stay in world order. The processes of a node
 * share a small board in /dev/shm (board.h): the node's first application
 * process posts commands there and rings the ghosts' doorbells; the ghosts
 * serve them (serve.c) until that process finalizes.
 */
#include "ghost/ghost.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/account.h"
#include "core/config.h"
#include "core/init.h"
#include "core/log.h"
#include "core/topo.h"
#include "core/world.h"
#include "ghost/async.h"
#include "ghost/board.h"
#include "ghost/icomm.h"
#include "ghost/errhandler.h"
#include "ghost/place.h"
#include "ghost/pool.h"
#include "ghost/served.h"
#include "ghost/target_help.h"
#include "ghost/win.h"
#include "shm/segment.h"

static MPI_Comm users = MPI_COMM_NULL; /* the application's world */
static int total_ghosts;

int wisp_ghost_count(void)
{
    return total_ghosts;
}

/* Collective over the world: map this node's board (ghosts included), or
 * stop the job on every rank when some node cannot. */
static struct wisp_ghost_board *map_board(void)
{
    int fd = wisp_shm_segment_open(wisp_topo.node_comm, "ghost", sizeof(struct wisp_ghost_board));
    void *p = fd < 0 ? MAP_FAILED
                     : mmap(NULL, sizeof(struct wisp_ghost_board), PROT_READ | PROT_WRITE,
                            MAP_SHARED, fd, 0);
    if (fd >= 0)
        close(fd);
    if (!wisp_shm_all_agree(p != MAP_FAILED, MPI_COMM_WORLD))
        wisp_core_stop("WISP_GHOSTS: cannot share the ghosts' board through /dev/shm");
    return p;
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
    struct wisp_ghost_node *n = &wisp_ghost_node;
    total_ghosts = ghosts * wisp_topo.node_count;
    n->ghosts = ghosts;
    n->users = wisp_topo.node_size - ghosts;
    n->all_rank = wisp_topo.node_rank;
    n->world_rank = wisp_topo.world_rank;
    n->leader = wisp_topo.node_peers[0];
    n->ghost_rank = malloc(sizeof *n->ghost_rank * (size_t)ghosts);
    if (!n->ghost_rank)
        wisp_fatal("out of memory for the ghosts' ranks");
    for (int g = 0; g < ghosts; g++)
        n->ghost_rank[g] = wisp_topo.node_peers[n->users + g];
    PMPI_Comm_dup(wisp_topo.node_comm, &n->all);
    int ghost = n->all_rank - n->users; /* < 0: not a ghost */

    n->board = map_board();
    wisp_ghost_windows_decide();
    /* Where each process of the node runs, for the ghosts' placement (place.c). */
    int here = wisp_ghost_numa_here();
    int *numa = malloc(sizeof *numa * (size_t)wisp_topo.node_size);
    if (!numa)
        wisp_fatal("out of memory for the node's NUMA map");
    PMPI_Allgather(&here, 1, MPI_INT, numa, 1, MPI_INT, n->all);
    if (ghost >= 0)
        wisp_ghost_place(ghost, numa, n->users, ghosts);
    free(numa);
    PMPI_Comm_split(MPI_COMM_WORLD, ghost >= 0 ? MPI_UNDEFINED : 0, wisp_topo.world_rank, &users);
    if (ghost < 0) {
        PMPI_Comm_set_name(users, "MPI_COMM_WORLD");
        wisp_ghost_errhandlers_translate(true);
        int level = MPI_THREAD_SINGLE;
        PMPI_Query_thread(&level);
        wisp_ghost_threaded = level == MPI_THREAD_MULTIPLE;
        return users;
    }
    wisp_ghost_ucx_count = true;
    wisp_ghost_serve(ghost); /* the application's code after MPI_Init never runs here */
}

void wisp_ghost_start(int thread_level)
{
    (void)thread_level;
    wisp_ghost_ucx_yield = wisp_topo_oversubscribed();
    if (!wisp_config.GHOSTS)
        return;
    wisp_core_user_world = wisp_ghost_carve((int)wisp_config.GHOSTS); /* ghosts stay inside */
    int vnode = (int)wisp_config.VNODE_SIZE;
    wisp_core_topo_narrow(wisp_core_user_world, vnode ? vnode - (int)wisp_config.GHOSTS : 0);
    wisp_core_log_rank = wisp_topo.world_rank; /* messages name the rank the user knows */
    if (wisp_ghost_windows_served())
        wisp_ghost_async_start();
}

void wisp_ghost_release(void)
{
    struct wisp_ghost_node *n = &wisp_ghost_node;
    if (!n->board)
        return;
    wisp_ghost_win_free_all(); /* windows the application left: collective, as MPI_Finalize */
    wisp_ghost_icomm_release();
    if (n->all_rank == 0)
        wisp_ghost_post(WISP_GHOST_CMD_FINALIZE, 0);
    wisp_ghost_pool_release();     /* with the ghosts, which the command let go */
    wisp_core_account_share(NULL); /* the live profile was in the board */
    munmap(n->board, sizeof *n->board);
    n->board = NULL;
    free(n->ghost_rank);
    n->ghost_rank = NULL;
    PMPI_Comm_free(&n->all);
    PMPI_Comm_free(&users);
    wisp_core_user_world = MPI_COMM_WORLD;
    wisp_ghost_errhandlers_translate(false);
}
